// The thread-launch protocol's template, passes/lower/thread_launch.mlir, is
// plain LLVM dialect that upstream mlir-opt verifies as it is; its one thread
// loop ("loop", capturing one pointer) is what tad-define-thread-launchers
// copies per loop (see thread-launch-captures.mlir).
// RUN: mlir-opt %S/../../../passes/lower/thread_launch.mlir | FileCheck %s
// RUN: autodiff-opt %S/../../../passes/lower/thread_launch.mlir | FileCheck %s

// CHECK-DAG: llvm.func @mlirAsyncRuntimeCreateToken() -> !llvm.ptr
// CHECK-DAG: llvm.func @mlirAsyncRuntimeExecute(!llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.func @mlirAsyncRuntimeEmplaceToken(!llvm.ptr)
// CHECK-DAG: llvm.func @mlirAsyncRuntimeAwaitToken(!llvm.ptr)
// CHECK-DAG: llvm.func @mlirAsyncRuntimeDropRef(!llvm.ptr, i64)
// CHECK-DAG: llvm.func @sched_yield() -> i32
// CHECK-DAG: llvm.mlir.global internal @__tad_helper_state(0 : i64)
// CHECK-DAG: llvm.mlir.global internal @__tad_helper_job()
// CHECK-DAG: llvm.mlir.global internal @__tad_helpers_inside(0 : i64)

// The quiesce function closes the mailbox and waits until no helper is inside.
// CHECK-LABEL: llvm.func @__tad_quiesce_threads()
// CHECK: llvm.cmpxchg
// CHECK: llvm.load %{{.*}} atomic acquire

// A helper runs its record's work, parks (state 0 -> 1) and polls the mailbox
// 20000 times for a job (state 3) before it returns to the pool, giving its
// core away before each poll after the first 2000.
// CHECK-LABEL: llvm.func internal @__tad_thread_helper(%arg0: !llvm.ptr)
// CHECK: %[[SPINS:.*]] = llvm.mlir.constant(20000 : i64) : i64
// CHECK: %[[EAGER:.*]] = llvm.mlir.constant(2000 : i64) : i64
// CHECK: llvm.call %{{.*}}(%{{.*}}) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK: llvm.cmpxchg
// CHECK: llvm.call @mlirAsyncRuntimeEmplaceToken
// CHECK: llvm.icmp "slt" %{{.*}}, %[[EAGER]] : i64
// CHECK: llvm.icmp "slt" %{{.*}}, %[[SPINS]] : i64
// CHECK: llvm.call @sched_yield() : () -> i32

// The launch protocol, shared by every loop: the helper count is the placeholder
// tad-define-thread-launchers sets; it stores the count, starts helpers with the work
// function it is given, runs it itself, then waits for the helpers.
// CHECK-LABEL: llvm.func internal @__tad_launch(%arg0: !llvm.ptr, %arg1: i64, %arg2: !llvm.ptr) attributes {passthrough = ["noinline"]}
// CHECK: llvm.mlir.constant(1 : i64) {tad.template = "helpers"} : i64
// CHECK: llvm.store %arg1, %{{.*}} : i64, !llvm.ptr
// CHECK: llvm.store %arg2, %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.cmpxchg
// CHECK: llvm.call @mlirAsyncRuntimeExecute
// CHECK: llvm.call %arg2(%arg0) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK: llvm.mlir.constant(20000 : i64) : i64
// CHECK: llvm.call @mlirAsyncRuntimeAwaitToken
// CHECK: llvm.call @mlirAsyncRuntimeDropRef

// The thread loop: the work function takes chunk indices from the context's
// counter and passes the capture (field 3) to the chunk function.
// CHECK-LABEL: llvm.func internal @loop_work(%arg0: !llvm.ptr) attributes {passthrough = ["noinline"]}
// CHECK: llvm.atomicrmw add
// CHECK: llvm.getelementptr %arg0[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, ptr)>
// CHECK: llvm.call @loop_chunk(%{{.*}}, %{{.*}}) : (i64, !llvm.ptr) -> ()

// The launcher: the capture into a context on its stack, then the protocol with the work function.
// CHECK-LABEL: llvm.func internal @loop_launch(%arg0: i64, %arg1: !llvm.ptr)
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, i64, ptr)>
// CHECK: llvm.store %arg1, %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: %[[WORK:.*]] = llvm.mlir.addressof @loop_work
// CHECK: llvm.call @__tad_launch(%[[CTX]], %arg0, %[[WORK]])
// CHECK: llvm.func @loop_chunk(i64, !llvm.ptr)
