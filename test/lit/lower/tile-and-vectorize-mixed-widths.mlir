// An op that reads float32 and writes bytes (a relu mask) is tiled by the
// registers of its widest element type: 4 x 16 lanes of float32 on AVX-512,
// not 4 x 64 lanes of bytes (a 256-lane float32 vector would take 16
// registers and make instruction selection split it).
// RUN: autodiff-opt %s '--tad-tile-and-vectorize=vector-bits=512' | FileCheck %s '--implicit-check-not=vector<256'

// CHECK-LABEL: func.func @mask
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<64xf32>
// CHECK: arith.cmpf ogt, {{.*}} : vector<64xf32>
// CHECK: vector.transfer_write {{.*}} : vector<64xi8>, tensor<1x64xi8>
func.func @mask(%x: tensor<8x512xf32>) -> tensor<8x512xi8> {
  %e = tensor.empty() : tensor<8x512xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e : tensor<8x512xi8>) {
  ^bb0(%a: f32, %o: i8):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    %b = arith.extui %c : i1 to i8
    linalg.yield %b : i8
  } -> tensor<8x512xi8>
  return %r : tensor<8x512xi8>
}
