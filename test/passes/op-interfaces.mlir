// RUN: dlc-opt %s --verify-diagnostics --dlc-test-op-interfaces

// What each kind of op declares in DlcOps.td: its classes (fusion and the
// kernel-body rule), its cost for dlc-fuse (operations per element; FLOPs
// and bytes when it runs alone), its precision class for
// mixed-precision assignment, its layout class for layout selection and
// whether it has a gradient rule.
func.func @table(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{classes [elementwise, kernel-body], ops per element 8 (256 flops, 256 bytes alone), precision deny, layout agnostic, gradient yes}}
  %e = dlc.exp %x : tensor<4x8xf32>
  // expected-remark @+1 {{classes [elementwise, kernel-body], ops per element 4 (128 flops, 256 bytes alone), precision deny, layout agnostic, gradient yes}}
  %r = dlc.rsqrt %e : tensor<4x8xf32>
  // expected-remark @+1 {{classes [elementwise, kernel-body], ops per element 1 (32 flops, 256 bytes alone), precision allow, layout agnostic, gradient yes}}
  %n = dlc.neg %r : tensor<4x8xf32>
  // expected-remark @+1 {{classes [elementwise, kernel-body], ops per element 1 (32 flops, 384 bytes alone), precision allow, layout agnostic, gradient yes}}
  %m = dlc.max %n, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{classes [elementwise, kernel-body], ops per element 4 (128 flops, 384 bytes alone), precision deny, layout agnostic, gradient yes}}
  %d = dlc.div %m, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{classes [reduction, kernel-body], ops per element 0, precision deny, layout axes, gradient yes}}
  %s = dlc.reduce sum %d {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // expected-remark @+1 {{classes [data-movement, kernel-body], ops per element 0, precision allow, layout axes, gradient yes}}
  %t = dlc.transpose %w {perm = array<i64: 1, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{classes [data-movement, kernel-body], ops per element 0, precision allow, layout axes, gradient yes}}
  %p = dlc.pad %s {low = array<i64: 0, 0>, high = array<i64: 0, 7>, value = 0.0 : f64} : (tensor<4x1xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{classes [window, kernel-body], ops per element 0, precision allow, layout fixed, gradient yes}}
  %g = dlc.gather %p, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{classes [], ops per element 16 (512 flops, 512 bytes alone), precision prefer, layout fixed, gradient yes}}
  %y = dlc.matmul %g, %t : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
