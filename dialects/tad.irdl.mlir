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
  // Reverses the order of the elements along each of `dimensions` (numpy's flip).
  irdl.operation @reverse {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"dimensions" = %2}
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
  // ---- scatter ----
  // The operand with slab m of `updates` set/added/multiplied/min-ed/max-ed into its slab indices[m] along axis; indices outside the axis are dropped.
  irdl.operation @scatter {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "!builtin.tensor"
    %4 = irdl.base "#builtin.integer"
    %5 = irdl.base "#builtin.string"
    irdl.operands(operand: %0, indices: %1, updates: %2)
    irdl.results(result: %3)
    irdl.attributes {"axis" = %4, "kind" = %5}
  }
  // ---- sorting ----
  // Stable sorting permutation (i64) of every row along the last axis; NaN sorts as the greatest.
  irdl.operation @argsort {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"descending" = %2}
  }
  // Insertion positions (i64) of `values` in the ascending 1-D `sorted`: before equal elements, or after them with right = 1.
  irdl.operation @searchsorted {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(sorted: %0, values: %1)
    irdl.results(result: %2)
    irdl.attributes {"right" = %3}
  }
  // ---- scan ----
  // Running sum along `axis` (from the end with reverse = 1); the result has the operand's type.
  irdl.operation @cumsum {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"axis" = %2, "reverse" = %3}
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
  // ---- linalg_lapack ----
  // Lower Cholesky factor of symmetric positive definite matrices (reads the lower triangle).
  irdl.operation @cholesky {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // Solves op(a) x = b (left_side) or x op(a) = b for triangular a.
  irdl.operation @triangular_solve {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.integer"
    %4 = irdl.base "#builtin.integer"
    %5 = irdl.base "#builtin.integer"
    %6 = irdl.base "#builtin.integer"
    irdl.operands(a: %0, b: %1)
    irdl.results(result: %2)
    irdl.attributes {"left_side" = %3, "lower" = %4, "transpose_a" = %5, "unit_diagonal" = %6}
  }
  // Solves op(a) x = b for square a (LU with partial pivoting).
  irdl.operation @solve {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(a: %0, b: %1)
    irdl.results(result: %2)
    irdl.attributes {"transpose_a" = %3}
  }
  // LU factorization with partial pivoting: packed factors, pivots, row permutation.
  irdl.operation @lu {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(lu: %1, pivots: %2, permutation: %3)
  }
  // The row permutation that LAPACK pivots describe.
  irdl.operation @lu_pivots_to_permutation {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(pivots: %0)
    irdl.results(result: %1)
    irdl.attributes {"permutation_size" = %2}
  }
  // QR factorization (reduced, or complete with full_matrices).
  irdl.operation @qr {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(q: %1, r: %2)
    irdl.attributes {"full_matrices" = %3}
  }
  // Eigenvectors and ascending eigenvalues of symmetric matrices (reads one triangle).
  irdl.operation @eigh {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(eigenvectors: %1, eigenvalues: %2)
    irdl.attributes {"lower" = %3}
  }
  // Singular value decomposition u diag(s) vt, singular values descending.
  irdl.operation @svd {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "!builtin.tensor"
    %4 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(u: %1, s: %2, vt: %3)
    irdl.attributes {"full_matrices" = %4}
  }
  // Eigenvalues and right eigenvectors (complex, unit norm) of general square matrices.
  irdl.operation @eig {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(eigenvalues: %1, eigenvectors: %2)
  }
  // ---- fft ----
  // Discrete Fourier transform of the trailing dims (fft_type FFT, IFFT, RFFT or IRFFT).
  irdl.operation @fft {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.string"
    %3 = irdl.base "#builtin.dense_array"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"fft_type" = %2, "fft_lengths" = %3}
  }
  // ---- special ----
  // Elementwise log|gamma(x)| of floats (Lanczos approximation, reflection below 1/2).
  irdl.operation @lgamma {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // Elementwise polygamma function psi^(order)(x) of floats; order 0 is digamma.
  irdl.operation @polygamma {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"order" = %2}
  }
  // Elementwise inverse error function of floats in [-1, 1] (Giles' approximation).
  irdl.operation @erf_inv {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // Elementwise inverse of the standard normal CDF of probabilities in [0, 1].
  irdl.operation @ndtri {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // ---- complex ----
  // Elementwise complex number real + i imag of two float tensors of one shape (f32 or f64).
  irdl.operation @complex {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    irdl.operands(real: %0, imag: %1)
    irdl.results(result: %2)
  }
  // Elementwise real part of a complex tensor.
  irdl.operation @real {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // Elementwise imaginary part of a complex tensor.
  irdl.operation @imag {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
  }
  // ---- collectives ----
  // Elementwise sum of `operand` over the `processes` processes of the job; every process gets the sum.
  irdl.operation @psum {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"processes" = %2}
  }
  // Elementwise maximum of `operand` over the `processes` processes of the job; every process gets it.
  irdl.operation @pmax {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"processes" = %2}
  }
  // Elementwise minimum of `operand` over the `processes` processes of the job; every process gets it.
  irdl.operation @pmin {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"processes" = %2}
  }
  // The `operand` of every process, stacked in process order along a new leading dim of size `processes`.
  irdl.operation @all_gather {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"processes" = %2}
  }
  // Sum over processes of `operand` (leading dim of size `processes`); process r gets row r of the sum.
  irdl.operation @reduce_scatter {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"processes" = %2}
  }
  // Identity that marks its value as split along `dim` over the `processes` processes, this one holding block `process`: tad-partition computes with the blocks.
  irdl.operation @shard {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    %3 = irdl.base "#builtin.integer"
    %4 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"dim" = %2, "process" = %3, "processes" = %4}
  }
  // Identity on a value every process holds, which each process then uses its own way: its transpose is a psum.
  irdl.operation @pvary {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "#builtin.integer"
    irdl.operands(operand: %0)
    irdl.results(result: %1)
    irdl.attributes {"processes" = %2}
  }
  // ---- random_bits ----
  // Threefry-2x32 (20 rounds) of the int32 words (count1, count2) under the key (key1, key2), elementwise.
  irdl.operation @threefry2x32 {
    %0 = irdl.base "!builtin.tensor"
    %1 = irdl.base "!builtin.tensor"
    %2 = irdl.base "!builtin.tensor"
    %3 = irdl.base "!builtin.tensor"
    %4 = irdl.base "!builtin.tensor"
    %5 = irdl.base "!builtin.tensor"
    irdl.operands(key1: %0, key2: %1, count1: %2, count2: %3)
    irdl.results(bits1: %4, bits2: %5)
  }
}
