// tad-partition: a one-process program whose values are marked tad.shard
// (split along `dim` over `processes` processes, this one holding block
// `process`) becomes the program one process computes with its blocks.
// A replicated value goes through tad.pvary before a block of it is sliced
// (its cotangent adds up over processes); a sharded contracting dim of
// tad.dot_general gives local partial products added with tad.psum; a free
// dim keeps the result split; a value needed whole (a return, an op without
// a rule) is the psum of the zero-padded blocks.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-partition | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-partition=combine=reduce-scatter | FileCheck %s --check-prefix=SCATTER

// Megatron's MLP: w1 split by columns, b1 with it, w2 by rows (process 1 of 2).
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<5x6xf64>, %[[W1:.*]]: tensor<6x8xf64>, %[[B1:.*]]: tensor<8xf64>, %[[W2:.*]]: tensor<8x3xf64>)
// CHECK: %[[W1V:.*]] = "tad.pvary"(%[[W1]]) {processes = 2 : i64}
// CHECK-NEXT: %[[W1B:.*]] = "tad.slice"(%[[W1V]]) {limit_indices = array<i64: 6, 8>, start_indices = array<i64: 0, 4>, strides = array<i64: 1, 1>} : (tensor<6x8xf64>) -> tensor<6x4xf64>
// CHECK: %[[B1B:.*]] = "tad.slice"(%{{.*}}) {limit_indices = array<i64: 8>, start_indices = array<i64: 4>, strides = array<i64: 1>} : (tensor<8xf64>) -> tensor<4xf64>
// CHECK: %[[W2B:.*]] = "tad.slice"(%{{.*}}) {limit_indices = array<i64: 8, 3>, start_indices = array<i64: 4, 0>, strides = array<i64: 1, 1>} : (tensor<8x3xf64>) -> tensor<4x3xf64>
// CHECK: %[[XV:.*]] = "tad.pvary"(%[[X]]) {processes = 2 : i64} : (tensor<5x6xf64>) -> tensor<5x6xf64>
// CHECK-NEXT: %[[A:.*]] = "tad.dot_general"(%[[XV]], %[[W1B]]) {{.*}} : (tensor<5x6xf64>, tensor<6x4xf64>) -> tensor<5x4xf64>
// CHECK-NEXT: %[[BB:.*]] = "tad.broadcast_in_dim"(%[[B1B]]) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf64>) -> tensor<5x4xf64>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[BB]] : tensor<5x4xf64>
// CHECK-NEXT: %[[H:.*]] = math.tanh %[[S]] : tensor<5x4xf64>
// CHECK-NEXT: %[[P:.*]] = "tad.dot_general"(%[[H]], %[[W2B]]) {{.*}} : (tensor<5x4xf64>, tensor<4x3xf64>) -> tensor<5x3xf64>
// CHECK-NEXT: %[[O:.*]] = "tad.psum"(%[[P]]) {processes = 2 : i64} : (tensor<5x3xf64>) -> tensor<5x3xf64>
// CHECK-NEXT: return %[[O]]
// No dim of the 5x3 partial sum splits over 2 processes: reduce-scatter falls back to psum.
// SCATTER-LABEL: func.func @mlp
// SCATTER: "tad.psum"(%{{.*}}) {processes = 2 : i64} : (tensor<5x3xf64>) -> tensor<5x3xf64>
func.func @mlp(%x: tensor<5x6xf64>, %w1: tensor<6x8xf64>, %b1: tensor<8xf64>, %w2: tensor<8x3xf64>) -> tensor<5x3xf64> {
  %w1s = "tad.shard"(%w1) {dim = 1, process = 1, processes = 2} : (tensor<6x8xf64>) -> tensor<6x8xf64>
  %b1s = "tad.shard"(%b1) {dim = 0, process = 1, processes = 2} : (tensor<8xf64>) -> tensor<8xf64>
  %w2s = "tad.shard"(%w2) {dim = 0, process = 1, processes = 2} : (tensor<8x3xf64>) -> tensor<8x3xf64>
  %a = "tad.dot_general"(%x, %w1s) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<5x6xf64>, tensor<6x8xf64>) -> tensor<5x8xf64>
  %bb = "tad.broadcast_in_dim"(%b1s) {broadcast_dimensions = array<i64: 1>} : (tensor<8xf64>) -> tensor<5x8xf64>
  %s = arith.addf %a, %bb : tensor<5x8xf64>
  %h = math.tanh %s : tensor<5x8xf64>
  %o = "tad.dot_general"(%h, %w2s) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<5x8xf64>, tensor<8x3xf64>) -> tensor<5x3xf64>
  return %o : tensor<5x3xf64>
}

// -----

