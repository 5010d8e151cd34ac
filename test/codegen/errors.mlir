// RUN: split-file %s %t
// RUN: not dlc compile %t/int-matmul.mlir -o %t/a.dlcpkg 2>&1 | FileCheck %s --check-prefix=INT
// RUN: not dlc compile %t/acc-f16.mlir -o %t/b.dlcpkg 2>&1 | FileCheck %s --check-prefix=ACC
// RUN: not dlc compile %t/float-and.mlir --emit=cuda 2>&1 | FileCheck %s --check-prefix=AND
// Code generation reports what it cannot do at the op's location.

// INT: int-matmul.mlir:2:8: error: 'dlc.matmul' op multiplies 'i32' matrices; GEMMs support f32, f16 and bf16
// ACC: acc-f16.mlir:2:8: error: 'dlc.matmul' op asks for accumulation in 'f16'; GEMMs accumulate in f32
// AND: float-and.mlir:2:8: error: 'dlc.and' op is not defined on floating-point tensors (it needs i1 or integer operands)

//--- int-matmul.mlir
func.func @main(%a: tensor<4x8xi32>, %b: tensor<8x2xi32>) -> tensor<4x2xi32> {
  %0 = dlc.matmul %a, %b : (tensor<4x8xi32>, tensor<8x2xi32>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

//--- acc-f16.mlir
func.func @main(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) -> tensor<4x2xf16> {
  %0 = dlc.matmul %a, %b {acc_type = f16} : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf16>
  return %0 : tensor<4x2xf16>
}

//--- float-and.mlir
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dlc.and %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
