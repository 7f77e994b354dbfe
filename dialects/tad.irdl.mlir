// GENERATED from the op records in tensorad/dialects/families/ by
// `python -m tensorad.dialects.irdl_file`: edit the records, not this file
// (test/python/test_dialect_records.py checks that it is up to date).
//
// The tad dialect: tensor ops that upstream arith/math/tensor/scf/func do not
// provide at this level. Static shapes; shape rules IRDL cannot state are checked
// by the tad-verify pass (the shape rules of the records).
// Each operand and result has its own constraint variable: an IRDL variable binds one type.
irdl.dialect @tad {
  // ---- elementwise ----
  // Elementwise logistic sigmoid 1 / (1 + exp(-x)) of floats, accurate in both tails.
  irdl.operation @logistic {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // ---- structure ----
  // Broadcasts `operand` into the result shape; operand dim i maps to result dim broadcast_dimensions[i] (size 1 or equal).
  irdl.operation @broadcast_in_dim {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"broadcast_dimensions" = %2}
  }
  // Row-major reshape to the result type's shape (same element count).
  irdl.operation @reshape {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // result dim i = operand dim permutation[i].
  irdl.operation @transpose {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"permutation" = %2}
  }
  // Strided slice [start, limit) with positive strides.
  irdl.operation @slice {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"start_indices" = %2, "limit_indices" = %3, "strides" = %4}
  }
  // Pads with a rank-0 `padding_value`; non-negative low, high and interior padding.
  irdl.operation @pad {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0, padding_value: %1)
    irdl.results(result: %2)
    irdl.attributes {"edge_padding_low" = %3, "edge_padding_high" = %4, "interior_padding" = %5}
  }
  // result[i...] = index along `iota_dimension`.
  irdl.operation @iota {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "#builtin.integer"
    irdl.results(result: %0)
    irdl.attributes {"iota_dimension" = %1}
  }
  // A tensor filled with one scalar `value` (lowers to a fill, never to a stored global).
  irdl.operation @constant {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.any
    irdl.results(result: %0)
    irdl.attributes {"value" = %1}
  }
  // Elementwise conversion to the result element type (numpy `astype` semantics).
  irdl.operation @convert {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // ---- contraction ----
  // Contraction; result dims are batch dims, then lhs free dims, then rhs free dims.
  irdl.operation @dot_general {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    %6 = irdl.base "#builtin.dense_array"
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(result: %2)
    irdl.attributes {"lhs_batching_dimensions" = %3, "rhs_batching_dimensions" = %4, "lhs_contracting_dimensions" = %5, "rhs_contracting_dimensions" = %6}
  }
  // ---- reductions ----
  // Sum over `dimensions` (removed from the result).
  irdl.operation @reduce_sum {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"dimensions" = %2}
  }
  // Maximum over `dimensions` (removed from the result).
  irdl.operation @reduce_max {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"dimensions" = %2}
  }
  // Minimum over `dimensions` (removed from the result).
  irdl.operation @reduce_min {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"dimensions" = %2}
  }
  // Index (i64) of the first maximum along `axis` (removed from the result).
  irdl.operation @argmax {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"axis" = %2}
  }
  // ---- markers ----
  // Identity whose derivative is zero.
  irdl.operation @stop_gradient {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // Identity marking the start of a region recomputed in the backward pass.
  irdl.operation @start_checkpoint {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // Identity marking the end of a region recomputed in the backward pass.
  irdl.operation @end_checkpoint {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // ---- convolution ----
  // 2-D convolution, data NCHW, weight OIHW (O, C/groups, KH, KW); padding = (top, left, bottom, right).
  irdl.operation @conv2d {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    %6 = irdl.base "#builtin.integer"
    irdl.operands(data: %0, weight: %1)
    irdl.results(result: %2)
    irdl.attributes {"strides" = %3, "padding" = %4, "dilation" = %5, "groups" = %6}
  }
  // Gradient of conv2d with respect to its data (result: the data's shape).
  irdl.operation @conv2d_backward_data {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    %6 = irdl.base "#builtin.integer"
    irdl.operands(output_grad: %0, weight: %1)
    irdl.results(result: %2)
    irdl.attributes {"strides" = %3, "padding" = %4, "dilation" = %5, "groups" = %6}
  }
  // Gradient of conv2d with respect to its weight (result: the weight's shape).
  irdl.operation @conv2d_backward_filter {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    %6 = irdl.base "#builtin.integer"
    irdl.operands(output_grad: %0, data: %1)
    irdl.results(result: %2)
    irdl.attributes {"strides" = %3, "padding" = %4, "dilation" = %5, "groups" = %6}
  }
  // ---- pooling ----
  // Max pooling over NCHW windows; padding counts as -inf.
  irdl.operation @max_pool2d {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    %6 = irdl.base "#builtin.integer"
    irdl.operands(data: %0)
    irdl.results(result: %1)
    irdl.attributes {"pool_size" = %2, "strides" = %3, "padding" = %4, "dilation" = %5, "ceil_mode" = %6}
  }
  // Average pooling over NCHW windows.
  irdl.operation @avg_pool2d {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    %6 = irdl.base "#builtin.integer"
    %7 = irdl.base "#builtin.integer"
    irdl.operands(data: %0)
    irdl.results(result: %1)
    irdl.attributes {"pool_size" = %2, "strides" = %3, "padding" = %4, "dilation" = %5, "ceil_mode" = %6, "count_include_pad" = %7}
  }
  // Routes each output gradient to the first maximum of its window (result: the data's shape).
  irdl.operation @max_pool2d_backward {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    %6 = irdl.base "#builtin.dense_array"
    %7 = irdl.base "#builtin.integer"
    irdl.operands(output_grad: %0, data: %1)
    irdl.results(result: %2)
    irdl.attributes {"pool_size" = %3, "strides" = %4, "padding" = %5, "dilation" = %6, "ceil_mode" = %7}
  }
  // Spreads each output gradient evenly over its window (result: the data's shape).
  irdl.operation @avg_pool2d_backward {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.dense_array"
    %4 = irdl.base "#builtin.dense_array"
    %5 = irdl.base "#builtin.dense_array"
    %6 = irdl.base "#builtin.dense_array"
    %7 = irdl.base "#builtin.integer"
    %8 = irdl.base "#builtin.integer"
    irdl.operands(output_grad: %0, data: %1)
    irdl.results(result: %2)
    irdl.attributes {"pool_size" = %3, "strides" = %4, "padding" = %5, "dilation" = %6, "ceil_mode" = %7, "count_include_pad" = %8}
  }
  // ---- indexing ----
  // Gathers along axis: result shape data[:axis] + indices + data[axis+1:]; integer indices, clamped.
  irdl.operation @take {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(data: %0, indices: %1)
    irdl.results(result: %2)
    irdl.attributes {"axis" = %3}
  }
  // Scatter-add of output_grad into zeros of the declared result shape (repeated indices add up).
  irdl.operation @take_backward {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(output_grad: %0, indices: %1)
    irdl.results(result: %2)
    irdl.attributes {"axis" = %3}
  }
  // ---- loss ----
  // Negative log-likelihood of log-probabilities (N, C) or (C) at integer targets, per-class weights; reduction mean, sum or none.
  irdl.operation @nll_loss {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "!builtin.tensor"
    %4 = irdl.base "#builtin.string"
    %5 = irdl.base "#builtin.integer"
    irdl.operands(predictions: %0, targets: %1, weights: %2)
    irdl.results(result: %3)
    irdl.attributes {"reduction" = %4, "ignore_index" = %5}
  }
  // Gradient of nll_loss with respect to its predictions (result: the predictions' shape).
  irdl.operation @nll_loss_backward {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "!builtin.tensor"
    %4 = irdl.base "!builtin.tensor"
    %5 = irdl.base "#builtin.string"
    %6 = irdl.base "#builtin.integer"
    irdl.operands(output_grad: %0, predictions: %1, targets: %2, weights: %3)
    irdl.results(result: %4)
    irdl.attributes {"reduction" = %5, "ignore_index" = %6}
  }
}
