// tad-define-thread-launchers instantiates the template's thread loop
// (passes/lower/thread_launch.mlir, see thread-launch.mlir) once per launcher:
// the launcher and its work function take the loop's name, its captures of
// whatever types and number (none included), and the helper count.
// RUN: autodiff-opt %s --split-input-file '--tad-define-thread-launchers=threads=4' | FileCheck %s

// One thread loop capturing a pointer and an i64: the context holds them
// after its three counters; the launcher stores them and the work function
// loads them for each chunk; threads=4 gives up to 3 helpers. The chunk
// function becomes internal, and the protocol's shared symbols appear once.
// CHECK-LABEL: llvm.func @f(
// CHECK: llvm.call @f_thread_loop0_launch
// CHECK: llvm.func internal @f_thread_loop0_chunk(%{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: i64)
// CHECK-DAG: llvm.func @mlirAsyncRuntimeExecute(!llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.mlir.global internal @__tad_helper_state(0 : i64)
// CHECK-DAG: llvm.func @__tad_quiesce_threads()
// CHECK-DAG: llvm.func internal @__tad_thread_helper(
// CHECK-LABEL: llvm.func internal @__tad_launch(
// CHECK: %[[MOST:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK: llvm.alloca %[[MOST]] x !llvm.struct<(ptr, ptr, ptr)>
// CHECK-LABEL: llvm.func internal @f_thread_loop0_work(%arg0: !llvm.ptr) attributes {passthrough = ["noinline"]}
// CHECK: %[[I:.*]] = llvm.atomicrmw add
// CHECK: %[[P0:.*]] = llvm.getelementptr %arg0[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, ptr, i64)>
// CHECK: %[[V0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.getelementptr %arg0[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, ptr, i64)>
// CHECK: %[[V1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> i64
// CHECK: llvm.call @f_thread_loop0_chunk(%[[I]], %[[V0]], %[[V1]]) : (i64, !llvm.ptr, i64) -> ()
// CHECK-LABEL: llvm.func internal @f_thread_loop0_launch(%arg0: i64, %arg1: !llvm.ptr, %arg2: i64)
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, i64, ptr, i64)>
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[CTX]][0, 3]
// CHECK: llvm.store %arg1, %[[S0]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[CTX]][0, 4]
// CHECK: llvm.store %arg2, %[[S1]] : i64, !llvm.ptr
// CHECK: %[[WORK:.*]] = llvm.mlir.addressof @f_thread_loop0_work
// CHECK: llvm.call @__tad_launch(%[[CTX]], %arg0, %[[WORK]])
// CHECK-NOT: tad.template
llvm.func @f(%x: !llvm.ptr, %n: i64) {
  %c4 = llvm.mlir.constant(4 : i64) : i64
  llvm.call @f_thread_loop0_launch(%c4, %x, %n) : (i64, !llvm.ptr, i64) -> ()
  llvm.return
}
llvm.func @f_thread_loop0_launch(i64, !llvm.ptr, i64) attributes {sym_visibility = "private"}
llvm.func @f_thread_loop0_chunk(%i: i64, %x: !llvm.ptr, %n: i64) attributes {sym_visibility = "private"} {
  %v = llvm.load %x : !llvm.ptr -> f32
  %m = llvm.sitofp %n : i64 to f32
  %w = llvm.fadd %v, %m : f32
  llvm.store %w, %x : f32, !llvm.ptr
  llvm.return
}

// -----

// Two loops: one without captures, one capturing an f64; the helper task is defined once.
// CHECK-LABEL: llvm.func @g(
// CHECK-COUNT-1: llvm.func internal @__tad_thread_helper(
// CHECK-COUNT-1: llvm.func internal @__tad_launch(
// CHECK-LABEL: llvm.func internal @g_thread_loop0_work
// CHECK: llvm.call @g_thread_loop0_chunk(%{{.*}}) : (i64) -> ()
// CHECK-LABEL: llvm.func internal @g_thread_loop0_launch(%arg0: i64)
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, i64)>
// CHECK-LABEL: llvm.func internal @g_thread_loop1_work
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f64
// CHECK: llvm.call @g_thread_loop1_chunk(%{{.*}}, %{{.*}}) : (i64, f64) -> ()
// CHECK-LABEL: llvm.func internal @g_thread_loop1_launch(%arg0: i64, %arg1: f64)
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, i64, f64)>
// CHECK: llvm.store %arg1, %{{.*}} : f64, !llvm.ptr
// CHECK-NOT: __tad_thread_helper(
llvm.func @g(%a: f64) {
  %c2 = llvm.mlir.constant(2 : i64) : i64
  llvm.call @g_thread_loop0_launch(%c2) : (i64) -> ()
  llvm.call @g_thread_loop1_launch(%c2, %a) : (i64, f64) -> ()
  llvm.return
}
llvm.func @g_thread_loop0_launch(i64) attributes {sym_visibility = "private"}
llvm.func @g_thread_loop0_chunk(%i: i64) attributes {sym_visibility = "private"} {
  llvm.return
}
llvm.func @g_thread_loop1_launch(i64, f64) attributes {sym_visibility = "private"}
llvm.func @g_thread_loop1_chunk(%i: i64, %a: f64) attributes {sym_visibility = "private"} {
  %p = llvm.inttoptr %i : i64 to !llvm.ptr
  llvm.store %a, %p : f64, !llvm.ptr
  llvm.return
}

// -----

// Captures the chunk function does not read are dropped: from its arguments, from the
// context, and from the launcher's calls. A memref descriptor's fields arrive one by one,
// and a chunk of static shape reads the aligned pointer only (its sizes and strides are
// constants in its code).
// CHECK-LABEL: llvm.func @h(
// CHECK: llvm.call @h_thread_loop0_launch(%{{.*}}, %arg1) : (i64, !llvm.ptr) -> ()
// CHECK: llvm.func internal @h_thread_loop0_chunk(%{{.*}}: i64, %{{.*}}: !llvm.ptr) attributes
// CHECK-LABEL: llvm.func internal @h_thread_loop0_work(%arg0: !llvm.ptr)
// CHECK: %[[P:.*]] = llvm.getelementptr %arg0[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, ptr)>
// CHECK: %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @h_thread_loop0_chunk(%{{.*}}, %[[V]]) : (i64, !llvm.ptr) -> ()
// CHECK-LABEL: llvm.func internal @h_thread_loop0_launch(%arg0: i64, %arg1: !llvm.ptr)
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, i64, ptr)>
// CHECK: llvm.store %arg1, %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK-NOT: llvm.store
llvm.func @h(%allocated: !llvm.ptr, %aligned: !llvm.ptr, %offset: i64, %size: i64, %stride: i64) {
  %c2 = llvm.mlir.constant(2 : i64) : i64
  llvm.call @h_thread_loop0_launch(%c2, %allocated, %aligned, %offset, %size, %stride)
      : (i64, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
  llvm.return
}
llvm.func @h_thread_loop0_launch(i64, !llvm.ptr, !llvm.ptr, i64, i64, i64) attributes {sym_visibility = "private"}
llvm.func @h_thread_loop0_chunk(%i: i64, %allocated: !llvm.ptr, %aligned: !llvm.ptr, %offset: i64, %size: i64,
                                %stride: i64) attributes {sym_visibility = "private"} {
  %p = llvm.getelementptr inbounds %aligned[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %p : !llvm.ptr -> f32
  %w = llvm.fadd %v, %v : f32
  llvm.store %w, %p : f32, !llvm.ptr
  llvm.return
}
