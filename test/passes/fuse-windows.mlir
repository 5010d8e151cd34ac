// RUN: dlc-opt --split-input-file --dlc-lower-conv --dlc-fuse %s | FileCheck %s

// A convolution as im2col + GEMM: the transpose from NHWC fuses into the
// im2col kernel (index arithmetic only); the bias add and relu fuse into one
// epilogue kernel that reads the GEMM's result through a free view.
// CHECK-LABEL: func.func @conv_epilogue
// CHECK: %[[COLS:.*]] = dlc.kernel(%{{.*}}) : (tensor<1x6x6x3xf32>) -> tensor<1x1x27x36xf32> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.transpose
// CHECK-NEXT: dlc.im2col
// CHECK-NEXT: dlc.yield
// CHECK: %[[V:.*]] = dlc.reshape %[[COLS]]
// CHECK: %[[P:.*]] = dlc.matmul %{{.*}}, %[[V]]
// CHECK: dlc.kernel(%[[P]], %{{.*}}) : (tensor<1x8x36xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.reshape
// CHECK-NEXT: dlc.add
// CHECK-NEXT: dlc.clamp
// CHECK-NEXT: dlc.yield
func.func @conv_epilogue(%x: tensor<1x6x6x3xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %t = dlc.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x3xf32>) -> tensor<1x3x6x6xf32>
  %0 = dlc.conv2d %t, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = dlc.add %0, %b : (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %2 = dlc.clamp %1 {min = 0.0 : f64, max = 3.0e38 : f64} : tensor<1x8x6x6xf32>
  return %2 : tensor<1x8x6x6xf32>
}

// -----

// Depthwise convolution, BN-style scale and shift and relu6: one kernel.
// CHECK-LABEL: func.func @depthwise_bn_relu6
// CHECK: dlc.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.conv2d
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.add
// CHECK-NEXT: dlc.clamp
// CHECK-NEXT: dlc.yield
// CHECK-NOT: dlc.kernel
func.func @depthwise_bn_relu6(%x: tensor<1x4x6x6xf32>, %w: tensor<4x1x3x3xf32>, %s: tensor<1x4x1x1xf32>, %t: tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = dlc.mul %0, %s : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %2 = dlc.add %1, %t : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %3 = dlc.clamp %2 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x4x6x6xf32>
  return %3 : tensor<1x4x6x6xf32>
}

// -----

// A window op recomputes a cheap elementwise producer (one operation per
// element) for every read of its window: its operand is read as often as
// its result would be, and nothing is written in between. The relu, the
// pool and its consumer are one kernel.
// CHECK-LABEL: func.func @pool_after_relu
// CHECK: dlc.kernel(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.clamp
// CHECK-NEXT: dlc.pool2d
// CHECK-NEXT: dlc.neg
// CHECK-NEXT: dlc.yield
// CHECK-NOT: dlc.kernel
func.func @pool_after_relu(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = dlc.clamp %x {min = 0.0 : f64, max = 3.0e38 : f64} : tensor<1x2x8x8xf32>
  %1 = dlc.pool2d max %0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.neg %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// A costlier producer (tanh, several operations per element) is not
// recomputed nine times per output: it is a kernel of its own, the pool and
// its consumer another.
// CHECK-LABEL: func.func @pool_after_tanh
// CHECK: %[[T:.*]] = dlc.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.tanh
// CHECK-NEXT: dlc.yield
// CHECK: dlc.kernel(%[[T]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.pool2d
// CHECK-NEXT: dlc.neg
// CHECK-NEXT: dlc.yield
func.func @pool_after_tanh(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = dlc.tanh %x : tensor<1x2x8x8xf32>
  %1 = dlc.pool2d max %0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.neg %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// Global average pooling is a row reduction; a depthwise convolution feeding
// it is computed once per element inside the row kernel.
// CHECK-LABEL: func.func @conv_global_pool
// CHECK: dlc.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.constant
// CHECK-NEXT: dlc.conv2d
// CHECK-NEXT: dlc.reduce sum
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.yield
// CHECK-NOT: dlc.kernel
func.func @conv_global_pool(%x: tensor<1x4x6x6xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x1x1xf32> {
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = dlc.reduce sum %0 {axes = array<i64: 2, 3>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x1x1xf32>
  %c = dlc.constant dense<0.027777777777777776> : tensor<1x1x1x1xf32>
  %2 = dlc.mul %1, %c : (tensor<1x4x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x1x1xf32>
  return %2 : tensor<1x4x1x1xf32>
}

// -----

// Gather, resize and strided slice are data movement in the pointwise
// template: their elementwise consumers join them.
// CHECK-LABEL: func.func @gather_resize_slice
// CHECK: dlc.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.gather
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.yield
// CHECK: dlc.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.slice
// CHECK-NEXT: dlc.resize
// CHECK-NEXT: dlc.tanh
// CHECK-NEXT: dlc.yield
func.func @gather_resize_slice(%t: tensor<16x4xf32>, %i: tensor<3xi32>, %x: tensor<1x1x8x8xf32>) -> (tensor<3x4xf32>, tensor<1x1x8x8xf32>) {
  %0 = dlc.gather %t, %i {axis = 0 : i64} : (tensor<16x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  %1 = dlc.exp %0 : tensor<3x4xf32>
  %2 = dlc.slice %x {start = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  %3 = dlc.resize %2 {mode = "linear"} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  %4 = dlc.tanh %3 : tensor<1x1x8x8xf32>
  return %1, %4 : tensor<3x4xf32>, tensor<1x1x8x8xf32>
}
