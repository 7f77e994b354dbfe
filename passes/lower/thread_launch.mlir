// The thread-launch protocol of tad-define-thread-launchers (passes/lower/threads.py).
//
// Shared by every thread loop of a module, copied into it once:
// * the async runtime's functions (libmlir_async_runtime.so);
// * the mailbox: @__tad_helper_state (0 no helper parked, 1 parked, 2 a
//   launcher is writing the job, 3 job ready) and @__tad_helper_job, a
//   launcher's helper record; @__tad_helpers_inside counts the helpers running
//   the module's code;
// * @__tad_quiesce_threads, which tensorad.runtime calls (its
//   QUIESCE_THREADS) before it frees the code: it sends a parked helper back
//   to the pool and waits until no helper is inside;
// * @__tad_thread_helper, the helper task. A helper record is (context,
//   token, work function). The task runs the work function on the context,
//   counts itself finished and emplaces the token; but before it counts itself
//   finished it parks, unless another helper is parked already (so the
//   launcher's next loop finds it parked): it polls the mailbox 20000 times
//   for the next record, runs it the same way, and returns to the pool when
//   nothing came. Waking a pool thread from its sleep takes tens of
//   microseconds; a parked helper takes the next loop at once. After the
//   first 2000 polls (microseconds) it gives its core away (sched_yield)
//   before each: on a machine whose cores other processes take, a helper
//   polling flat out for milliseconds took the core the launcher's thread
//   needed (W1's median step took 1.6x as long, W7's 1.3x, beside a test
//   run); on an idle one, the yield returns at once.
//
// * @__tad_launch (context, count, work function), the launch protocol: it
//   stores the count in the context, gives up to "helpers" helpers (the
//   constant marked tad.template = "helpers": threads - 1) the context and
//   the work function, each through the mailbox when a helper is parked and
//   as a new task otherwise, runs the work function itself, polls the
//   helpers' finish count 20000 times (helpers usually finish within
//   microseconds of the launcher, and sleeping in mlirAsyncRuntimeAwaitToken
//   costs a context switch each way), then awaits every helper's token.
//
// Instantiated once per thread loop <f>_thread_loop<k> (the template's "loop"):
// @loop_work takes chunk indices from the context's atomic counter and runs
// @loop_chunk on each until none is left; @loop_launch (count, captures...)
// stores the captures in a context on its stack and calls @__tad_launch with
// it and @loop_work. The context is (next chunk index, chunk count, helpers
// finished, captures...). The template's loop captures one !llvm.ptr:
// instantiation renames the three symbols, gives the context the loop's
// capture types, and repeats the capture's store (in @loop_launch) and load
// (in @loop_work) per capture.
module {
  // The async runtime.
  llvm.func @mlirAsyncRuntimeCreateToken() -> !llvm.ptr
  llvm.func @mlirAsyncRuntimeExecute(!llvm.ptr, !llvm.ptr)
  llvm.func @mlirAsyncRuntimeEmplaceToken(!llvm.ptr)
  llvm.func @mlirAsyncRuntimeAwaitToken(!llvm.ptr)
  llvm.func @mlirAsyncRuntimeDropRef(!llvm.ptr, i64)
  // The C library's (the process has it; so has an exported library's link).
  llvm.func @sched_yield() -> i32

  // The mailbox and the helper task.
  llvm.mlir.global internal @__tad_helper_state(0 : i64) {alignment = 64 : i64} : i64
  llvm.mlir.global internal @__tad_helper_job() {alignment = 8 : i64} : !llvm.ptr {
    %null = llvm.mlir.zero : !llvm.ptr
    llvm.return %null : !llvm.ptr
  }
  llvm.mlir.global internal @__tad_helpers_inside(0 : i64) {alignment = 64 : i64} : i64
  llvm.func @__tad_quiesce_threads() {
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %state = llvm.mlir.addressof @__tad_helper_state : !llvm.ptr
    %inside = llvm.mlir.addressof @__tad_helpers_inside : !llvm.ptr
    llvm.br ^close
  ^close:
    %close = llvm.cmpxchg %state, %one, %zero acq_rel monotonic : !llvm.ptr, i64
    %n = llvm.load %inside atomic acquire {alignment = 8 : i64} : !llvm.ptr -> i64
    %busy = llvm.icmp "ne" %n, %zero : i64
    llvm.cond_br %busy, ^close, ^done
  ^done:
    llvm.return
  }
  llvm.func internal @__tad_thread_helper(%first: !llvm.ptr) {
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %three = llvm.mlir.constant(3 : i64) : i64
    %spins = llvm.mlir.constant(20000 : i64) : i64
    %eager_spins = llvm.mlir.constant(2000 : i64) : i64
    %false = llvm.mlir.constant(false) : i1
    %true = llvm.mlir.constant(true) : i1
    %state = llvm.mlir.addressof @__tad_helper_state : !llvm.ptr
    %job = llvm.mlir.addressof @__tad_helper_job : !llvm.ptr
    %inside = llvm.mlir.addressof @__tad_helpers_inside : !llvm.ptr
    %entered = llvm.atomicrmw add %inside, %one acq_rel : !llvm.ptr, i64
    llvm.br ^run(%first, %false : !llvm.ptr, i1)
  ^run(%rec: !llvm.ptr, %mailed: i1):
    %ctx_ptr = llvm.getelementptr %rec[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    %token_ptr = llvm.getelementptr %rec[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    %work_ptr = llvm.getelementptr %rec[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    %ctx = llvm.load %ctx_ptr : !llvm.ptr -> !llvm.ptr
    %token = llvm.load %token_ptr : !llvm.ptr -> !llvm.ptr
    %work = llvm.load %work_ptr : !llvm.ptr -> !llvm.ptr
    llvm.call %work(%ctx) : !llvm.ptr, (!llvm.ptr) -> ()
    llvm.cond_br %mailed, ^reopen, ^park
  ^park:
    %claim = llvm.cmpxchg %state, %zero, %one acq_rel monotonic : !llvm.ptr, i64
    %parked = llvm.extractvalue %claim[1] : !llvm.struct<(i64, i1)>
    llvm.br ^finish(%parked : i1)
  ^reopen:
    llvm.store %one, %state atomic release {alignment = 8 : i64} : i64, !llvm.ptr
    llvm.br ^finish(%true : i1)
  ^finish(%stay: i1):
    // Parked before it counts itself finished: the launcher's next loop finds it.
    %finished = llvm.getelementptr %ctx[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64)>
    %before = llvm.atomicrmw add %finished, %one release : !llvm.ptr, i64
    llvm.call @mlirAsyncRuntimeEmplaceToken(%token) : (!llvm.ptr) -> ()
    llvm.cond_br %stay, ^poll(%zero : i64), ^leave
  ^poll(%n: i64):
    %s = llvm.load %state atomic acquire {alignment = 8 : i64} : !llvm.ptr -> i64
    %ready = llvm.icmp "eq" %s, %three : i64
    llvm.cond_br %ready, ^take, ^closed
  ^closed:
    // The mailbox closes (state 0) under a parked helper only by the quiesce function.
    %gone = llvm.icmp "eq" %s, %zero : i64
    llvm.cond_br %gone, ^leave, ^idle
  ^idle:
    %eager = llvm.icmp "slt" %n, %eager_spins : i64
    %patience = llvm.icmp "slt" %n, %spins : i64
    %n1 = llvm.add %n, %one : i64
    llvm.cond_br %eager, ^poll(%n1 : i64), ^patient
  ^patient:
    llvm.cond_br %patience, ^yield, ^timeout
  ^yield:
    %yielded = llvm.call @sched_yield() : () -> i32
    llvm.br ^poll(%n1 : i64)
  ^timeout:
    %quit = llvm.cmpxchg %state, %one, %zero acq_rel monotonic : !llvm.ptr, i64
    %left = llvm.extractvalue %quit[1] : !llvm.struct<(i64, i1)>
    llvm.cond_br %left, ^leave, ^poll(%n : i64)
  ^take:
    %next = llvm.load %job : !llvm.ptr -> !llvm.ptr
    llvm.br ^run(%next, %true : !llvm.ptr, i1)
  ^leave:
    %left_inside = llvm.atomicrmw sub %inside, %one release : !llvm.ptr, i64
    llvm.return
  }

  // The launch protocol, one copy for every thread loop (noinline: a copy per loop was a fifth of a
  // threaded program's LLVM IR).
  llvm.func internal @__tad_launch(%ctx: !llvm.ptr, %count: i64, %work: !llvm.ptr) attributes {passthrough = ["noinline"]} {
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %most = llvm.mlir.constant(1 : i64) {tad.template = "helpers"} : i64
    %next = llvm.getelementptr %ctx[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64)>
    llvm.store %zero, %next : i64, !llvm.ptr
    %count_ptr = llvm.getelementptr %ctx[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64)>
    llvm.store %count, %count_ptr : i64, !llvm.ptr
    %finished = llvm.getelementptr %ctx[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64)>
    llvm.store %zero, %finished : i64, !llvm.ptr
    %others = llvm.sub %count, %one : i64
    %few = llvm.icmp "slt" %others, %most : i64
    %helpers = llvm.select %few, %others, %most : i1, i64
    %recs = llvm.alloca %most x !llvm.struct<(ptr, ptr, ptr)> : (i64) -> !llvm.ptr
    %task = llvm.mlir.addressof @__tad_thread_helper : !llvm.ptr
    %state = llvm.mlir.addressof @__tad_helper_state : !llvm.ptr
    %job = llvm.mlir.addressof @__tad_helper_job : !llvm.ptr
    %parked = llvm.mlir.constant(1 : i64) : i64
    %writing = llvm.mlir.constant(2 : i64) : i64
    %ready = llvm.mlir.constant(3 : i64) : i64
    llvm.br ^start(%zero : i64)
  ^start(%j: i64):
    %start_more = llvm.icmp "slt" %j, %helpers : i64
    llvm.cond_br %start_more, ^spawn, ^work
  ^spawn:
    %rec = llvm.getelementptr %recs[%j] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    %rec_ctx = llvm.getelementptr %rec[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    llvm.store %ctx, %rec_ctx : !llvm.ptr, !llvm.ptr
    %token = llvm.call @mlirAsyncRuntimeCreateToken() : () -> !llvm.ptr
    %rec_token = llvm.getelementptr %rec[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    llvm.store %token, %rec_token : !llvm.ptr, !llvm.ptr
    %rec_work = llvm.getelementptr %rec[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    llvm.store %work, %rec_work : !llvm.ptr, !llvm.ptr
    %j1 = llvm.add %j, %one : i64
    %claim = llvm.cmpxchg %state, %parked, %writing acq_rel monotonic : !llvm.ptr, i64
    %claimed = llvm.extractvalue %claim[1] : !llvm.struct<(i64, i1)>
    llvm.cond_br %claimed, ^mail, ^execute
  ^mail:
    llvm.store %rec, %job : !llvm.ptr, !llvm.ptr
    llvm.store %ready, %state atomic release {alignment = 8 : i64} : i64, !llvm.ptr
    llvm.br ^start(%j1 : i64)
  ^execute:
    llvm.call @mlirAsyncRuntimeExecute(%rec, %task) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.br ^start(%j1 : i64)
  ^work:
    llvm.call %work(%ctx) : !llvm.ptr, (!llvm.ptr) -> ()
    %spins = llvm.mlir.constant(20000 : i64) : i64
    llvm.br ^spin(%zero : i64)
  ^spin(%n: i64):
    %done = llvm.load %finished atomic acquire {alignment = 8 : i64} : !llvm.ptr -> i64
    %waiting = llvm.icmp "slt" %done, %helpers : i64
    %patience = llvm.icmp "slt" %n, %spins : i64
    %poll = llvm.and %patience, %waiting : i1
    llvm.cond_br %poll, ^again, ^joined
  ^again:
    %n1 = llvm.add %n, %one : i64
    llvm.br ^spin(%n1 : i64)
  ^joined:
    llvm.br ^join(%zero : i64)
  ^join(%k: i64):
    %join_more = llvm.icmp "slt" %k, %helpers : i64
    llvm.cond_br %join_more, ^wait, ^done
  ^wait:
    %wrec = llvm.getelementptr %recs[%k] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    %wtoken_ptr = llvm.getelementptr %wrec[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr)>
    %wtoken = llvm.load %wtoken_ptr : !llvm.ptr -> !llvm.ptr
    llvm.call @mlirAsyncRuntimeAwaitToken(%wtoken) : (!llvm.ptr) -> ()
    llvm.call @mlirAsyncRuntimeDropRef(%wtoken, %one) : (!llvm.ptr, i64) -> ()
    %k1 = llvm.add %k, %one : i64
    llvm.br ^join(%k1 : i64)
  ^done:
    llvm.return
  }

  // One thread loop.
  llvm.func internal @loop_work(%ctx: !llvm.ptr) attributes {passthrough = ["noinline"]} {
    %one = llvm.mlir.constant(1 : i64) : i64
    %next = llvm.getelementptr %ctx[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, !llvm.ptr)>
    %count_ptr = llvm.getelementptr %ctx[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, !llvm.ptr)>
    %count = llvm.load %count_ptr : !llvm.ptr -> i64
    llvm.br ^take
  ^take:
    %i = llvm.atomicrmw add %next, %one monotonic : !llvm.ptr, i64
    %more = llvm.icmp "slt" %i, %count : i64
    llvm.cond_br %more, ^run, ^done
  ^run:
    %p0 = llvm.getelementptr %ctx[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, !llvm.ptr)>
    %v0 = llvm.load %p0 : !llvm.ptr -> !llvm.ptr
    llvm.call @loop_chunk(%i, %v0) : (i64, !llvm.ptr) -> ()
    llvm.br ^take
  ^done:
    llvm.return
  }
  llvm.func internal @loop_launch(%count: i64, %a0: !llvm.ptr) {
    %one = llvm.mlir.constant(1 : i64) : i64
    %ctx = llvm.alloca %one x !llvm.struct<(i64, i64, i64, !llvm.ptr)> : (i64) -> !llvm.ptr
    %s0 = llvm.getelementptr %ctx[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, !llvm.ptr)>
    llvm.store %a0, %s0 : !llvm.ptr, !llvm.ptr
    %work = llvm.mlir.addressof @loop_work : !llvm.ptr
    llvm.call @__tad_launch(%ctx, %count, %work) : (!llvm.ptr, i64, !llvm.ptr) -> ()
    llvm.return
  }
  // The loop's chunk function, defined by tad-outline-thread-loops.
  llvm.func @loop_chunk(i64, !llvm.ptr)
}
