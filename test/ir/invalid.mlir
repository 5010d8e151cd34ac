// RUN: dlc-opt %s -split-input-file -verify-diagnostics
// One case per verifier message of the dlc dialect.

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

func.func @constant_type(%x: tensor<2xf32>) {
  // The ODS trait fires before ConstantOp::verify, whose own message is a
  // second line of defence for ops built in C++.
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %0 = "dlc.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Broadcasting elementwise operations
//===----------------------------------------------------------------------===//

func.func @binary_rank(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'dlc.add' op expects operands of the result's rank 2, but operand #1 has rank 1 (insert a dlc.reshape to change rank)}}
  %0 = dlc.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @binary_broadcast(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>) {
  // expected-error @+1 {{'dlc.mul' op operand shapes [4, 8] and [4, 3] are not broadcast-compatible}}
  %0 = dlc.mul %x, %y : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @binary_result_shape(%x: tensor<4x1xf32>, %y: tensor<1x8xf32>) {
  // expected-error @+1 {{'dlc.sub' op expects result shape [4, 8] (the broadcast of the operands), but got [4, 1]}}
  %0 = dlc.sub %x, %y : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @binary_element_type(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'dlc.max' op expects operands and result of one element type, but got 'f16' and 'f32' (insert a dlc.cast)}}
  %0 = dlc.max %x, %y : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @float_unary(%x: tensor<4xi32>) {
  // expected-error @+1 {{'dlc.exp' op expects a floating-point tensor, but got element type 'i32'}}
  %0 = dlc.exp %x : tensor<4xi32>
  return
}

// -----

func.func @clamp_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.clamp' op expects min <= max, but got min = 6.000000e+00 and max = 0.000000e+00}}
  %0 = dlc.clamp %x {min = 6.0 : f64, max = 0.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @cmp_element_type(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'dlc.cmp' op expects operands of one element type, but got 'f32' and 'f16'}}
  %0 = dlc.cmp lt, %x, %y : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return
}

// -----

func.func @select_element_type(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'dlc.select' op expects both choices and the result to have one element type, but got 'f32', 'i32' and 'f32'}}
  %0 = dlc.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.cast' op expects the result shape [2, 2] to equal the input shape [4]}}
  %0 = dlc.cast %x : tensor<4xf32> -> tensor<2x2xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @reduce_no_axes(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.reduce' op expects at least one axis}}
  %0 = dlc.reduce sum %x {axes = array<i64>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_axis_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.reduce' op axis 2 is out of range for a tensor of rank 2}}
  %0 = dlc.reduce sum %x {axes = array<i64: 2>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_axis_twice(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.reduce' op axis 1 appears twice}}
  %0 = dlc.reduce max %x {axes = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @reduce_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.reduce' op expects result shape [4, 1] (reduced axes kept as 1), but got [4]}}
  %0 = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_element_type(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'dlc.reduce' op expects the result element type 'f16', but got 'f32'}}
  %0 = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<4x8xf16>) -> tensor<4x1xf32>
  return
}

// -----

func.func @reduce_bool(%x: tensor<4x8xi1>) {
  // expected-error @+1 {{'dlc.reduce' op cannot reduce a boolean tensor}}
  %0 = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<4x8xi1>) -> tensor<4x1xi1>
  return
}

// -----

func.func @argmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.argmax' op axis -1 is out of range for a tensor of rank 2}}
  %0 = dlc.argmax %x {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xi32>
  return
}

// -----

func.func @argmax_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.argmax' op expects result shape [4, 1], but got [4]}}
  %0 = dlc.argmax %x {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Matrix product
//===----------------------------------------------------------------------===//

func.func @matmul_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dlc.matmul' op expects operands of one rank, at least 2, but got 1 and 1}}
  %0 = dlc.matmul %x, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @matmul_element_type(%a: tensor<4x8xf32>, %b: tensor<8x2xf16>) {
  // expected-error @+1 {{'dlc.matmul' op expects operands and result of one element type, but got 'f32', 'f16' and 'f32'}}
  %0 = dlc.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf16>) -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_bool(%a: tensor<4x8xi1>, %b: tensor<8x2xi1>) {
  // expected-error @+1 {{'dlc.matmul' op cannot multiply boolean matrices}}
  %0 = dlc.matmul %a, %b : (tensor<4x8xi1>, tensor<8x2xi1>) -> tensor<4x2xi1>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'dlc.matmul' op contraction sizes differ: 8 (lhs) vs 4 (rhs)}}
  %0 = dlc.matmul %a, %b : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x2xf32>) {
  // expected-error @+1 {{'dlc.matmul' op batch dimensions [2] and [3] are not broadcast-compatible}}
  %0 = dlc.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x2xf32>) -> tensor<2x4x2xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<4x8xf32>, %b: tensor<2x8xf32>) {
  // expected-error @+1 {{'dlc.matmul' op expects result shape [4, 2], but got [4, 8]}}
  %0 = dlc.matmul %a, %b {transpose_b} : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_acc_type(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'dlc.matmul' op acc_type must be a float type for a float product}}
  %0 = dlc.matmul %a, %b {acc_type = i32} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_bias_shape(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x1xf32>) {
  // expected-error @+1 {{'dlc.matmul' op expects a bias of shape [2] or [1, ..., 1, 2] (at most rank 2), but got [4, 1]}}
  %0 = dlc.matmul %a, %b bias(%c) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_bias_rank(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<1x1x2xf32>) {
  // expected-error @+1 {{'dlc.matmul' op expects a bias of shape [2] or [1, ..., 1, 2] (at most rank 2), but got [1, 1, 2]}}
  %0 = dlc.matmul %a, %b bias(%c) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<1x1x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_bias_type(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>, %c: tensor<2xf32>) {
  // expected-error @+1 {{'dlc.matmul' op expects a bias of the result's element type 'f16', but got 'f32'}}
  %0 = dlc.matmul %a, %b bias(%c) : (tensor<4x8xf16>, tensor<8x2xf16>, tensor<2xf32>) -> tensor<4x2xf16>
  return
}

// -----

func.func @matmul_addend_type(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<1x2xf32>) {
  // expected-error @+1 {{'dlc.matmul' op expects an addend of the result type 'tensor<4x2xf32>', but got 'tensor<1x2xf32>'}}
  %0 = dlc.matmul %a, %b addend(%c) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_gelu_int(%a: tensor<4x8xi32>, %b: tensor<8x2xi32>) {
  // expected-error @+1 {{'dlc.matmul' op cannot apply gelu_tanh to a 'i32' product}}
  %0 = dlc.matmul %a, %b epilogue(gelu_tanh) : (tensor<4x8xi32>, tensor<8x2xi32>) -> tensor<4x2xi32>
  return
}

// -----

func.func @matmul_epilogue_keyword(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'epilogue' [none, relu, gelu_tanh]}}
  %0 = dlc.matmul %a, %b epilogue(gelu) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

func.func @transpose_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.transpose' op expects a permutation of 2 dimensions, but got 3}}
  %0 = dlc.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.transpose' op perm [1, 1] is not a permutation}}
  %0 = dlc.transpose %x {perm = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @transpose_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.transpose' op expects result shape [8, 4], but got [4, 8]}}
  %0 = dlc.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @transpose_element_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.transpose' op changes the element type}}
  %0 = dlc.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf16>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.reshape' op cannot reshape 32 elements [4, 8] into 30 elements [5, 6]}}
  %0 = dlc.reshape %x : tensor<4x8xf32> -> tensor<5x6xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.reshape' op changes the element type}}
  %0 = dlc.reshape %x : tensor<4x8xf32> -> tensor<32xi32>
  return
}

// -----

func.func @slice_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.slice' op expects start and result of the input's rank 2}}
  %0 = dlc.slice %x {start = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.slice' op slice [6, 9) of dimension 1 is out of bounds for size 8}}
  %0 = dlc.slice %x {start = array<i64: 0, 6>} : (tensor<4x8xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_element_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.slice' op changes the element type}}
  %0 = dlc.slice %x {start = array<i64: 0, 0>} : (tensor<4x8xf32>) -> tensor<2x2xbf16>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+1 {{'dlc.concat' op expects at least one input}}
  %0 = dlc.concat {axis = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.concat' op axis 2 is out of range for a tensor of rank 2}}
  %0 = dlc.concat %x, %x {axis = 2 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @concat_rank(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'dlc.concat' op input #1 differs in rank or element type}}
  %0 = dlc.concat %x, %y {axis = 1 : i64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @concat_size(%x: tensor<4x8xf32>, %y: tensor<3x8xf32>) {
  // expected-error @+1 {{'dlc.concat' op input #1 has size 3 in dimension 0, expected 4}}
  %0 = dlc.concat %x, %y {axis = 1 : i64} : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @concat_shape(%x: tensor<4x8xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+1 {{'dlc.concat' op expects result shape [4, 10], but got [4, 16]}}
  %0 = dlc.concat %x, %y {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @pad_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.pad' op expects low and high of the input's rank 2}}
  %0 = dlc.pad %x {low = array<i64: 0>, high = array<i64: 0, 0>, value = 0.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.pad' op expects non-negative padding, but dimension 1 has low -1 and high 0}}
  %0 = dlc.pad %x {low = array<i64: 0, -1>, high = array<i64: 0, 0>, value = 0.0 : f64} : (tensor<4x8xf32>) -> tensor<4x7xf32>
  return
}

// -----

func.func @pad_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.pad' op expects result shape [5, 10], but got [5, 8]}}
  %0 = dlc.pad %x {low = array<i64: 1, 1>, high = array<i64: 0, 1>, value = 0.0 : f64} : (tensor<4x8xf32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @tile_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.tile' op expects 2 multiples, but got 1}}
  %0 = dlc.tile %x {multiples = array<i64: 2>} : (tensor<4x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @tile_positive(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.tile' op expects positive multiples, but dimension 0 has 0}}
  %0 = dlc.tile %x {multiples = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<0x8xf32>
  return
}

// -----

func.func @tile_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.tile' op expects result shape [8, 8], but got [4, 16]}}
  %0 = dlc.tile %x {multiples = array<i64: 2, 1>} : (tensor<4x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

func.func @kernel_arguments(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.kernel' op has 1 inputs but its body takes 2 arguments}}
  %k = dlc.kernel (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    dlc.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @kernel_argument_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.kernel' op input #0 has type 'tensor<4xf32>' but body argument #0 has type 'tensor<4xf16>'}}
  %k = dlc.kernel (%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf16>):
    dlc.yield %a : tensor<4xf16>
  }
  return
}

// -----

func.func @kernel_yield(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.kernel' op yields 1 values whose types differ from its 2 results}}
  %k:2 = dlc.kernel (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    dlc.yield %a : tensor<4xf32>
  }
  return
}

// -----

// The op's verifier runs before its region's: a body that does not end in
// dlc.yield (the generic form can write one) is reported, not assumed
// (found by fuzz-reference, from a damaged bytecode reference model).
func.func @kernel_without_yield(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.kernel' op expects its body to end in 'dlc.yield'}}
  %k = "dlc.kernel"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %e = dlc.exp %a : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @kernel_empty_body(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.kernel' op expects a non-empty block}}
  %k = "dlc.kernel"(%x) ({
  ^bb0:
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @kernel_no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.kernel' op expects at least one result}}
  dlc.kernel (%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
    dlc.yield
  }
  return
}

// -----

// A kernel may hold one matrix product (a generated GEMM, dlc-fuse-gemm)
// under the rules below; each is a message of its own.
func.func @kernel_two_matmuls(%x: tensor<4x4xf32>) {
  %k = dlc.kernel (%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %0 = dlc.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    // expected-error @+1 {{'dlc.matmul' op is a second matrix product in one dlc.kernel; a kernel computes at most one}}
    %1 = dlc.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %2 = dlc.add %0, %1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    dlc.yield %2 : tensor<4x4xf32>
  }
  return
}

// -----

func.func @kernel_matmul_operand(%x: tensor<4x4xf32>) {
  %k = dlc.kernel (%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %e = dlc.exp %a : tensor<4x4xf32>
    // expected-error @+1 {{'dlc.matmul' op in a dlc.kernel must read the kernel's inputs only}}
    %0 = dlc.matmul %e, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    dlc.yield %0 : tensor<4x4xf32>
  }
  return
}

// -----

func.func @kernel_matmul_type(%x: tensor<4x4xi32>) {
  %k = dlc.kernel (%x) : (tensor<4x4xi32>) -> tensor<4x4xi32> {
  ^bb0(%a: tensor<4x4xi32>):
    // expected-error @+1 {{'dlc.matmul' op in a dlc.kernel must have f32, f16 or bf16 operands, not 'i32'}}
    %0 = dlc.matmul %a, %a : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi32>
    dlc.yield %0 : tensor<4x4xi32>
  }
  return
}

// -----

func.func @kernel_matmul_scales(%x: tensor<4x4xf8E4M3FN>) {
  %k = dlc.kernel (%x) : (tensor<4x4xf8E4M3FN>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf8E4M3FN>):
    // expected-error @+1 {{'dlc.matmul' op in a dlc.kernel must have f32, f16 or bf16 operands, not 'f8E4M3FN'}}
    %0 = dlc.matmul %a, %a {lhs_scale = 2.0 : f64, rhs_scale = 0.5 : f64} : (tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN>) -> tensor<4x4xf32>
    dlc.yield %0 : tensor<4x4xf32>
  }
  return
}

// -----

func.func @kernel_matmul_scaled_f16(%x: tensor<4x4xf16>) {
  %k = dlc.kernel (%x) : (tensor<4x4xf16>) -> tensor<4x4xf16> {
  ^bb0(%a: tensor<4x4xf16>):
    // expected-error @+1 {{'dlc.matmul' op in a dlc.kernel cannot have scales}}
    %0 = dlc.matmul %a, %a {lhs_scale = 2.0 : f64} : (tensor<4x4xf16>, tensor<4x4xf16>) -> tensor<4x4xf16>
    dlc.yield %0 : tensor<4x4xf16>
  }
  return
}

// -----

func.func @kernel_matmul_acc(%x: tensor<4x4xf16>) {
  %k = dlc.kernel (%x) : (tensor<4x4xf16>) -> tensor<4x4xf16> {
  ^bb0(%a: tensor<4x4xf16>):
    // expected-error @+1 {{'dlc.matmul' op in a dlc.kernel must accumulate in f32, not 'f16'}}
    %0 = dlc.matmul %a, %a {acc_type = f16} : (tensor<4x4xf16>, tensor<4x4xf16>) -> tensor<4x4xf16>
    dlc.yield %0 : tensor<4x4xf16>
  }
  return
}

// -----

func.func @kernel_matmul_reader(%x: tensor<4x4xf32>) {
  %k = dlc.kernel (%x) : (tensor<4x4xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %0 = dlc.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    // expected-error @+1 {{'dlc.reduce' op reads the kernel's matrix product but is not elementwise at its shape}}
    %1 = dlc.reduce sum %0 {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
    dlc.yield %1 : tensor<4x1xf32>
  }
  return
}

// -----

func.func @kernel_matmul_broadcast(%x: tensor<4x4xf32>, %y: tensor<2x4x4xf32>) {
  %k = dlc.kernel (%x, %y) : (tensor<4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<2x4x4xf32>):
    %0 = dlc.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    // expected-error @+1 {{'dlc.add' op reads the kernel's matrix product but is not elementwise at its shape}}
    %1 = dlc.add %0, %b : (tensor<4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    dlc.yield %1 : tensor<2x4x4xf32>
  }
  return
}

// -----

// What may stand inside a kernel is the op's KernelBody trait: an attention
// (its own kernel template) is refused by the verifier, not by codegen.
func.func @kernel_attention(%q: tensor<1x8x16xf32>) {
  %k = dlc.kernel (%q) : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
  ^bb0(%a: tensor<1x8x16xf32>):
    // expected-error @+1 {{'dlc.attention' op cannot be fused into a dlc.kernel}}
    %0 = dlc.attention %a, %a, %a {scale = 0.25 : f64} : (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    dlc.yield %0 : tensor<1x8x16xf32>
  }
  return
}

// -----

func.func @concat_element_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.concat' op expects result element type 'f32' (the input's), but got 'f16'}}
  %0 = dlc.concat %x, %x {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf16>
  return
}

// -----

func.func @pad_element_type(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'dlc.pad' op expects result element type 'f32' (the input's), but got 'i32'}}
  %0 = dlc.pad %x {low = array<i64: 0, 0>, high = array<i64: 0, 0>, value = 0.0 : f64} : (tensor<4x5xf32>) -> tensor<4x5xi32>
  return
}

// -----

func.func @tile_element_type(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'dlc.tile' op expects result element type 'f32' (the input's), but got 'bf16'}}
  %0 = dlc.tile %x {multiples = array<i64: 1, 1>} : (tensor<4x5xf32>) -> tensor<4x5xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Convolution, pooling, gather, resize, strided slice
//===----------------------------------------------------------------------===//

func.func @conv_rank(%x: tensor<4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects rank-4 NCHW tensors, but operand #0 has shape [4, 8, 8]}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_element(%x: tensor<1x4x8x8xf16>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects operands and result of one element type, but got 'f16' and 'f32'}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf16>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_int(%x: tensor<1x4x8x8xi32>, %w: tensor<4x4x3x3xi32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects floating-point tensors, but got element type 'i32'}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xi32>, tensor<4x4x3x3xi32>) -> tensor<1x4x6x6xi32>
  return
}

// -----

func.func @conv_strides(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects strides to be two positive values, but got [1, 0]}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_dilations(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects dilations to be two positive values, but got [1]}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_pads(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects pads to be four non-negative values [top, left, bottom, right], but got [0, -1, 0, 0]}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects groups (3) to be positive and to divide the 4 input channels and the 4 output channels}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_filter(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects a filter of shape [OC, C/groups, KH, KW] with C/groups = 2, but got [4, 4, 3, 3]}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_window(%x: tensor<1x4x2x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op has a window spanning 5 rows (kernel 3, dilation 2), more than the 2 of the padded input}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>, groups = 1 : i64} : (tensor<1x4x2x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x1x6xf32>
  return
}

// -----

func.func @conv_result(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects result shape [1, 4, 4, 4], but got [1, 4, 3, 3]}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_acc(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op acc_type must be a float type, but got 'i32'}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64, acc_type = i32} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @convt_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv_transpose2d' op expects groups (3) to be positive and to divide the 4 input channels}}
  %0 = dlc.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x10x10xf32>
  return
}

// -----

func.func @convt_filter(%x: tensor<1x4x8x8xf32>, %w: tensor<2x2x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv_transpose2d' op expects a filter of shape [C, OC/groups, KH, KW] with C = 4, but got [2, 2, 3, 3]}}
  %0 = dlc.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  return
}

// -----

func.func @convt_output_padding(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv_transpose2d' op expects output_padding to be two non-negative values below the stride or dilation, but got [2, 0]}}
  %0 = dlc.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 2, 0>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x19x17xf32>
  return
}

// -----

func.func @convt_empty(%x: tensor<1x4x1x1xf32>, %w: tensor<4x2x1x1xf32>) {
  // expected-error @+1 {{'dlc.conv_transpose2d' op pads [1, 0, 0, 0] leave no output (computed size [0, 1])}}
  %0 = dlc.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return
}

// -----

func.func @convt_result(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv_transpose2d' op expects result shape [1, 2, 10, 10], but got [1, 2, 8, 8]}}
  %0 = dlc.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @convt_acc(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv_transpose2d' op acc_type must be a float type, but got 'i64'}}
  %0 = dlc.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, acc_type = i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  return
}

// -----

func.func @pool_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dlc.pool2d' op expects kernel to be two positive values, but got [0, 2]}}
  %0 = dlc.pool2d max %x {kernel = array<i64: 0, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x7xf32>
  return
}

// -----

func.func @pool_count_include_pad(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dlc.pool2d' op count_include_pad applies to avg pooling only}}
  %0 = dlc.pool2d max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, count_include_pad} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @pool_result(%x: tensor<1x4x7x7xf32>) {
  // ceil mode allows [1, 4, 4, 4]; [1, 4, 5, 3] is neither.
  // expected-error @+1 {{'dlc.pool2d' op expects result shape [1, 4, 3, 3] (or one larger in H or W for ceil mode, where that window starts inside the padded input), but got [1, 4, 5, 3]}}
  %0 = dlc.pool2d avg %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x5x3xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'dlc.gather' op axis 2 is out of range for a tensor of rank 2}}
  %0 = dlc.gather %x, %i {axis = 2 : i64} : (tensor<4x8xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<4x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'dlc.gather' op expects result shape [4, 3], but got [3, 8]}}
  %0 = dlc.gather %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @gather_element(%x: tensor<4x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'dlc.gather' op changes the element type}}
  %0 = dlc.gather %x, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<3xi32>) -> tensor<3x8xf16>
  return
}

// -----

func.func @gather_empty(%x: tensor<0x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'dlc.gather' op gathers from an empty axis}}
  %0 = dlc.gather %x, %i {axis = 0 : i64} : (tensor<0x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @resize_mode(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'dlc.resize' op expects mode "nearest" or "linear", but got "cubic"}}
  %0 = dlc.resize %x {mode = "cubic"} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return
}

// -----

func.func @resize_coordinate_mode(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'dlc.resize' op expects coordinate_mode half_pixel, asymmetric, align_corners or pytorch_half_pixel, but got "tf_crop_and_resize"}}
  %0 = dlc.resize %x {mode = "linear", coordinate_mode = "tf_crop_and_resize"} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return
}

// -----

func.func @resize_nearest_mode(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'dlc.resize' op expects nearest_mode round_prefer_floor, round_prefer_ceil, floor or ceil, but got "round"}}
  %0 = dlc.resize %x {mode = "nearest", nearest_mode = "round"} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'dlc.resize' op expects a result of the input's rank and element type}}
  %0 = dlc.resize %x {mode = "nearest"} : (tensor<1x1x4x4xf32>) -> tensor<1x8x8xf32>
  return
}

