// Derivatives of the collectives (JAX's shard_map rules): psum's cotangent is
// the same on every process, so its transpose is the identity (pvary); pvary's
// transpose adds up the cotangents of every process (psum); all_gather and
// reduce_scatter transpose into each other. Forward mode applies the op to the
// tangent. A batch prefix (jacobians) stays in front of the process dim.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func private @total_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<f64>)
// CHECK: %[[SUM:.*]] = "tad.psum"(%{{.*}}) {processes = 2 : i64}
// CHECK: %[[CT_B:.*]] = "tad.broadcast_in_dim"(%[[CT]])
// CHECK-NEXT: %[[CT_V:.*]] = "tad.pvary"(%[[CT_B]]) {processes = 2 : i64} : (tensor<3xf64>) -> tensor<3xf64>
// CHECK-NOT: "tad.psum"
// CHECK: %[[COS:.*]] = math.cos %[[X]]
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[CT_V]], %[[COS]] : tensor<3xf64>
// CHECK-NEXT: return %{{.*}}, %[[DX]]

// CHECK-LABEL: func.func private @total_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[DSIN:.*]] = arith.mulf %[[T]], %{{.*}} : tensor<3xf64>
// CHECK: "tad.psum"(%{{.*}}) {processes = 2 : i64}
// CHECK: %[[DSUM:.*]] = "tad.psum"(%[[DSIN]]) {processes = 2 : i64} : (tensor<3xf64>) -> tensor<3xf64>
// CHECK: "tad.reduce_sum"(%[[DSUM]])
func.func @total(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = math.sin %x : tensor<3xf64>
  %1 = "tad.psum"(%0) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  %2 = "tad.reduce_sum"(%1) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %2 : tensor<f64>
}
func.func private @total_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @total, wrt = array<i64: 0>}}
func.func private @total_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @total, wrt = array<i64: 0>}}

// -----

// all_gather's transpose is reduce_scatter; with a batch prefix of 4 the
// process dim is moved in front of it first.
// CHECK-LABEL: func.func private @gather_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<4x2x3xf64>)
// CHECK: %[[G:.*]] = "tad.all_gather"(%[[X]]) {processes = 2 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[CT_T:.*]] = "tad.transpose"(%[[CT]]) {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf64>) -> tensor<2x4x3xf64>
// CHECK-NEXT: %[[DX:.*]] = "tad.reduce_scatter"(%[[CT_T]]) {processes = 2 : i64} : (tensor<2x4x3xf64>) -> tensor<4x3xf64>
// CHECK-NEXT: return %[[G]], %[[DX]]

// CHECK-LABEL: func.func private @gather_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[DG:.*]] = "tad.all_gather"(%[[T]]) {processes = 2 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: return %{{.*}}, %[[DG]]
func.func @gather(%x: tensor<3xf64>) -> tensor<2x3xf64> {
  %0 = "tad.all_gather"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
func.func private @gather_vjp(tensor<3xf64>, tensor<4x2x3xf64>) -> (tensor<2x3xf64>, tensor<4x3xf64>)
    attributes {tad.vjp = {of = @gather, wrt = array<i64: 0>}}
func.func private @gather_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>)
    attributes {tad.jvp = {of = @gather, wrt = array<i64: 0>}}

// -----

// reduce_scatter's transpose is all_gather (batched: the process dim goes after the prefix).
// CHECK-LABEL: func.func private @scatter_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[DX:.*]] = "tad.all_gather"(%[[CT]]) {processes = 2 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: return %{{.*}}, %[[DX]]

