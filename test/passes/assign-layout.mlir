// RUN: dlc-opt --split-input-file --dlc-assign-layout=layout=nhwc %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-assign-layout %s | FileCheck %s --check-prefix=AUTO
// RUN: dlc-opt --split-input-file --dlc-assign-layout=layout=nchw %s | FileCheck %s --check-prefix=NCHW
// RUN: not dlc-opt --dlc-assign-layout=layout=chwn %s 2>&1 | FileCheck %s --check-prefix=BAD

// Layout selection through the blocks of common convolutional networks.
// With layout=nhwc every op between convolutions runs channels-last (its
// constants permuted at compile time, its axes renamed); the dense
// convolutions are marked for dlc-lower-conv; transposes remain only at
// the cluster's boundary: model inputs read by an elementwise op, model
// outputs, and ops of fixed layout (a flatten). layout=auto decides per
// cluster and says why; layout=nchw changes nothing.

// BAD: unknown layout 'chwn'; expected auto, nchw or nhwc
// NCHW-NOT: dlc.transpose
// NCHW-NOT: dlc.channels_last

// A ResNet basic block. The model input is transposed once for the
// residual add (the first convolution reads it through its own indexing);
// the output is transposed back. Alone, auto finds those two transposes
// cost what the two fused epilogues save, and keeps NCHW.
// CHECK-LABEL: func.func @basic_block
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x8xf32>)
// CHECK-SAME: dlc.layouts = [{bytes_saved = 0 : i64, convolutions = 2 : i64, layout = "nhwc", reason = "--layout=nhwc"}]
// CHECK: %[[XT:.*]] = dlc.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-DAG: %[[B1:.*]] = dlc.constant dense<1.000000e-01> : tensor<1x1x1x8xf32>
// CHECK-DAG: %[[B2:.*]] = dlc.constant dense<-1.000000e-01> : tensor<1x1x1x8xf32>
// CHECK: %[[C1:.*]] = dlc.conv2d %[[X]], %{{.*}} {{{.*}}dlc.channels_last{{.*}}} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
// CHECK: %[[T1:.*]] = dlc.transpose %[[C1]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[A1:.*]] = dlc.add %[[T1]], %[[B1]] : (tensor<1x8x8x8xf32>, tensor<1x1x1x8xf32>)
// CHECK: %[[R1:.*]] = dlc.max %[[A1]]
// CHECK: %[[N1:.*]] = dlc.transpose %[[R1]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: %[[C2:.*]] = dlc.conv2d %[[N1]], %{{.*}} {{{.*}}dlc.channels_last
// CHECK: %[[T2:.*]] = dlc.transpose %[[C2]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[A2:.*]] = dlc.add %[[T2]], %[[B2]]
// CHECK: %[[S:.*]] = dlc.add %[[A2]], %[[XT]]
// CHECK: %[[R2:.*]] = dlc.max %[[S]]
// CHECK: %[[Y:.*]] = dlc.transpose %[[R2]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[Y]]
// AUTO-LABEL: func.func @basic_block
// AUTO-SAME: layout = "nchw", reason = "the transposes at its boundary would move more bytes than channels-last saves"
// AUTO-NOT: dlc.transpose
// AUTO: return
func.func @basic_block(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w1 = dlc.constant dense<0.05> : tensor<8x8x3x3xf32>
  %b1 = dlc.constant dense<0.1> : tensor<1x8x1x1xf32>
  %w2 = dlc.constant dense<0.02> : tensor<8x8x3x3xf32>
  %b2 = dlc.constant dense<-0.1> : tensor<1x8x1x1xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %0 = dlc.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = dlc.add %0, %b1 : (tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %2 = dlc.max %1, %zero : (tensor<1x8x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x8xf32>
  %3 = dlc.conv2d %2, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %4 = dlc.add %3, %b2 : (tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %5 = dlc.add %4, %x : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %6 = dlc.max %5, %zero : (tensor<1x8x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x8xf32>
  return %6 : tensor<1x8x8x8xf32>
}

// -----

// A bottleneck block with a strided 1x1 downsample: four dense
// convolutions on channels-last values, both branches' adds and the
// residual add channels-last; the downsample reads the model input through
// its own indexing.
// CHECK-LABEL: func.func @bottleneck
// CHECK-SAME: convolutions = 4 : i64, layout = "nhwc"
// CHECK-COUNT-4: dlc.conv2d {{.*}}dlc.channels_last
// CHECK: %[[D:.*]] = dlc.add %{{.*}}, %{{.*}} : (tensor<1x4x4x16xf32>, tensor<1x1x1x16xf32>)
// CHECK: %[[S:.*]] = dlc.add %{{.*}}, %[[D]] : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>)
// CHECK: %[[R:.*]] = dlc.max %[[S]]
// CHECK: %[[Y:.*]] = dlc.transpose %[[R]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: return %[[Y]]
// AUTO-LABEL: func.func @bottleneck
// AUTO-SAME: layout = "nhwc", reason = "bias, activation and residual adds fuse into the convolutions' GEMMs (channels on the product's columns)"
func.func @bottleneck(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %wa = dlc.constant dense<0.05> : tensor<4x16x1x1xf32>
  %wb = dlc.constant dense<0.05> : tensor<4x4x3x3xf32>
  %wc = dlc.constant dense<0.05> : tensor<16x4x1x1xf32>
  %wd = dlc.constant dense<0.05> : tensor<16x16x1x1xf32>
  %b4 = dlc.constant dense<0.1> : tensor<1x4x1x1xf32>
  %b16 = dlc.constant dense<0.1> : tensor<1x16x1x1xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %0 = dlc.conv2d %x, %wa {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<4x16x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = dlc.add %0, %b4 : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %2 = dlc.max %1, %zero : (tensor<1x4x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x8x8xf32>
  %3 = dlc.conv2d %2, %wb {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %4 = dlc.add %3, %b4 : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %5 = dlc.max %4, %zero : (tensor<1x4x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x4xf32>
  %6 = dlc.conv2d %5, %wc {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<16x4x1x1xf32>) -> tensor<1x16x4x4xf32>
  %7 = dlc.add %6, %b16 : (tensor<1x16x4x4xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %8 = dlc.conv2d %x, %wd {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %9 = dlc.add %8, %b16 : (tensor<1x16x4x4xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %10 = dlc.add %7, %9 : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %11 = dlc.max %10, %zero : (tensor<1x16x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x4x4xf32>
  return %11 : tensor<1x16x4x4xf32>
}

// -----

// A MobileNetV2 inverted residual: the depthwise convolution is no GEMM
// (not marked); it reads and writes through transposes its kernel absorbs.
// CHECK-LABEL: func.func @inverted_residual
// CHECK-SAME: convolutions = 2 : i64, layout = "nhwc"
// CHECK: dlc.conv2d {{.*}}dlc.channels_last
// CHECK: %[[E:.*]] = dlc.clamp %{{.*}} : tensor<1x8x8x16xf32>
// CHECK: %[[EN:.*]] = dlc.transpose %[[E]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: %[[DW:.*]] = dlc.conv2d %[[EN]], %{{.*}} {dilations = array<i64: 1, 1>, groups = 16 : i64
// CHECK: %[[DT:.*]] = dlc.transpose %[[DW]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: dlc.add %[[DT]], %{{.*}} : (tensor<1x8x8x16xf32>, tensor<1x1x1x16xf32>)
// CHECK: dlc.clamp %{{.*}} : tensor<1x8x8x16xf32>
// CHECK: dlc.conv2d {{.*}}dlc.channels_last
// AUTO-LABEL: func.func @inverted_residual
// AUTO-SAME: layout = "nhwc"
func.func @inverted_residual(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %we = dlc.constant dense<0.05> : tensor<16x8x1x1xf32>
  %wd = dlc.constant dense<0.05> : tensor<16x1x3x3xf32>
  %wp = dlc.constant dense<0.05> : tensor<8x16x1x1xf32>
  %b16 = dlc.constant dense<0.1> : tensor<1x16x1x1xf32>
  %b8 = dlc.constant dense<0.1> : tensor<1x8x1x1xf32>
  %0 = dlc.conv2d %x, %we {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x8x8xf32>
  %1 = dlc.add %0, %b16 : (tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %2 = dlc.clamp %1 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16x8x8xf32>
  %3 = dlc.conv2d %2, %wd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  %4 = dlc.add %3, %b16 : (tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %5 = dlc.clamp %4 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16x8x8xf32>
  %6 = dlc.conv2d %5, %wp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x8x8xf32>
  %7 = dlc.add %6, %b8 : (tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %8 = dlc.add %7, %x : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %8 : tensor<1x8x8x8xf32>
}

// -----

// Inception-style branches: the channel concat becomes a concat along the
// last axis, the slice of the pooled branch slices the last axis, and the
// pooling writes channels-last through its own indexing.
// CHECK-LABEL: func.func @concat
// CHECK: %[[P:.*]] = dlc.pool2d max
// CHECK: %[[PT:.*]] = dlc.transpose %[[P]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[S:.*]] = dlc.slice %[[PT]] {start = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[C:.*]] = dlc.concat %{{.*}}, %{{.*}}, %[[S]] {axis = 3 : i64} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x12xf32>
// CHECK: %[[CN:.*]] = dlc.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: dlc.conv2d %[[CN]], {{.*}}dlc.channels_last
func.func @concat(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %wa = dlc.constant dense<0.05> : tensor<4x8x1x1xf32>
  %wb = dlc.constant dense<0.05> : tensor<4x8x3x3xf32>
  %wo = dlc.constant dense<0.05> : tensor<8x12x1x1xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %0 = dlc.conv2d %x, %wa {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = dlc.max %0, %zero : (tensor<1x4x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x8x8xf32>
  %2 = dlc.conv2d %x, %wb {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x8x8xf32>
  %3 = dlc.max %2, %zero : (tensor<1x4x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x8x8xf32>
  %4 = dlc.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %5 = dlc.slice %4 {start = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x8xf32>) -> tensor<1x4x8x8xf32>
  %6 = dlc.concat %1, %3, %5 {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x12x8x8xf32>
  %7 = dlc.conv2d %6, %wo {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x12x8x8xf32>, tensor<8x12x1x1xf32>) -> tensor<1x8x8x8xf32>
  %8 = dlc.max %7, %zero : (tensor<1x8x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x8xf32>
  return %8 : tensor<1x8x8x8xf32>
}

// -----

// Global average pooling, flatten and a linear head: the reduction runs
// over the channels-last spatial axes; the one transpose left, before the
// flatten, only moves size-1 dimensions (a free view after dlc-fuse).
// CHECK-LABEL: func.func @flatten_linear
// CHECK: %[[R:.*]] = dlc.reduce sum %{{.*}} {axes = array<i64: 1, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x1x1x8xf32>
// CHECK: %[[M:.*]] = dlc.mul %[[R]], %{{.*}} : (tensor<1x1x1x8xf32>, tensor<1x1x1x1xf32>)
// CHECK: %[[T:.*]] = dlc.transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x1x1x8xf32>) -> tensor<1x8x1x1xf32>
// CHECK: dlc.reshape %[[T]] : tensor<1x8x1x1xf32> -> tensor<1x8xf32>
// AUTO-LABEL: func.func @flatten_linear
// AUTO-SAME: layout = "nhwc"
func.func @flatten_linear(%x: tensor<1x3x8x8xf32>) -> tensor<1x10xf32> {
  %w = dlc.constant dense<0.05> : tensor<8x3x3x3xf32>
  %b = dlc.constant dense<0.1> : tensor<1x8x1x1xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %scale = dlc.constant dense<0.015625> : tensor<1x1x1x1xf32>
  %fc = dlc.constant dense<0.1> : tensor<8x10xf32>
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = dlc.add %0, %b : (tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %2 = dlc.max %1, %zero : (tensor<1x8x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x8xf32>
  %3 = dlc.reduce sum %2 {axes = array<i64: 2, 3>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32>
  %4 = dlc.mul %3, %scale : (tensor<1x8x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x1x1xf32>
  %5 = dlc.reshape %4 : tensor<1x8x1x1xf32> -> tensor<1x8xf32>
  %6 = dlc.matmul %5, %fc : (tensor<1x8xf32>, tensor<8x10xf32>) -> tensor<1x10xf32>
  return %6 : tensor<1x10xf32>
}

// -----

// ResNeXt-style: a grouped convolution carries most of the work; auto
// keeps NCHW (nhwc still gives the 1x1 convolution channels-last).
// CHECK-LABEL: func.func @grouped
// CHECK: dlc.conv2d {{.*}}dlc.channels_last{{.*}} : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>)
// CHECK-NOT: dlc.channels_last
// CHECK: return
// AUTO-LABEL: func.func @grouped
// AUTO-SAME: layout = "nchw", reason = "grouped convolutions carry most of the work
// AUTO-NOT: dlc.transpose
// AUTO: return
func.func @grouped(%x: tensor<1x16x8x8xf32>) -> tensor<1x1x1x16xf32> {
  %wa = dlc.constant dense<0.05> : tensor<16x16x1x1xf32>
  %wg = dlc.constant dense<0.05> : tensor<16x4x3x3xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %0 = dlc.conv2d %x, %wa {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %1 = dlc.max %0, %zero : (tensor<1x16x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x8x8xf32>
  %2 = dlc.conv2d %1, %wg {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x8x8xf32>
  %3 = dlc.max %2, %zero : (tensor<1x16x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x8x8xf32>
  %4 = dlc.reduce max %3 {axes = array<i64: 2, 3>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x1x1xf32>
  %5 = dlc.reshape %4 : tensor<1x16x1x1xf32> -> tensor<1x1x1x16xf32>
  return %5 : tensor<1x1x1x16xf32>
}

// -----

// Pooling alone gains nothing from channels-last.
// AUTO-LABEL: func.func @pool_only
// AUTO-SAME: convolutions = 0 : i64, layout = "nchw", reason = "no convolution computed as a GEMM
func.func @pool_only(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %0 = dlc.max %x, %zero : (tensor<1x8x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x8xf32>
  %1 = dlc.pool2d max %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  return %1 : tensor<1x8x4x4xf32>
}
