// A product of a concat (two branches joined along the features, then a
// Linear with a bias and relu) computed as a sum of products
// (dlc-split-concat-product): no concat kernel, the second product adds
// the first's result and takes the bias and relu; the same numbers as the
// reference interpreter on sim. The weight split is a constant.
// RUN: dlc compile %s --no-cubin --stats-json %t.json -o %t.dlcpkg
// RUN: FileCheck %s --check-prefix=STATS < %t.json
// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=2 | FileCheck %s
// Without the graph rewrites the concat is a kernel: the same results.
// RUN: dlc compile %s --no-cubin --no-graph-rewrites -o %t.off.dlcpkg
// RUN: dlc run %t.off.dlcpkg --device=sim --check --seed=1 | FileCheck %s

// STATS: "gemms": 3,
// STATS: "data_movement_kernels": 0,

// FUSED-LABEL: func.func @main
// FUSED-NOT: dlc.concat
// FUSED: %[[P:.*]] = dlc.matmul %{{.*}}, %{{.*}} {{.*}}transpose_b{{.*}} : (tensor<512x12xf32>, tensor<4x12xf32>) -> tensor<512x4xf32>
// FUSED: dlc.matmul %{{.*}}, %{{.*}} bias(%{{.*}}) addend(%[[P]]) epilogue(relu) {{.*}}: (tensor<512x12xf32>, tensor<4x12xf32>, tensor<1x4xf32>, tensor<512x4xf32>) -> tensor<512x4xf32>

// CHECK: check output_0: relative error {{.*}} ok

func.func @main(%x: tensor<512x16xf32>, %w1: tensor<16x12xf32>, %w2: tensor<12x16xf32>) -> tensor<512x4xf32> {
  %zero = dlc.constant dense<0.0> : tensor<1x1xf32>
  %p1 = dlc.matmul %x, %w1 : (tensor<512x16xf32>, tensor<16x12xf32>) -> tensor<512x12xf32>
  %a = dlc.max %p1, %zero : (tensor<512x12xf32>, tensor<1x1xf32>) -> tensor<512x12xf32>
  %p2 = dlc.matmul %x, %w2 {transpose_b} : (tensor<512x16xf32>, tensor<12x16xf32>) -> tensor<512x12xf32>
  %b = dlc.tanh %p2 : tensor<512x12xf32>
  %cat = dlc.concat %a, %b {axis = 1 : i64} : (tensor<512x12xf32>, tensor<512x12xf32>) -> tensor<512x24xf32>
  %w3 = dlc.constant dense<[[-0.35, -0.70, 0.30, -0.86, 0.07, -0.27, -0.88, 0.01, -0.93, -0.13, -0.86, -0.82, -0.15, 0.65, -0.75, -0.55, 0.25, 0.90, 0.15, -0.21, 0.95, -0.91, 0.72, -0.42], [-0.71, -0.76, -0.38, 0.63, -0.64, 0.16, 0.28, -0.26, 0.10, -0.87, -0.88, -0.59, 0.36, -0.14, -0.37, 0.17, -0.09, -0.40, 0.59, 0.40, -0.51, 0.15, 0.05, 0.75], [0.46, -0.42, 0.96, -0.76, -0.16, 0.51, -0.70, -0.02, -0.92, 0.34, 0.53, 0.15, 0.75, -0.37, 0.39, 0.19, 0.16, -0.09, 0.68, 0.89, -0.05, 0.33, -0.88, 0.40], [0.29, 0.99, 0.64, -0.43, -0.23, 0.34, -0.95, -0.08, -0.66, -0.77, -0.88, 0.54, -0.74, -0.50, -0.22, 0.74, -0.84, -0.10, 0.10, 0.77, 0.64, 0.73, -0.44, -0.17]]> : tensor<4x24xf32>
  %b3 = dlc.constant dense<[[-0.14, 0.38, 0.46, -0.35]]> : tensor<1x4xf32>
  %y = dlc.matmul %cat, %w3 {transpose_b} : (tensor<512x24xf32>, tensor<4x24xf32>) -> tensor<512x4xf32>
  %yb = dlc.add %y, %b3 : (tensor<512x4xf32>, tensor<1x4xf32>) -> tensor<512x4xf32>
  %r = dlc.max %yb, %zero : (tensor<512x4xf32>, tensor<1x1xf32>) -> tensor<512x4xf32>
  return %r : tensor<512x4xf32>
}
