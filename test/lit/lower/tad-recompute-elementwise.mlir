// tad-recompute-elementwise clones an elementwise op read by several
// elementwise ops once per reader, when it is computed from at most one
// tensor read whole: elementwise fusion then computes it inside each reader
// instead of storing it.
// RUN: autodiff-opt %s --split-input-file --tad-recompute-elementwise | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

// tanh(x + b), read before and after a matmul: each reader gets its own copy.
// CHECK-LABEL: func.func @read_across_a_matmul
// CHECK: %[[T1:[0-9]+]] = linalg.generic {{.*}} ins(%arg0, %arg2 :
// CHECK: math.tanh
// CHECK: %[[T2:[0-9]+]] = linalg.generic {{.*}} ins(%arg0, %arg2 :
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}} ins(%[[T2]], %arg0 :
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[T1]], %[[M]] :
func.func @read_across_a_matmul(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<8x8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = math.tanh %s : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %zero = arith.constant dense<0.0> : tensor<8x8xf32>
  %m = linalg.matmul ins(%y, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %m : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// sin(x) * cos(x) reads two values made in the function, which are also
// returned: recomputed in each reader, both would live as long as the
// readers. It stays one op.
// CHECK-LABEL: func.func @two_values_made_here
// CHECK-COUNT-1: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: return
func.func @two_values_made_here(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sin %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.cos %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%s, %c : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.log %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %u, %v, %s, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// tanh(y * y) with y = exp(x), read by two ops: y * y is read by the tanh
// alone, and y by the product alone, so each is copied with it; the copies
// read x, an argument.
// CHECK-LABEL: func.func @through_a_producer_read_once
// CHECK-COUNT-2: math.exp
// CHECK-COUNT-2: arith.mulf
// CHECK-COUNT-2: math.tanh
// CHECK: return
func.func @through_a_producer_read_once(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%y, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%q : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sin %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.cos %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %u, %v : tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// sin(x), also returned: the value is stored anyway, so nothing is cloned.
// CHECK-LABEL: func.func @also_returned
// CHECK-COUNT-1: math.sin
// CHECK-NOT: math.sin
// CHECK: return
func.func @also_returned(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sin %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %c, %p : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// exp(x) read by five ops: more readers than MAX_READERS (4), it stays one; the
// fill of 0.5 they read too is left to tad-inline-splat-inputs.
// CHECK-LABEL: func.func @many_readers
// CHECK-COUNT-1: linalg.yield %cst
// CHECK-NOT: linalg.yield %cst
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
// CHECK: return
func.func @many_readers(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %h = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %half : f32
  } -> tensor<8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %h : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %h : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %h : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %h : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r4 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %h : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.maximumf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// float32(x) of a float64 x, read by two ops: recomputed, each reader would
// keep the wider x alive instead; it stays one. float64(y) of a float32 y is
// recomputed in both readers.
// CHECK-LABEL: func.func @element_widths
// CHECK-COUNT-1: arith.truncf
// CHECK-NOT: arith.truncf
// CHECK-COUNT-2: arith.extf
// CHECK: return
func.func @element_widths(%x: tensor<8xf64>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf64>, tensor<8xf64>) {
  %e = tensor.empty() : tensor<8xf32>
  %e64 = tensor.empty() : tensor<8xf64>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf64>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f64, %o: f32):
    %r = arith.truncf %a : f64 to f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<8xf32>) outs(%e64 : tensor<8xf64>) {
  ^bb0(%a: f32, %o: f64):
    %r = arith.extf %a : f32 to f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  %n0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%n : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sin %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %n1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%n : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.cos %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %w0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%w : tensor<8xf64>) outs(%e64 : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = math.sin %a : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  %w1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%w : tensor<8xf64>) outs(%e64 : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = math.cos %a : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  return %n0, %n1, %w0, %w1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf64>, tensor<8xf64>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#rows = affine_map<(i, j) -> (i)>

// A fill of 2.0 read by a row sum and by a product: fused into the sum, a
// copy would leave loop j read by nothing, so it would stay a tensor of its
// own. Nothing is cloned. exp(x), which reads x whole, is copied into both.
// CHECK-LABEL: func.func @read_by_a_reduction
// CHECK-COUNT-1: linalg.yield %cst
// CHECK-NOT: linalg.yield %cst
// CHECK-COUNT-2: math.exp
// CHECK-NOT: linalg.yield %cst
// CHECK: return
func.func @read_by_a_reduction(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = tensor.empty() : tensor<4xf32>
  %f = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %two : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%f : tensor<4x8xf32>) outs(%r : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %gs = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<4x8xf32>) outs(%r : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %gp = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %s, %p, %gs, %gp : tensor<4xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>
}