// CHECK-LABEL: func.func private @scatter_batched_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5x3xf64>)
// CHECK: %[[G:.*]] = "tad.all_gather"(%[[CT]]) {processes = 2 : i64} : (tensor<5x3xf64>) -> tensor<2x5x3xf64>
// CHECK-NEXT: %[[DX:.*]] = "tad.transpose"(%[[G]]) {permutation = array<i64: 1, 0, 2>} : (tensor<2x5x3xf64>) -> tensor<5x2x3xf64>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @scatter(%x: tensor<2x3xf64>) -> tensor<3xf64> {
  %0 = "tad.reduce_scatter"(%x) {processes = 2} : (tensor<2x3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @scatter_vjp(tensor<2x3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<2x3xf64>)
    attributes {tad.vjp = {of = @scatter, wrt = array<i64: 0>}}
func.func private @scatter_batched_vjp(tensor<2x3xf64>, tensor<5x3xf64>) -> (tensor<3xf64>, tensor<5x2x3xf64>)
    attributes {tad.vjp = {of = @scatter, wrt = array<i64: 0>}}

// -----

// pvary is the identity forward; backward it adds the cotangents of every process.
// CHECK-LABEL: func.func private @replicated_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf32>)
// CHECK: %[[V:.*]] = "tad.pvary"(%[[X]]) {processes = 2 : i64}
// CHECK: %[[LOCAL:.*]] = arith.mulf %[[CT]], %{{.*}} : tensor<3xf32>
// CHECK-NEXT: %[[DX:.*]] = "tad.psum"(%[[LOCAL]]) {processes = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]

// CHECK-LABEL: func.func private @replicated_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf32>, %[[T:[a-zA-Z0-9_]+]]: tensor<3xf32>)
// CHECK-DAG: "tad.pvary"(%[[X]]) {processes = 2 : i64}
// CHECK-DAG: %[[DV:.*]] = "tad.pvary"(%[[T]]) {processes = 2 : i64}
// CHECK-NOT: "tad.psum"
// CHECK: arith.mulf %[[DV]], %{{.*}} : tensor<3xf32>
func.func @replicated(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tad.pvary"(%x) {processes = 2} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = math.sin %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}
func.func private @replicated_vjp(tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    attributes {tad.vjp = {of = @replicated, wrt = array<i64: 0>}}
func.func private @replicated_jvp(tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    attributes {tad.jvp = {of = @replicated, wrt = array<i64: 0>}}

// -----

// pmax sends its derivative to the process(es) holding the maximum, split
// evenly among ties: the weights are where x equals the result, divided by
// how many processes hold it (a psum). Forward: the psum of the weighted
// tangent; reverse: the (replicated) cotangent through pvary, times the weights.
// CHECK-LABEL: func.func private @top_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[M:.*]] = "tad.pmax"(%[[X]]) {processes = 2 : i64}
// CHECK: %[[CT_V:.*]] = "tad.pvary"(%[[CT]]) {processes = 2 : i64}
// CHECK: %[[HIT:.*]] = arith.cmpf oeq, %[[X]], %[[M]] : tensor<3xf64>
// CHECK: %[[ONE:.*]] = "tad.convert"(%[[HIT]]) : (tensor<3xi1>) -> tensor<3xf64>
// CHECK: %[[TIES:.*]] = "tad.psum"(%[[ONE]]) {processes = 2 : i64}
// CHECK: %[[W:.*]] = arith.divf %[[ONE]], %[[TIES]]
// CHECK: %[[DX:.*]] = arith.mulf %[[CT_V]], %[[W]]
// CHECK: return %[[M]], %[[DX]]

// CHECK-LABEL: func.func private @top_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[M:.*]] = "tad.pmax"(%[[X]])
// CHECK: %[[HIT:.*]] = arith.cmpf oeq, %[[X]], %[[M]]
// CHECK: %[[W:.*]] = arith.divf
// CHECK: %[[WT:.*]] = arith.mulf %[[T]], %[[W]]
// CHECK: %[[DY:.*]] = "tad.psum"(%[[WT]]) {processes = 2 : i64}
// CHECK: return %[[M]], %[[DY]]
func.func @top(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.pmax"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @top_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @top, wrt = array<i64: 0>}}
func.func private @top_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @top, wrt = array<i64: 0>}}

// -----

// pmin, with a batch prefix of 4 on the cotangent (a jacobian): the weights
// broadcast over it.
// CHECK-LABEL: func.func private @bottom_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<4x3xf32>)
// CHECK: %[[M:.*]] = "tad.pmin"(%[[X]]) {processes = 2 : i64}
// CHECK: %[[CT_V:.*]] = "tad.pvary"(%[[CT]]) {processes = 2 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[W:.*]] = arith.divf %{{.*}} : tensor<3xf32>
// CHECK: %[[WB:.*]] = "tad.broadcast_in_dim"(%[[W]]) {{.*}} : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: %[[DX:.*]] = arith.mulf %[[CT_V]], %[[WB]] : tensor<4x3xf32>
// CHECK: return %[[M]], %[[DX]]
func.func @bottom(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tad.pmin"(%x) {processes = 2} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @bottom_vjp(tensor<3xf32>, tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>)
    attributes {tad.vjp = {of = @bottom, wrt = array<i64: 0>}}