// -----

func.func @resize_empty(%x: tensor<1x0x4xf32>) {
  // expected-error @+1 {{'dlc.resize' op cannot resize the empty dimension 1 to 2}}
  %0 = dlc.resize %x {mode = "nearest"} : (tensor<1x0x4xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

func.func @resize_linear_int(%x: tensor<1x4xi32>) {
  // expected-error @+1 {{'dlc.resize' op linear mode expects a floating-point tensor, but got element type 'i32'}}
  %0 = dlc.resize %x {mode = "linear"} : (tensor<1x4xi32>) -> tensor<1x8xi32>
  return
}

// -----

func.func @im2col_input(%x: tensor<4x8x8xf32>) {
  // expected-error @+1 {{'dlc.im2col' op expects a rank-4 NCHW input of the result's element type}}
  %0 = dlc.im2col %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<4x8x8xf32>) -> tensor<1x1x36x36xf32>
  return
}

// -----

func.func @im2col_groups(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dlc.im2col' op expects groups (3) to be positive and to divide the 4 input channels}}
  %0 = dlc.im2col %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x3x9x36xf32>
  return
}

// -----

func.func @im2col_result(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dlc.im2col' op expects result shape [1, 1, 36, 36], but got [1, 1, 36, 64]}}
  %0 = dlc.im2col %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x1x36x64xf32>
  return
}

// -----

func.func @slice_strides_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.slice' op expects 2 strides, but got 1}}
  %0 = dlc.slice %x {start = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @slice_strides_positive(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.slice' op expects positive strides, but got [2, 0]}}
  %0 = dlc.slice %x {start = array<i64: 0, 0>, strides = array<i64: 2, 0>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @slice_strides_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dlc.slice' op slice of 3 elements from 2 with stride 3 of dimension 1 is out of bounds for size 8}}
  %0 = dlc.slice %x {start = array<i64: 0, 2>, strides = array<i64: 1, 3>} : (tensor<4x8xf32>) -> tensor<4x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Discardable attributes (ir/Attributes.h)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'func.func' op has an unknown dlc attribute 'dlc.arena_size'}}
func.func @unknown_attribute() attributes {dlc.arena_size = 0 : i64} {
  return
}

// -----

func.func @amax_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.exp' op expects 'dlc.amax' as an f64 on an op of one result}}
  %0 = dlc.exp %x {dlc.amax = 1.0 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @amax_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.exp' op has a 'dlc.amax' that is negative or NaN (-1.000000e+00)}}
  %0 = dlc.exp %x {dlc.amax = -1.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @calibrated_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.exp' op expects 'dlc.calibrated' as a unit attribute on a function}}
  %0 = dlc.exp %x {dlc.calibrated} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @precision_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.exp' op expects 'dlc.precision' to be "f32" (the only storage type an op can be pinned to), but got "bf16"}}
  %0 = dlc.exp %x {dlc.precision = "bf16"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op expects 'dlc.arena_bytes' to be an i64, but got "256"}}
func.func @arena_kind() attributes {dlc.arena_bytes = "256"} {
  return
}

// -----

// expected-error @+1 {{'func.func' op has a negative 'dlc.intermediate_bytes' (-1)}}
func.func @intermediate_negative() attributes {dlc.intermediate_bytes = -1 : i64} {
  return
}

// -----

func.func @offsets_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.kernel' op expects 'dlc.offsets' to be an array<i64>, but got [0]}}
  %k = dlc.kernel(%x) {dlc.offsets = [0]} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = dlc.exp %a : tensor<4xf32>
    dlc.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @fusion_notes_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.kernel' op expects 'dlc.fusion_notes' on a dlc.kernel, as an array of {operand|result = index, reason = "..."}}}
  %k = dlc.kernel(%x) {dlc.fusion_notes = [{operand = 0 : i64}]} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = dlc.exp %a : tensor<4xf32>
    dlc.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @cast_scale_not_fp8(%x: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @+1 {{'dlc.cast' op has a scale, which is for casts from f32, f16 or bf16 to f8E4M3FN only}}
  %0 = dlc.cast %x {scale = 2.0} : tensor<4xf32> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @cast_scale_negative(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'dlc.cast' op scale must be positive and finite, but is -2}}
  %0 = dlc.cast %x {scale = -2.0} : tensor<4xf32> -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @fp8_matmul_f32_result(%a: tensor<4x16xf8E4M3FN>, %b: tensor<16x16xf8E4M3FN>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'dlc.matmul' op expects a bf16 or f16 result for f8E4M3FN operands, but got 'f32'}}
  %0 = dlc.matmul %a, %b {transpose_b} : (tensor<4x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @fp8_matmul_layout(%a: tensor<4x16xf8E4M3FN>, %b: tensor<16x16xf8E4M3FN>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{'dlc.matmul' op expects f8E4M3FN operands with transpose_b and without transpose_a (cuBLASLt's FP8 layout)}}
  %0 = dlc.matmul %a, %b : (tensor<4x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

func.func @scale_not_fp8(%a: tensor<4x16xbf16>, %b: tensor<16x16xbf16>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{'dlc.matmul' op lhs_scale is for f8E4M3FN operands only}}
  %0 = dlc.matmul %a, %b {lhs_scale = 2.0} : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

func.func @fp8_scale_zero(%a: tensor<4x16xf8E4M3FN>, %b: tensor<16x16xf8E4M3FN>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{'dlc.matmul' op rhs_scale must be positive and finite, but is 0}}
  %0 = dlc.matmul %a, %b {rhs_scale = 0.0, transpose_b} : (tensor<4x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

// expected-error @+1 {{'func.func' op expects 'dlc.amax' on argument #0 as an f64 >= 0, but got -1.000000e+00 : f64}}
func.func @arg_amax_negative(%x: tensor<4xf32> {dlc.amax = -1.0 : f64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op has an unknown dlc argument attribute 'dlc.range' on argument #0}}
func.func @arg_unknown(%x: tensor<4xf32> {dlc.range = 1.0 : f64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @from_conv_not_matmul(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.exp' op expects 'dlc.from_conv' as a unit attribute on a dlc.matmul}}
  %0 = dlc.exp %x {dlc.from_conv} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @view_not_contiguous(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'dlc.slice' op expects 'dlc.view' on a dlc.slice that selects a contiguous block of its operand}}
  %0 = dlc.slice %x {start = array<i64: 0, 2>, dlc.view} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @view_not_slice(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.exp' op expects 'dlc.view' as a unit attribute on a dlc.slice}}
  %0 = dlc.exp %x {dlc.view} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @channels_last_not_conv(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.exp' op expects 'dlc.channels_last' as a unit attribute on a dlc.conv2d}}
  %0 = dlc.exp %x {dlc.channels_last} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op expects 'dlc.layouts' on a function, as an array of {layout = "nhwc"|"nchw", convolutions = n, bytes_saved = b, reason = "..."}}}
func.func @layouts_bad_layout(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.layouts = [{layout = "chwn", convolutions = 1 : i64, bytes_saved = 0 : i64, reason = "r"}]} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op expects 'dlc.layouts' on a function}}
func.func @layouts_negative(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.layouts = [{layout = "nhwc", convolutions = -1 : i64, bytes_saved = 0 : i64, reason = "r"}]} {
  return %x : tensor<4xf32>
}

// -----

func.func @layouts_not_function(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.exp' op expects 'dlc.layouts' on a function}}
  %0 = dlc.exp %x {dlc.layouts = []} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conv_asymmetric(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>) -> tensor<1x7x7x6xf32> {
  // expected-error @+1 {{'dlc.conv' op expects symmetric pads (top = bottom, left = right), but got [1, 1, 0, 0]}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>) -> tensor<1x7x7x6xf32>
  return %0 : tensor<1x7x7x6xf32>
}

// -----

func.func @conv_filter(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x2xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'dlc.conv' op expects a filter of shape [OC, KH, KW, C/groups] with C/groups = 4, but got [6, 3, 3, 2]}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x2xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'dlc.conv' op expects groups (3) to be positive and to divide the 4 input channels and the 6 output channels}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 3 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_type(%x: tensor<1x8x8x4xf8E4M3FN>, %w: tensor<6x3x3x4xf8E4M3FN>) -> tensor<1x8x8x6xf8E4M3FN> {
  // expected-error @+1 {{'dlc.conv' op convolves 'f8E4M3FN' tensors; library convolutions take f32, f16 and bf16}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf8E4M3FN>, tensor<6x3x3x4xf8E4M3FN>) -> tensor<1x8x8x6xf8E4M3FN>
  return %0 : tensor<1x8x8x6xf8E4M3FN>
}

// -----

func.func @conv_bias(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'dlc.conv' op expects a bias of 6 'f32' elements, but got 'tensor<4xf32>'}}
  %0 = dlc.conv %x, %w bias(%b) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>, tensor<4xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_addend(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>, %z: tensor<1x8x8x4xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'dlc.conv' op expects an addend of the result's type 'tensor<1x8x8x6xf32>', but got 'tensor<1x8x8x4xf32>'}}
  %0 = dlc.conv %x, %w addend(%z) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_gelu(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'dlc.conv' op takes a relu epilogue or none, not gelu_tanh}}
  %0 = dlc.conv %x, %w epilogue(gelu_tanh) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_result(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>) -> tensor<1x8x8x5xf32> {
  // expected-error @+1 {{'dlc.conv' op}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>) -> tensor<1x8x8x5xf32>
  return %0 : tensor<1x8x8x5xf32>
}

// -----

func.func @dropout_int(%x: tensor<4xi32>, %o: tensor<1xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{expects a floating-point tensor}}
  %0 = dlc.dropout %x, %o {ratio = 0.5 : f64, seed = 0 : i64, stream = 0 : i64} : (tensor<4xi32>, tensor<1xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @dropout_offset(%x: tensor<4x2xf32>, %o: tensor<2x1xi64>) -> tensor<4x2xf32> {
  // expected-error @+1 {{expects an i64 offset of one element and rank 2}}
  %0 = dlc.dropout %x, %o {ratio = 0.5 : f64, seed = 0 : i64, stream = 0 : i64} : (tensor<4x2xf32>, tensor<2x1xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @dropout_offset_type(%x: tensor<4xf32>, %o: tensor<1xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects an i64 offset}}
  %0 = dlc.dropout %x, %o {ratio = 0.5 : f64, seed = 0 : i64, stream = 0 : i64} : (tensor<4xf32>, tensor<1xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_ratio(%x: tensor<4xf32>, %o: tensor<1xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{expects a ratio in [0, 1], but got 1.5}}
  %0 = dlc.dropout %x, %o {ratio = 1.5 : f64, seed = 0 : i64, stream = 0 : i64} : (tensor<4xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_result(%x: tensor<4xf32>, %o: tensor<1xi64>) -> tensor<4xf16> {
  // expected-error @+1 {{to equal the input type}}
  %0 = dlc.dropout %x, %o {ratio = 0.5 : f64, seed = 0 : i64, stream = 0 : i64} : (tensor<4xf32>, tensor<1xi64>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @recompute_not_unit(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects 'dlc.recompute' as a unit attribute on an op with results}}
  %0 = dlc.exp %x {dlc.recompute = 1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{expects 'dlc.recompute_plan' on a function, as a string}}
func.func @recompute_plan(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.recompute_plan = 1 : i64} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{expects 'dlc.recompute_flops' on a function, as a float >= 0}}
func.func @recompute_flops(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.recompute_flops = -1.0 : f64} {
  return %x : tensor<4xf32>
}

// -----

func.func @view_unaligned(%x: tensor<32x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'dlc.slice' op is a view ('dlc.view') at element offset 48, which is not a multiple of 256 bytes}}
  %0 = dlc.slice %x {start = array<i64: 3, 0>, dlc.view} : (tensor<32x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// The view's rule belongs to the slice and runs after the slice's own
// checks: a view whose start is missing (a misspelt name) or of another
// rank gets the slice's error, not a read of what is not there (fuzz-parse).
func.func @view_without_start(%x: tensor<32x255xf32>) -> tensor<8x255xf32> {
  // expected-error @+1 {{'dlc.slice' op requires attribute 'start'}}
  %0 = dlc.slice %x {stirt = array<i64: 3, 0>, dlc.view} : (tensor<32x255xf32>) -> tensor<8x255xf32>
  return %0 : tensor<8x255xf32>
}

// -----

func.func @view_start_of_other_rank(%x: tensor<32x255xf32>) -> tensor<8x255xf32> {
  // expected-error @+1 {{'dlc.slice' op expects start and result of the input's rank 2}}
  %0 = dlc.slice %x {start = array<i64: 3>, dlc.view} : (tensor<32x255xf32>) -> tensor<8x255xf32>
  return %0 : tensor<8x255xf32>
}

// -----

// The dialect's attributes are verified before the op's invariants: a
// parameter's name on a constant of no result (the generic form) is an
// error, not a read of a result that is not there.
func.func @param_on_constant_without_result() {
  // expected-error @+1 {{'dlc.constant' op expects 'dlc.param' on a float dlc.constant, as the parameter's name}}
  "dlc.constant"() {value = dense<1.0> : tensor<2xf32>, dlc.param = "w"} : () -> ()
  return
}
