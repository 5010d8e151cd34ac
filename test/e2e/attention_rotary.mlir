// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc run %s --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %s --device=sim --check --seed=2 | FileCheck %s
// A Llama-style attention: rotary position embedding on q and on the keys,
// grouped-query attention (the keys and values of 2 heads repeated for 4
// query heads), causal. dlc-attention-layout moves the head split out from
// under the rotary embedding, so attention reads q and the keys as the
// rotary kernels write them and the values where the input holds them
// (kv_groups, no repeat), and writes the output's layout: no transpose or
// tile kernel is left. cos and sin vary by position and dimension (their
// permutation is folded at compile time). The result matches the reference
// interpreter.
// FUSED: dlc.attention {{.*}}causal{{.*}}head_offsets = array<i64: 0, 0, 0>, kv_groups = 2 : i64
// FUSED-NOT: dlc.transpose
// FUSED-NOT: dlc.tile
// CHECK: check output_0: relative error {{.*}} ok
func.func @main(%x: tensor<2x8x64xf32>, %kx: tensor<2x8x32xf32>, %vx: tensor<2x8x32xf32>) -> tensor<2x8x64xf32> {
  %cos = dlc.constant dense<[[[[1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000, 1.000000], [0.540302, 0.950415, 0.995004, 0.999500, 0.999950, 0.999995, 1.000000, 1.000000, 0.540302, 0.950415, 0.995004, 0.999500, 0.999950, 0.999995, 1.000000, 1.000000], [-0.416147, 0.806578, 0.980067, 0.998001, 0.999800, 0.999980, 0.999998, 1.000000, -0.416147, 0.806578, 0.980067, 0.998001, 0.999800, 0.999980, 0.999998, 1.000000], [-0.989992, 0.582754, 0.955336, 0.995503, 0.999550, 0.999955, 0.999996, 1.000000, -0.989992, 0.582754, 0.955336, 0.995503, 0.999550, 0.999955, 0.999996, 1.000000], [-0.653644, 0.301137, 0.921061, 0.992011, 0.999200, 0.999920, 0.999992, 0.999999, -0.653644, 0.301137, 0.921061, 0.992011, 0.999200, 0.999920, 0.999992, 0.999999], [0.283662, -0.010342, 0.877583, 0.987526, 0.998750, 0.999875, 0.999988, 0.999999, 0.283662, -0.010342, 0.877583, 0.987526, 0.998750, 0.999875, 0.999988, 0.999999], [0.960170, -0.320796, 0.825336, 0.982054, 0.998201, 0.999820, 0.999982, 0.999998, 0.960170, -0.320796, 0.825336, 0.982054, 0.998201, 0.999820, 0.999982, 0.999998], [0.753902, -0.599437, 0.764842, 0.975600, 0.997551, 0.999755, 0.999976, 0.999998, 0.753902, -0.599437, 0.764842, 0.975600, 0.997551, 0.999755, 0.999976, 0.999998]]]]> : tensor<1x1x8x16xf32>
  %sin = dlc.constant dense<[[[[0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000], [0.841471, 0.310984, 0.099833, 0.031618, 0.010000, 0.003162, 0.001000, 0.000316, 0.841471, 0.310984, 0.099833, 0.031618, 0.010000, 0.003162, 0.001000, 0.000316], [0.909297, 0.591127, 0.198669, 0.063203, 0.019999, 0.006325, 0.002000, 0.000632, 0.909297, 0.591127, 0.198669, 0.063203, 0.019999, 0.006325, 0.002000, 0.000632], [0.141120, 0.812649, 0.295520, 0.094726, 0.029996, 0.009487, 0.003000, 0.000949, 0.141120, 0.812649, 0.295520, 0.094726, 0.029996, 0.009487, 0.003000, 0.000949], [-0.756802, 0.953581, 0.389418, 0.126154, 0.039989, 0.012649, 0.004000, 0.001265, -0.756802, 0.953581, 0.389418, 0.126154, 0.039989, 0.012649, 0.004000, 0.001265], [-0.958924, 0.999947, 0.479426, 0.157456, 0.049979, 0.015811, 0.005000, 0.001581, -0.958924, 0.999947, 0.479426, 0.157456, 0.049979, 0.015811, 0.005000, 0.001581], [-0.279415, 0.947148, 0.564642, 0.188600, 0.059964, 0.018973, 0.006000, 0.001897, -0.279415, 0.947148, 0.564642, 0.188600, 0.059964, 0.018973, 0.006000, 0.001897], [0.656987, 0.800422, 0.644218, 0.219556, 0.069943, 0.022134, 0.007000, 0.002214, 0.656987, 0.800422, 0.644218, 0.219556, 0.069943, 0.022134, 0.007000, 0.002214]]]]> : tensor<1x1x8x16xf32>
  %qr = dlc.reshape %x : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
  %q1 = dlc.slice %q {start = array<i64: 0, 0, 0, 0>} : (tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
  %q2 = dlc.slice %q {start = array<i64: 0, 0, 0, 8>} : (tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
  %q2n = dlc.neg %q2 : tensor<2x4x8x8xf32>
  %qh = dlc.concat %q2n, %q1 {axis = 3 : i64} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x16xf32>
  %qc = dlc.mul %q, %cos : (tensor<2x4x8x16xf32>, tensor<1x1x8x16xf32>) -> tensor<2x4x8x16xf32>
  %qs = dlc.mul %qh, %sin : (tensor<2x4x8x16xf32>, tensor<1x1x8x16xf32>) -> tensor<2x4x8x16xf32>
  %qe = dlc.add %qc, %qs : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %kr = dlc.reshape %kx : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %kt = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x2x16xf32>) -> tensor<2x2x8x16xf32>
  %k1 = dlc.slice %kt {start = array<i64: 0, 0, 0, 0>} : (tensor<2x2x8x16xf32>) -> tensor<2x2x8x8xf32>
  %k2 = dlc.slice %kt {start = array<i64: 0, 0, 0, 8>} : (tensor<2x2x8x16xf32>) -> tensor<2x2x8x8xf32>
  %k2n = dlc.neg %k2 : tensor<2x2x8x8xf32>
  %kh = dlc.concat %k2n, %k1 {axis = 3 : i64} : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x16xf32>
  %kc = dlc.mul %kt, %cos : (tensor<2x2x8x16xf32>, tensor<1x1x8x16xf32>) -> tensor<2x2x8x16xf32>
  %ks = dlc.mul %kh, %sin : (tensor<2x2x8x16xf32>, tensor<1x1x8x16xf32>) -> tensor<2x2x8x16xf32>
  %ke = dlc.add %kc, %ks : (tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) -> tensor<2x2x8x16xf32>
  %ku = dlc.reshape %ke : tensor<2x2x8x16xf32> -> tensor<2x2x1x8x16xf32>
  %kp = dlc.tile %ku {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x8x16xf32>) -> tensor<2x2x2x8x16xf32>
  %k = dlc.reshape %kp : tensor<2x2x2x8x16xf32> -> tensor<2x4x8x16xf32>
  %vr = dlc.reshape %vx : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %vt = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x2x16xf32>) -> tensor<2x2x8x16xf32>
  %vu = dlc.reshape %vt : tensor<2x2x8x16xf32> -> tensor<2x2x1x8x16xf32>
  %vp = dlc.tile %vu {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x8x16xf32>) -> tensor<2x2x2x8x16xf32>
  %v = dlc.reshape %vp : tensor<2x2x2x8x16xf32> -> tensor<2x4x8x16xf32>
  %o = dlc.attention %qe, %k, %v {causal, scale = 2.500000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x8x16xf32>) -> tensor<2x8x4x16xf32>
  %r = dlc.reshape %ot : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}