// A sharded contracting dim on one side only: the other operand's block along
// its partner dim. With combine=reduce-scatter, each process keeps its rows
// of the sum (the 4 rows split), the exp runs on them, and the return gathers.
// CHECK-LABEL: func.func @contract
// CHECK: %[[XB:.*]] = "tad.slice"(%{{.*}}) {{.*}} : (tensor<4x6xf32>) -> tensor<4x3xf32>
// CHECK: %[[WV:.*]] = "tad.pvary"(%{{.*}}) {processes = 2 : i64} : (tensor<6x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[WB:.*]] = "tad.slice"(%[[WV]]) {limit_indices = array<i64: 3, 3>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NEXT: %[[P:.*]] = "tad.dot_general"(%[[XB]], %[[WB]]) {{.*}} -> tensor<4x3xf32>
// CHECK-NEXT: %[[S:.*]] = "tad.psum"(%[[P]])
// CHECK-NEXT: math.exp %[[S]] : tensor<4x3xf32>
// SCATTER-LABEL: func.func @contract
// SCATTER: %[[P:.*]] = "tad.dot_general"{{.*}} -> tensor<4x3xf32>
// SCATTER-NEXT: %[[R:.*]] = "tad.reshape"(%[[P]]) : (tensor<4x3xf32>) -> tensor<2x2x3xf32>
// SCATTER-NEXT: %[[MINE:.*]] = "tad.reduce_scatter"(%[[R]]) {processes = 2 : i64} : (tensor<2x2x3xf32>) -> tensor<2x3xf32>
// SCATTER-NEXT: %[[E:.*]] = math.exp %[[MINE]] : tensor<2x3xf32>
// SCATTER: %[[PAD:.*]] = "tad.pad"(%[[E]], %{{.*}}) {edge_padding_high = array<i64: 2, 0>, edge_padding_low = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x3xf32>
// SCATTER-NEXT: %[[WHOLE:.*]] = "tad.psum"(%[[PAD]])
// SCATTER-NEXT: return %[[WHOLE]]
func.func @contract(%x: tensor<4x6xf32>, %w: tensor<6x3xf32>) -> tensor<4x3xf32> {
  %xs = "tad.shard"(%x) {dim = 1, process = 0, processes = 2} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %o = "tad.dot_general"(%xs, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
  %e = math.exp %o : tensor<4x3xf32>
  return %e : tensor<4x3xf32>
}

// -----

// Rows of the batch split (a free dim of the lhs): the weights whole through
// pvary, the product split by rows, transposed (the split dim moves), and the
// sum over the split dim added over processes. tad.reverse has no rule: it
// gets its operand whole (process 1 holds rows 2 and 3: padding 2 below).
// CHECK-LABEL: func.func @batch
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf64>, %[[W:.*]]: tensor<6x3xf64>)
// CHECK: %[[XB:.*]] = "tad.slice"(%{{.*}}) {limit_indices = array<i64: 4, 6>, start_indices = array<i64: 2, 0>, strides = array<i64: 1, 1>}
// CHECK: %[[WV:.*]] = "tad.pvary"(%[[W]])
// CHECK-NEXT: %[[Y:.*]] = "tad.dot_general"(%[[XB]], %[[WV]]) {{.*}} -> tensor<2x3xf64>
// CHECK-NEXT: %[[T:.*]] = "tad.transpose"(%[[Y]]) {permutation = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK-NEXT: %[[PART:.*]] = "tad.reduce_sum"(%[[T]]) {dimensions = array<i64: 1>} : (tensor<3x2xf64>) -> tensor<3xf64>
// CHECK-NEXT: %[[SUM:.*]] = "tad.psum"(%[[PART]])
// CHECK: %[[PAD:.*]] = "tad.pad"(%[[Y]], %{{.*}}) {edge_padding_high = array<i64: 0, 0>, edge_padding_low = array<i64: 2, 0>, interior_padding = array<i64: 0, 0>}
// CHECK-NEXT: %[[WHOLE:.*]] = "tad.psum"(%[[PAD]]) {processes = 2 : i64} : (tensor<4x3xf64>) -> tensor<4x3xf64>
// CHECK-NEXT: %[[R:.*]] = "tad.reverse"(%[[WHOLE]])
// CHECK-NEXT: return %[[SUM]], %[[R]]
func.func @batch(%x: tensor<4x6xf64>, %w: tensor<6x3xf64>) -> (tensor<3xf64>, tensor<4x3xf64>) {
  %xs = "tad.shard"(%x) {dim = 0, process = 1, processes = 2} : (tensor<4x6xf64>) -> tensor<4x6xf64>
  %y = "tad.dot_general"(%xs, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x6xf64>, tensor<6x3xf64>) -> tensor<4x3xf64>
  %t = "tad.transpose"(%y) {permutation = array<i64: 1, 0>} : (tensor<4x3xf64>) -> tensor<3x4xf64>
  %s = "tad.reduce_sum"(%t) {dimensions = array<i64: 1>} : (tensor<3x4xf64>) -> tensor<3xf64>
  %r = "tad.reverse"(%y) {dimensions = array<i64: 0>} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return %s, %r : tensor<3xf64>, tensor<4x3xf64>
}

