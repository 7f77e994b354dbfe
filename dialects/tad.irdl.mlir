// The tad dialect: tensor ops that upstream arith/math/tensor/scf/func do not
// provide at this level. Static shapes; shape rules IRDL cannot state are checked
// by the tad-verify pass (tensorad/dialects/shapes.py).
// Each operand and result has its own constraint variable: an IRDL variable binds one type.
irdl.dialect @tad {
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
}
