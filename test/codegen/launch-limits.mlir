// RUN: split-file %s %t
// RUN: not dlc compile %t/rows.mlir --no-cubin -o %t/a.dlcpkg 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not dlc compile %t/attention.mlir --no-cubin -o %t/b.dlcpkg 2>&1 | FileCheck %s --check-prefix=ATTENTION
// RUN: dlc compile %t/pointwise.mlir --no-cubin --emit=cuda | FileCheck %s --check-prefix=POINTWISE
// RUN: not dlc compile %t/gemm_wide.mlir --no-cubin -o %t/c.dlcpkg 2>&1 | FileCheck %s --check-prefix=GEMMWIDE
// RUN: not dlc compile %t/gemm_deep.mlir --no-cubin -o %t/d.dlcpkg 2>&1 | FileCheck %s --check-prefix=GEMMDEEP
// A launch has at most 2^31 - 1 threads (generated kernels index threads in
// int where their tensors allow it; validatePackage holds packages to it):
// a row kernel with a block per row and an attention kernel that would need
// more are refused at the op, and a pointwise kernel over more elements
// than that loops over them with a grid of 2^20 blocks.

// ROWS: rows.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}has 8388608 rows of 2048 elements, a block of 256 threads each; a launch may have at most 2^31 - 1 threads
// ATTENTION: attention.mlir:2:8: error: 'dlc.attention' op needs 16777216 thread blocks of 128 threads; a launch may have at most 2^31 - 1 threads

// A generated GEMM (a kernel holding a product, as dlc-fuse-gemm forms
// them; it forms none this large) is held to the same limit, and its main
// loop counts k in int.
// GEMMWIDE: gemm_wide.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'dlc.matmul' op needs 16777216 thread blocks of 256 threads as a generated GEMM; a launch may have at most 2^31 - 1 threads
// GEMMDEEP: gemm_deep.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'dlc.matmul' op contracts 2147483640 elements, more than a generated GEMM's main loop counts (2^31 - 17)

// POINTWISE: for (long long tid = (long long)blockIdx.x * 256 + threadIdx.x; tid < 2147483649; tid += (long long)gridDim.x * 256) {

//--- rows.mlir
func.func @main(%x: tensor<8388608x2048xf32>) -> tensor<8388608x1xf32> {
  %0 = dlc.kernel (%x) : (tensor<8388608x2048xf32>) -> tensor<8388608x1xf32> {
  ^bb0(%a: tensor<8388608x2048xf32>):
    %s = dlc.reduce sum %a {axes = array<i64: 1>} : (tensor<8388608x2048xf32>) -> tensor<8388608x1xf32>
    dlc.yield %s : tensor<8388608x1xf32>
  }
  return %0 : tensor<8388608x1xf32>
}

//--- attention.mlir
func.func @main(%q: tensor<16777216x32x1xf32>, %k: tensor<1x1x1xf32>, %v: tensor<1x1x1xf32>) -> tensor<16777216x32x1xf32> {
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<16777216x32x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<16777216x32x1xf32>
  return %0 : tensor<16777216x32x1xf32>
}

//--- pointwise.mlir
func.func @main(%x: tensor<2147483649xf32>) -> tensor<2147483649xf32> {
  %0 = dlc.exp %x : tensor<2147483649xf32>
  return %0 : tensor<2147483649xf32>
}

//--- gemm_wide.mlir
func.func @main(%x: tensor<1x1xf32>, %w: tensor<1x1073741824xf32>) -> tensor<1x1073741824xf32> {
  %0 = dlc.kernel (%x, %w) : (tensor<1x1xf32>, tensor<1x1073741824xf32>) -> tensor<1x1073741824xf32> {
  ^bb0(%a: tensor<1x1xf32>, %b: tensor<1x1073741824xf32>):
    %p = dlc.matmul %a, %b : (tensor<1x1xf32>, tensor<1x1073741824xf32>) -> tensor<1x1073741824xf32>
    %e = dlc.erf %p : tensor<1x1073741824xf32>
    dlc.yield %e : tensor<1x1073741824xf32>
  }
  return %0 : tensor<1x1073741824xf32>
}

//--- gemm_deep.mlir
func.func @main(%x: tensor<1x2147483640xf32>, %w: tensor<2147483640x1xf32>) -> tensor<1x1xf32> {
  %0 = dlc.kernel (%x, %w) : (tensor<1x2147483640xf32>, tensor<2147483640x1xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: tensor<1x2147483640xf32>, %b: tensor<2147483640x1xf32>):
    %p = dlc.matmul %a, %b : (tensor<1x2147483640xf32>, tensor<2147483640x1xf32>) -> tensor<1x1xf32>
    %e = dlc.erf %p : tensor<1x1xf32>
    dlc.yield %e : tensor<1x1xf32>
  }
  return %0 : tensor<1x1xf32>
}
