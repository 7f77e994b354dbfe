// tad-define-thread-launchers (on the LLVM dialect, after tad-outline-thread-loops) gives
// each declared launcher its body: the captures go into a context on its stack, which it
// passes with its work function (@..._work: take chunk indices from an atomic counter until
// none is left) to the module's one @__tad_launch: it stores the count, gives threads-1
// helpers (mlirAsyncRuntimeExecute, or the parked @__tad_thread_helper) the context, runs
// the work itself and returns when the helpers have emplaced their tokens.
// RUN: autodiff-opt %s --tad-define-thread-launchers=threads=2 | FileCheck %s

// CHECK-LABEL: llvm.func @f(
// CHECK: llvm.call @f_thread_loop0_launch(
// CHECK-LABEL: llvm.func internal @f_thread_loop0_chunk(
// CHECK-DAG: llvm.func @mlirAsyncRuntimeCreateToken() -> !llvm.ptr
// CHECK-DAG: llvm.func @mlirAsyncRuntimeExecute(!llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.func @mlirAsyncRuntimeEmplaceToken(!llvm.ptr)
// CHECK-DAG: llvm.func @mlirAsyncRuntimeAwaitToken(!llvm.ptr)
// CHECK-DAG: llvm.func @mlirAsyncRuntimeDropRef(!llvm.ptr, i64)
// CHECK-DAG: llvm.func @__tad_quiesce_threads()
// CHECK-DAG: llvm.func internal @__tad_thread_helper(%{{.*}}: !llvm.ptr)
// The launch protocol, once for all loops: the count into the context, helpers started, the work run.
// CHECK-LABEL: llvm.func internal @__tad_launch(%arg0: !llvm.ptr, %arg1: i64, %arg2: !llvm.ptr) attributes {passthrough = ["noinline"]}
// CHECK: llvm.store %arg1,
// CHECK: llvm.call @mlirAsyncRuntimeCreateToken()
// CHECK: llvm.call @mlirAsyncRuntimeExecute(
// CHECK: llvm.call %arg2(%arg0) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK: llvm.call @mlirAsyncRuntimeAwaitToken(
// The work loop: claim the next chunk index, run it while it is below the count.
// CHECK-LABEL: llvm.func internal @f_thread_loop0_work(%arg0: !llvm.ptr)
// CHECK: %[[NEXT:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK-NEXT: %[[MORE:.*]] = llvm.icmp "slt" %[[NEXT]], %{{.*}} : i64
// CHECK-NEXT: llvm.cond_br %[[MORE]]
// CHECK: llvm.call @f_thread_loop0_chunk(%[[NEXT]], {{.*}}) : (i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, f32) -> ()
// The launcher: a context on the stack holding the captures, and the call of the protocol.
// CHECK-LABEL: llvm.func internal @f_thread_loop0_launch(%arg0: i64, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: f32)
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, i64, ptr, ptr, i64, i64, i64, f32)>
// CHECK: llvm.store %arg1,
// CHECK: llvm.store %arg6,
// CHECK: %[[WORK:.*]] = llvm.mlir.addressof @f_thread_loop0_work
// CHECK: llvm.call @__tad_launch(%[[CTX]], %arg0, %[[WORK]])
// CHECK-NEXT: llvm.return
module {
  llvm.func @f(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: f32) {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %1 = llvm.insertvalue %arg0, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %2 = llvm.insertvalue %arg1, %1[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %3 = llvm.insertvalue %arg2, %2[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %4 = llvm.insertvalue %arg3, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %5 = llvm.insertvalue %arg4, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %6 = llvm.mlir.constant(0 : index) : i64
    %7 = llvm.mlir.constant(1 : index) : i64
    %8 = llvm.mlir.constant(4 : index) : i64
    %9 = llvm.extractvalue %5[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.extractvalue %5[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %12 = llvm.extractvalue %5[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %13 = llvm.extractvalue %5[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    llvm.call @f_thread_loop0_launch(%8, %9, %10, %11, %12, %13, %arg5) : (i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, f32) -> ()
    llvm.return
  }
  llvm.func @f_thread_loop0_chunk(%arg0: i64, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: f32) attributes {sym_visibility = "private"} {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %1 = llvm.insertvalue %arg1, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %2 = llvm.insertvalue %arg2, %1[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %3 = llvm.insertvalue %arg3, %2[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %4 = llvm.insertvalue %arg4, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %5 = llvm.insertvalue %arg5, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %6 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %7 = llvm.getelementptr inbounds|nuw %6[%arg0] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %8 = llvm.load %7 : !llvm.ptr -> f32
    %9 = llvm.fadd %8, %arg6 : f32
    %10 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.getelementptr inbounds|nuw %10[%arg0] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %9, %11 : f32, !llvm.ptr
    llvm.return
  }
  llvm.func @f_thread_loop0_launch(i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, f32) attributes {sym_visibility = "private"}
}
