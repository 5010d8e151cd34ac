// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc compile %s --stats-json %t.json -o %t.dlcpkg && FileCheck %s --check-prefix=STATS < %t.json
// RUN: dlc run %s --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %s --device=sim --check --seed=2 | FileCheck %s
// Contiguous blocks read in place (ShuffleNet's channel split at batch 1):
// both halves of a product's channels, and a block of rows of the model's
// input, are views that the next products read where they are. The
// product's buffer lives as long as its views are read, and the results
// match the reference.
// FUSED: view: a contiguous block of %arg0 (a function argument), read in place: no kernel, no bytes moved
// FUSED-NEXT: dlc.slice %arg0 {dlc.view, start = array<i64: 0, 16, 0>}
// FUSED: view: a contiguous block of %[[P:[0-9]+]] ('dlc.matmul')
// FUSED: view: a contiguous block of %[[P]] ('dlc.matmul')
// FUSED-NOT: kernel k1:
// STATS: "kernels": 1,
// STATS: "data_movement_kernels": 0,
// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
func.func @main(%x: tensor<1x48x16xf32>, %w: tensor<1x48x32xf32>, %w2: tensor<1x24x24xf32>) -> (tensor<1x24x16xf32>, tensor<1x24x16xf32>) {
  %xs = dlc.slice %x {start = array<i64: 0, 16, 0>} : (tensor<1x48x16xf32>) -> tensor<1x32x16xf32>
  %p = dlc.matmul %w, %xs : (tensor<1x48x32xf32>, tensor<1x32x16xf32>) -> tensor<1x48x16xf32>
  %s1 = dlc.slice %p {start = array<i64: 0, 0, 0>} : (tensor<1x48x16xf32>) -> tensor<1x24x16xf32>
  %s2 = dlc.slice %p {start = array<i64: 0, 24, 0>} : (tensor<1x48x16xf32>) -> tensor<1x24x16xf32>
  %a = dlc.matmul %w2, %s1 : (tensor<1x24x24xf32>, tensor<1x24x16xf32>) -> tensor<1x24x16xf32>
  %b = dlc.matmul %w2, %s2 : (tensor<1x24x24xf32>, tensor<1x24x16xf32>) -> tensor<1x24x16xf32>
  %c = dlc.matmul %w2, %a : (tensor<1x24x24xf32>, tensor<1x24x16xf32>) -> tensor<1x24x16xf32>
  %e = dlc.tanh %c : tensor<1x24x16xf32>
  %f = dlc.add %e, %b : (tensor<1x24x16xf32>, tensor<1x24x16xf32>) -> tensor<1x24x16xf32>
  return %f, %a : tensor<1x24x16xf32>, tensor<1x24x16xf32>
}
