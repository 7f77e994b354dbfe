// tad-batch refuses malformed declarations at their location.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-batch

func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
// expected-error @+1 {{in_axes has 2 entries, but @f has 1 inputs}}
func.func private @f_vmap(tensor<2x3xf64>) -> tensor<2x3xf64>
    attributes {tad.vmap = {of = @f, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>}}

// -----

func.func @g(%x: tensor<3xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
// expected-error @+1 {{but the vmap of @g with in_axes [0] and out_axes [0] has type (tensor<2x3xf64>) -> tensor<2x3xf64>}}
func.func private @g_vmap(tensor<2x3xf64>) -> tensor<3x2xf64>
    attributes {tad.vmap = {of = @g, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

func.func @h(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{result 0 depends on a mapped input, but its out_axes entry is -1}}
  return %x : tensor<3xf64>
}
func.func private @h_vmap(tensor<2x3xf64>) -> tensor<3xf64>
    attributes {tad.vmap = {of = @h, in_axes = array<i64: 0>, out_axes = array<i64: -1>}}

// -----

// A function with a custom derivative rule is batched with its results mapped on axis 0 only.
func.func @double(%x: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_jvp = @double_rule} {
  %0 = arith.addf %x, %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @double_rule(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %0 = arith.addf %x, %x : tensor<3xf64>
  %1 = arith.addf %t, %t : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
// expected-error @+1 {{vmap of @double, which has a custom derivative rule, needs out_axes 0 for every result}}
func.func private @double_vmap(tensor<4x3xf64>) -> tensor<3x4xf64>
    attributes {tad.vmap = {of = @double, in_axes = array<i64: 0>, out_axes = array<i64: 1>}}