// -----

// Batch dims split on both sides: local batched products, the result split along its batch dim.
// CHECK-LABEL: func.func @batched
// CHECK: "tad.dot_general"(%{{.*}}, %{{.*}}) {{.*}} : (tensor<2x3x5xf64>, tensor<2x5x4xf64>) -> tensor<2x3x4xf64>
// CHECK-NOT: "tad.pvary"
// CHECK: "tad.pad"
func.func @batched(%a: tensor<4x3x5xf64>, %b: tensor<4x5x4xf64>) -> tensor<4x3x4xf64> {
  %as = "tad.shard"(%a) {dim = 0, process = 0, processes = 2} : (tensor<4x3x5xf64>) -> tensor<4x3x5xf64>
  %bs = "tad.shard"(%b) {dim = 0, process = 0, processes = 2} : (tensor<4x5x4xf64>) -> tensor<4x5x4xf64>
  %c = "tad.dot_general"(%as, %bs) {lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<4x3x5xf64>, tensor<4x5x4xf64>) -> tensor<4x3x4xf64>
  return %c : tensor<4x3x4xf64>
}

// -----

// Reshapes follow a split dim when its block stays one run of elements per
// index of the dims before it (12 columns -> 2 heads of 6: the heads split);
// else the reshape gets the whole value (12 -> 3 x 4: a block of 6 is one
// and a half rows of 4). tad.convert is elementwise.
// CHECK-LABEL: func.func @heads
// CHECK: %[[Q:.*]] = "tad.dot_general"{{.*}} -> tensor<2x6xf32>
// CHECK-NEXT: %[[H:.*]] = "tad.reshape"(%[[Q]]) : (tensor<2x6xf32>) -> tensor<2x1x6xf32>
// CHECK-NEXT: %[[F:.*]] = "tad.convert"(%[[H]]) : (tensor<2x1x6xf32>) -> tensor<2x1x6xf64>
// CHECK: %[[PAD:.*]] = "tad.pad"(%[[Q]], %{{.*}}) {edge_padding_high = array<i64: 0, 0>, edge_padding_low = array<i64: 0, 6>
// CHECK-NEXT: %[[WHOLE:.*]] = "tad.psum"(%[[PAD]]) {processes = 2 : i64} : (tensor<2x12xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: "tad.reshape"(%[[WHOLE]]) : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
func.func @heads(%x: tensor<2x8xf32>, %w: tensor<8x12xf32>) -> (tensor<2x2x6xf64>, tensor<2x3x4xf32>) {
  %ws = "tad.shard"(%w) {dim = 1, process = 1, processes = 2} : (tensor<8x12xf32>) -> tensor<8x12xf32>
  %q = "tad.dot_general"(%x, %ws) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x8xf32>, tensor<8x12xf32>) -> tensor<2x12xf32>
  %h = "tad.reshape"(%q) : (tensor<2x12xf32>) -> tensor<2x2x6xf32>
  %f = "tad.convert"(%h) : (tensor<2x2x6xf32>) -> tensor<2x2x6xf64>
  %c = "tad.reshape"(%q) : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
  return %f, %c : tensor<2x2x6xf64>, tensor<2x3x4xf32>
}

// -----

// One process holds every block: the shards are identities.
// CHECK-LABEL: func.func @alone
// CHECK-SAME: (%[[X:.*]]: tensor<4xf64>)
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : tensor<4xf64>
// CHECK-NEXT: return %[[E]]
func.func @alone(%x: tensor<4xf64>) -> tensor<4xf64> {
  %xs = "tad.shard"(%x) {dim = 0, process = 0, processes = 1} : (tensor<4xf64>) -> tensor<4xf64>
  %e = math.exp %xs : tensor<4xf64>
  return %e : tensor<4xf64>
}

// -----

func.func @two_meshes(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  // expected-error @+1 {{'tad.shard' op: the shards of one module name different processes or numbers of processes}}
  %a = "tad.shard"(%x) {dim = 0, process = 0, processes = 2} : (tensor<4xf64>) -> tensor<4xf64>
  %b = "tad.shard"(%x) {dim = 0, process = 1, processes = 2} : (tensor<4xf64>) -> tensor<4xf64>
  return %a, %b : tensor<4xf64>, tensor<4xf64>
}

// -----

// Collectives move f32, f64, i32 and i64 only: a float16 value cannot go through pvary.
func.func @half(%x: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{'tad.shard' op cannot be partitioned: 'tad.pvary' collectives take f32, f64, i32, i64 elements, got f16}}
  %xs = "tad.shard"(%x) {dim = 0, process = 0, processes = 2} : (tensor<4xf16>) -> tensor<4xf16>
  return %xs : tensor<4xf16>
}
