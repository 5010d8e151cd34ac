// RUN: dlc compile %s --no-cubin --no-cache -o %t.dlcpkg
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=2 | FileCheck %s
// E4M3 rounding on the sim device (the generated kernels' conversions)
// equals the reference interpreter's bit for bit: values scaled to span
// E4M3's subnormals (below 2^-6), its normals and beyond its largest value
// (448, where they saturate), rounded to nearest even, back in f32.
// CHECK: check output_0: relative error 0 (tolerance {{.*}}) ok
// CHECK: check output_1: relative error 0 (tolerance {{.*}}) ok
func.func @main(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %big = dlc.constant dense<600.0> : tensor<1x1xf32>
  %tiny = dlc.constant dense<0.03> : tensor<1x1xf32>
  %a = dlc.mul %x, %big : (tensor<64x64xf32>, tensor<1x1xf32>) -> tensor<64x64xf32>
  %qa = dlc.cast %a : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN>
  %ya = dlc.cast %qa : tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  %b = dlc.mul %x, %tiny : (tensor<64x64xf32>, tensor<1x1xf32>) -> tensor<64x64xf32>
  %qb = dlc.cast %b {scale = 0.7} : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN>
  %yb = dlc.cast %qb : tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  return %ya, %yb : tensor<64x64xf32>, tensor<64x64xf32>
}
