// bf16 ops are computed in f32 and rounded to bf16 on the bits, and bf16 bits
// move as i16: x86's conversion instruction, which LLVM would pick, flushes
// subnormal results to zero, and LLVM's x86 backend aborts on some bf16
// vectors (a vector<17xbf16> maximum: "Do not know how to soft promote").
// RUN: autodiff-opt %s --split-input-file --tad-round-bf16-on-bits | FileCheck %s

// An op on vectors: its operands widened exactly (their bits are the high
// half of an f32), the f32 sum rounded to nearest even (add 0x7FFF plus the
// lowest kept bit, keep the high half), a NaN made bf16's quiet NaN.
// CHECK-LABEL: func.func @vector_add
// CHECK-SAME: (%[[X:.*]]: vector<8xbf16>, %[[Y:.*]]: vector<8xbf16>)
// CHECK: %[[XB:.*]] = arith.bitcast %[[X]] : vector<8xbf16> to vector<8xi16>
// CHECK: %[[XI:.*]] = arith.extui %[[XB]] : vector<8xi16> to vector<8xi32>
// CHECK: %[[XS:.*]] = arith.shli %[[XI]], %{{.*}} : vector<8xi32>
// CHECK: %[[XW:.*]] = arith.bitcast %[[XS]] : vector<8xi32> to vector<8xf32>
// CHECK: %[[YW:.*]] = arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[XW]], %[[YW]] : vector<8xf32>
// CHECK: %[[BITS:.*]] = arith.bitcast %[[SUM]] : vector<8xf32> to vector<8xi32>
// CHECK: arith.constant dense<32767> : vector<8xi32>
// CHECK: %[[HIGH:.*]] = arith.trunci %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[SUM]], %[[SUM]] : vector<8xf32>
// CHECK: %[[PICK:.*]] = arith.select %[[NAN]], %{{.*}}, %[[HIGH]] : vector<8xi1>, vector<8xi16>
// CHECK: %[[R:.*]] = arith.bitcast %[[PICK]] : vector<8xi16> to vector<8xbf16>
// CHECK: return %[[R]]
func.func @vector_add(%x: vector<8xbf16>, %y: vector<8xbf16>) -> vector<8xbf16> {
  %0 = arith.addf %x, %y : vector<8xbf16>
  return %0 : vector<8xbf16>
}

// -----

// A scalar math op keeps its attributes; a conversion from f64 goes through
// f32; an op reading a rounded value reads its i16 bits, not a bitcast of them.
// CHECK-LABEL: func.func @scalar_exp_and_conversion
// CHECK: %[[W:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: math.exp %[[W]] fastmath<afn> : f32
// CHECK: %[[ROUNDED:.*]] = arith.select %{{.*}} : i16
// CHECK: %[[F32:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.bitcast %[[F32]] : f32 to i32
// CHECK: arith.extui %[[ROUNDED]] : i16 to i32
// CHECK-NOT: arith.truncf %{{.*}} to bf16
// CHECK-NOT: arith.extf
func.func @scalar_exp_and_conversion(%x: bf16, %d: f64) -> (bf16, bf16, f32) {
  %0 = math.exp %x fastmath<afn> : bf16
  %1 = arith.truncf %d : f64 to bf16
  %2 = arith.extf %0 : bf16 to f32
  return %0, %1, %2 : bf16, bf16, f32
}

// -----

// A vector reduction is computed in f32; a comparison compares the widened
// values; a select and a broadcast move i16 bits; a bitcast and a constant
// stay as they are.
// CHECK-LABEL: func.func @reduction_and_bit_moves
// CHECK: vector.reduction <maxnumf>, %{{.*}} : vector<4xf32> into f32
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: %[[PICK:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i16
// CHECK: vector.broadcast %[[PICK]] : i16 to vector<17xi16>
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: arith.constant 1.000000e+00 : bf16
func.func @reduction_and_bit_moves(%v: vector<4xbf16>, %a: bf16, %b: bf16, %i: i16)
    -> (bf16, vector<17xbf16>, bf16, bf16) {
  %0 = vector.reduction <maxnumf>, %v : vector<4xbf16> into bf16
  %1 = arith.cmpf olt, %a, %b : bf16
  %2 = arith.select %1, %a, %b : bf16
  %3 = vector.broadcast %2 : bf16 to vector<17xbf16>
  %4 = arith.bitcast %i : i16 to bf16
  %5 = arith.constant 1.0 : bf16
  return %0, %3, %4, %5 : bf16, vector<17xbf16>, bf16, bf16
}

// -----

// Loads and stores keep their bf16 memory; nothing changes without bf16.
// CHECK-LABEL: func.func @memory_and_f32
// CHECK-NEXT: memref.load %{{.*}} : memref<4xbf16>
// CHECK-NEXT: memref.store %{{.*}} : memref<4xbf16>
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: return
func.func @memory_and_f32(%m: memref<4xbf16>, %x: f32, %i: index) -> f32 {
  %0 = memref.load %m[%i] : memref<4xbf16>
  memref.store %0, %m[%i] : memref<4xbf16>
  %1 = arith.addf %x, %x : f32
  return %1 : f32
}
