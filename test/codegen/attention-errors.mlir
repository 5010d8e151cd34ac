// RUN: split-file %s %t
// RUN: not dlc compile %t/head.mlir --no-cubin -o %t/a.dlcpkg 2>&1 | FileCheck %s --check-prefix=HEAD
// RUN: not dlc compile %t/queries.mlir --no-cubin -o %t/b.dlcpkg 2>&1 | FileCheck %s --check-prefix=QUERIES
// RUN: not dlc compile %t/blocks.mlir --no-cubin -o %t/c.dlcpkg 2>&1 | FileCheck %s --check-prefix=BLOCKS
// What the attention kernel cannot do, reported at the dlc.attention: head
// sizes whose tiles overflow the 48 KiB of static shared memory, 2^30
// queries or keys, and more thread blocks than a grid holds.

// HEAD: head.mlir:2:8: error: 'dlc.attention' op has head sizes 1024 (q, k) and 1024 (v); the attention kernel's tiles of them do not fit in 49152 bytes of shared memory
// QUERIES: queries.mlir:2:8: error: 'dlc.attention' op has 1073741824 queries and 1 keys; the attention kernel supports fewer than 2^30 of each
// BLOCKS: blocks.mlir:2:8: error: 'dlc.attention' op needs 2147483648 thread blocks; at most 2^31 - 1 are supported

//--- head.mlir
func.func @main(%q: tensor<1x1x1024xf32>, %k: tensor<1x1x1024xf32>, %v: tensor<1x1x1024xf32>) -> tensor<1x1x1024xf32> {
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x1x1024xf32>, tensor<1x1x1024xf32>, tensor<1x1x1024xf32>) -> tensor<1x1x1024xf32>
  return %0 : tensor<1x1x1024xf32>
}

//--- queries.mlir
func.func @main(%q: tensor<1073741824x1xf32>, %k: tensor<1x1xf32>, %v: tensor<1x1xf32>) -> tensor<1073741824x1xf32> {
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1073741824x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1073741824x1xf32>
  return %0 : tensor<1073741824x1xf32>
}

//--- blocks.mlir
func.func @main(%q: tensor<4194304x16384x1xf32>, %k: tensor<1x1x1xf32>, %v: tensor<1x1x1xf32>) -> tensor<4194304x16384x1xf32> {
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<4194304x16384x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<4194304x16384x1xf32>
  return %0 : tensor<4194304x16384x1xf32>
}
