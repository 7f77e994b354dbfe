// tad-lower-to-linalg of the collectives. Over several processes the flat
// operand goes as a buffer to a kernel of the module that calls the MPI
// library with the MPICH ABI's handles (MPI_COMM_WORLD = 0x44000000 =
// 1140850688, MPI_DOUBLE = 1275070475, MPI_SUM = 1476395011, MPI_MAX =
// 1476395009, MPI_MIN = 1476395010) and aborts the job if the call fails.
// psum, pmax and pmin reduce in place (MPI_IN_PLACE = -1): the operand's
// buffer, written (to_buffer without read_only), is the result's, and
// bufferization copies the operand first only where it is read later. The
// MPI functions are declared under names that say the job's number of
// processes. Over one process a collective is a reshape at most; pvary is
// always the identity.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg --tad-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<2x3xf64> into tensor<6xf64>
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[FLAT]] : tensor<6xf64> to memref<6xf64>
// CHECK-NOT: memref.alloc
// CHECK: call @tad_mpi_allreduce_sum_f64_6_2(%{{.*}}) : (memref<6xf64>) -> ()
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<6xf64> to tensor<6xf64>
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [2, 3]
// CHECK: return %[[Y]]
// CHECK-LABEL: func.func private @tad_mpi_allreduce_sum_f64_6_2
// CHECK-SAME: (%[[B:.*]]: memref<6xf64>)
// CHECK-DAG: %[[MINUS_ONE:.*]] = arith.constant -1 : i64
// CHECK-DAG: %[[IN_PLACE:.*]] = llvm.inttoptr %[[MINUS_ONE]] : i64 to !llvm.ptr
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-DAG: %[[COMM:.*]] = arith.constant 1140850688 : i32
// CHECK-DAG: %[[DOUBLE:.*]] = arith.constant 1275070475 : i32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[SUM:.*]] = arith.constant 1476395011 : i32
// CHECK: %[[CODE:.*]] = call @tad_mpi2_MPI_Allreduce(%[[IN_PLACE]], %{{.*}}, %[[SIX]], %[[DOUBLE]], %[[SUM]], %[[COMM]])
// CHECK: %[[FAILED:.*]] = arith.cmpi ne, %[[CODE]]
// CHECK: scf.if %[[FAILED]]
// CHECK-NEXT: func.call @tad_mpi2_MPI_Abort(%{{.*}}, %[[CODE]])
// CHECK: func.func private @tad_mpi2_MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> i32
// LLVM-LABEL: llvm.func @sum
// LLVM: llvm.func @tad_mpi2_MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> i32
func.func @sum(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = "tad.psum"(%x) {processes = 2} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

// pmax and pmin: MPI_Allreduce in place with MPI_MAX and MPI_MIN. The exp is
// read after the pmax, so bufferization gives the pmax a copy of it (one
// memcpy) and the pmin reduces the pmax's buffer in place (no second copy).
// CHECK-LABEL: func.func @extrema
// CHECK: %[[E:.*]] = math.exp
// CHECK: bufferization.to_buffer %[[E]] : tensor<4xf32> to memref<4xf32>
// CHECK: call @tad_mpi_allreduce_max_f32_4_2
// CHECK: call @tad_mpi_allreduce_min_f32_4_2
// CHECK-LABEL: func.func private @tad_mpi_allreduce_max_f32_4_2
// CHECK: %[[MAX:.*]] = arith.constant 1476395009 : i32
// CHECK: call @tad_mpi2_MPI_Allreduce(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[MAX]], %{{.*}})
// CHECK-LABEL: func.func private @tad_mpi_allreduce_min_f32_4_2
// CHECK: %[[MIN:.*]] = arith.constant 1476395010 : i32
// CHECK: call @tad_mpi2_MPI_Allreduce(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[MIN]], %{{.*}})
// LLVM-LABEL: llvm.func @extrema
// LLVM-COUNT-1: llvm.intr.memcpy
// LLVM-NOT: llvm.intr.memcpy
// LLVM: llvm.func @tad_mpi_allreduce_max_f32_4_2
func.func @extrema(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = math.exp %x : tensor<4xf32>
  %0 = "tad.pmax"(%e) {processes = 2} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tad.pmin"(%0) {processes = 2} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = arith.addf %1, %e : tensor<4xf32>
  return %2, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// all_gather sends its 3 elements and receives 3 from each of the 2
// processes (MPI_Allgather); the kernel is made once for both calls.
// CHECK-LABEL: func.func @gather
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<6xf32>
// CHECK: call @tad_mpi_allgather_f32_3_2(%{{.*}}, %{{.*}}) : (memref<3xf32>, memref<6xf32>) -> ()
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK: call @tad_mpi_allgather_f32_3_2
// CHECK-LABEL: func.func private @tad_mpi_allgather_f32_3_2
// CHECK-DAG: %[[FLOAT:.*]] = arith.constant 1275069450 : i32
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i32
// CHECK: call @tad_mpi2_MPI_Allgather(%{{.*}}, %[[THREE]], %[[FLOAT]], %{{.*}}, %[[THREE]], %[[FLOAT]], %{{.*}})
// CHECK-NOT: func.func private @tad_mpi_allgather_f32_3_2
func.func @gather(%x: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "tad.all_gather"(%x) {processes = 2} : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "tad.all_gather"(%x) {processes = 2} : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// reduce_scatter receives its row of the sum: 2 of the 4 int64 elements (MPI_INT64_T = 1275070522).
// CHECK-LABEL: func.func @scatter
// CHECK: call @tad_mpi_reduce_scatter_block_i64_4_2(%{{.*}}, %{{.*}}) : (memref<4xi64>, memref<2xi64>) -> ()
// CHECK-LABEL: func.func private @tad_mpi_reduce_scatter_block_i64_4_2
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[I64:.*]] = arith.constant 1275070522 : i32
// CHECK: call @tad_mpi2_MPI_Reduce_scatter_block(%{{.*}}, %{{.*}}, %[[TWO]], %[[I64]], %{{.*}}, %{{.*}})
func.func @scatter(%x: tensor<2x2xi64>) -> tensor<2xi64> {
  %0 = "tad.reduce_scatter"(%x) {processes = 2} : (tensor<2x2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// One process: no MPI. A scalar's sum is itself; the stack of one adds a dim, its row drops it.
// CHECK-LABEL: func.func @alone
// CHECK-SAME: (%[[X:.*]]: tensor<f64>, %[[Y:.*]]: tensor<3xf64>)
// CHECK: %[[G:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf64> into tensor<1x3xf64>
// CHECK: %[[S:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1]] : tensor<1x3xf64> into tensor<3xf64>
// CHECK-NOT: call
// CHECK: return %{{.*}}, %[[G]], %[[S]]
func.func @alone(%x: tensor<f64>, %y: tensor<3xf64>) -> (tensor<f64>, tensor<1x3xf64>, tensor<3xf64>) {
  %0 = "tad.psum"(%x) {processes = 1} : (tensor<f64>) -> tensor<f64>
  %1 = "tad.all_gather"(%y) {processes = 1} : (tensor<3xf64>) -> tensor<1x3xf64>
  %2 = "tad.reduce_scatter"(%1) {processes = 1} : (tensor<1x3xf64>) -> tensor<3xf64>
  return %0, %1, %2 : tensor<f64>, tensor<1x3xf64>, tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @replicated
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>)
// CHECK-NEXT: return %[[X]]
func.func @replicated(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.pvary"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
