// RUN: split-file %s %t
// RUN: not dlc compile %t/int-matmul.mlir -o %t/a.dlcpkg 2>&1 | FileCheck %s --check-prefix=INT
// RUN: not dlc compile %t/acc-f16.mlir -o %t/b.dlcpkg 2>&1 | FileCheck %s --check-prefix=ACC
// RUN: not dlc compile %t/float-and.mlir --emit=cuda 2>&1 | FileCheck %s --check-prefix=AND
// RUN: not dlc compile %t/gemm-size.mlir --no-cubin -o %t/c.dlcpkg 2>&1 | FileCheck %s --check-prefix=GEMM-SIZE
// RUN: not dlc compile %t/gemm-calls.mlir --no-cubin -o %t/d.dlcpkg 2>&1 | FileCheck %s --check-prefix=GEMM-CALLS
// RUN: not dlc compile %t/conv-size.mlir --no-cubin -o %t/e.dlcpkg 2>&1 | FileCheck %s --check-prefix=CONV-SIZE
// Code generation reports what it cannot do at the op's location.

// INT: int-matmul.mlir:2:8: error: 'dlc.matmul' op multiplies 'i32' matrices; GEMMs support f32, f16 and bf16
// ACC: acc-f16.mlir:2:8: error: 'dlc.matmul' op asks for accumulation in 'f16'; GEMMs accumulate in f32
// AND: float-and.mlir:2:8: error: 'dlc.and' op is not defined on floating-point tensors (it needs i1 or integer operands)
// GEMM-SIZE: gemm-size.mlir:2:8: error: 'dlc.matmul' op needs a GEMM of m=4294967296 n=2 k=8 batch=1; cuBLAS sizes and batch counts must be below 2^31
// CONV-SIZE: conv-size.mlir:2:8: error: 'dlc.conv' op has a dimension of 4294967296; library convolutions take sizes below 2^31
// GEMM-CALLS: gemm-calls.mlir:2:8: error: 'dlc.matmul' op needs 70000 GEMM calls (its operands broadcast over different batch dimensions); at most 65536 are supported

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

//--- gemm-size.mlir
func.func @main(%a: tensor<4294967296x8xf32>, %b: tensor<8x2xf32>) -> tensor<4294967296x2xf32> {
  %0 = dlc.matmul %a, %b : (tensor<4294967296x8xf32>, tensor<8x2xf32>) -> tensor<4294967296x2xf32>
  return %0 : tensor<4294967296x2xf32>
}

//--- gemm-calls.mlir
func.func @main(%a: tensor<70000x1x4x8xf32>, %b: tensor<1x2x8x2xf32>) -> tensor<70000x2x4x2xf32> {
  %0 = dlc.matmul %a, %b : (tensor<70000x1x4x8xf32>, tensor<1x2x8x2xf32>) -> tensor<70000x2x4x2xf32>
  return %0 : tensor<70000x2x4x2xf32>
}

//--- conv-size.mlir
func.func @main(%x: tensor<1x1x4294967296x1xf32>, %w: tensor<1x1x2x1xf32>) -> tensor<1x1x4294967295x1xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x1x4294967296x1xf32>, tensor<1x1x2x1xf32>) -> tensor<1x1x4294967295x1xf32>
  return %0 : tensor<1x1x4294967295x1xf32>
}
