// Derivatives through complex tensors follow JAX's conventions: a cotangent w
// of z pairs with dz as Re(w dz), so tad.real transposes ct to ct + 0i,
// tad.imag to -ct i, and tad.complex w to (re w, -im w). The gradient of a real
// function of z = x + iy comes out as df/dx - i df/dy; tad-simplify folds
// real(complex(a, b)) to a, so the parts are summed without round trips.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// f = re(z) * im(z): df/dx - i df/dy = ct im - i ct re.
// CHECK-LABEL: func.func private @parts_vjp
// CHECK-SAME: (%[[Z:.*]]: tensor<3xcomplex<f64>>, %[[CT:.*]]: tensor<3xf64>)
// CHECK-DAG: %[[RE:.*]] = "tad.real"(%[[Z]])
// CHECK-DAG: %[[IM:.*]] = "tad.imag"(%[[Z]])
// CHECK-DAG: %[[DX:.*]] = arith.mulf %[[CT]], %[[IM]]
// CHECK-DAG: %[[DY:.*]] = arith.mulf %[[CT]], %[[RE]]
// CHECK: %[[NEG:.*]] = arith.negf %[[DY]]
// CHECK: %[[GRAD:.*]] = "tad.complex"(%[[DX]], %[[NEG]])
// CHECK: return %{{.*}}, %[[GRAD]]
func.func @parts(%z: tensor<3xcomplex<f64>>) -> tensor<3xf64> {
  %0 = "tad.real"(%z) : (tensor<3xcomplex<f64>>) -> tensor<3xf64>
  %1 = "tad.imag"(%z) : (tensor<3xcomplex<f64>>) -> tensor<3xf64>
  %2 = arith.mulf %0, %1 : tensor<3xf64>
  return %2 : tensor<3xf64>
}
func.func private @parts_vjp(tensor<3xcomplex<f64>>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xcomplex<f64>>)
    attributes {tad.vjp = {of = @parts, wrt = array<i64: 0>}}

// -----

// The transpose of complex(x, y): (re ct, -im ct); its tangent: complex(tx, ty), zeros for a constant part.
// CHECK-LABEL: func.func private @make_vjp
// CHECK-SAME: (%{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>, %[[CT:.*]]: tensor<3xcomplex<f32>>)
// CHECK: %[[RE:.*]] = "tad.real"(%[[CT]])
// CHECK: %[[IM:.*]] = "tad.imag"(%[[CT]])
// CHECK: %[[NEG:.*]] = arith.negf %[[IM]]
// CHECK: return %{{.*}}, %[[RE]], %[[NEG]]
// CHECK-LABEL: func.func private @make_jvp
// CHECK-SAME: (%{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>, %[[T:.*]]: tensor<3xf32>)
// CHECK: %[[ZERO:.*]] = "tad.constant"() {value = 0.000000e+00 : f32}
// CHECK: %[[TANGENT:.*]] = "tad.complex"(%[[ZERO]], %[[T]])
// CHECK: return %{{.*}}, %[[TANGENT]]
func.func @make(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xcomplex<f32>> {
  %0 = "tad.complex"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}
func.func private @make_vjp(tensor<3xf32>, tensor<3xf32>, tensor<3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3xf32>, tensor<3xf32>)
    attributes {tad.vjp = {of = @make, wrt = array<i64: 0, 1>}}
func.func private @make_jvp(tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>)
    attributes {tad.jvp = {of = @make, wrt = array<i64: 1>}}
