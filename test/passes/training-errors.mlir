// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-autodiff='loss=cross_entropy'

// expected-error @+1 {{has no parameters to train: mark arguments or constants with 'dlc.param = "name"'}}
func.func @no_params(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}

// -----

// expected-error @+1 {{cross_entropy takes logits [batch, classes] as the first result, not 'tensor<3xf32>'}}
func.func @vector(%w: tensor<3xf32> {dlc.param = "w"}) -> tensor<3xf32> {
  return %w : tensor<3xf32>
}

// -----

// expected-error @+1 {{has two parameters named 'w'}}
func.func @twice(%a: tensor<1x3xf32> {dlc.param = "w"}, %b: tensor<1x3xf32> {dlc.param = "w"}) -> tensor<1x3xf32> {
  %s = dlc.add %a, %b : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  return %s : tensor<1x3xf32>
}

// -----

func.func @no_rule(%w: tensor<1x1x2x2xf32> {dlc.param = "w"}) -> tensor<1x16xf32> {
  // expected-error @+1 {{'dlc.resize' op has no gradient rule}}
  %r = dlc.resize %w {mode = "nearest"} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  %f = dlc.reshape %r : tensor<1x1x4x4xf32> -> tensor<1x16xf32>
  return %f : tensor<1x16xf32>
}

// -----

func.func @gather_columns(%w: tensor<3x5xf32> {dlc.param = "table"}, %ids: tensor<2xi64>) -> tensor<3x2xf32> {
  // expected-error @+1 {{has no gradient rule for a gather along axis 1 yet (embeddings gather along 0)}}
  %g = dlc.gather %w, %ids {axis = 1 : i64} : (tensor<3x5xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %g : tensor<3x2xf32>
}

// -----

// The attributes of a training step are verified.
// expected-error @+1 {{'func.func' op expects the parameter argument #0 to be a float tensor}}
func.func @int_param(%w: tensor<3xi32> {dlc.param = "w"}) -> tensor<3xi32> {
  return %w : tensor<3xi32>
}

// -----

// expected-error @+1 {{'func.func' op expects 'dlc.initial' on argument #0 as elements of the argument's type}}
func.func @initial_type(%w: tensor<3xf32> {dlc.param = "w", dlc.initial = dense<0.0> : tensor<4xf32>}) -> tensor<3xf32> {
  return %w : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op has 'dlc.initial' on argument #0, which is neither a parameter nor state}}
func.func @initial_alone(%w: tensor<3xf32> {dlc.initial = dense<0.0> : tensor<3xf32>}) -> tensor<3xf32> {
  return %w : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op has 'dlc.gradient_of' on result #0 for argument #1, which is not a parameter}}
func.func @gradient_of_input(%w: tensor<3xf32> {dlc.param = "w"}, %x: tensor<3xf32>) -> (tensor<3xf32> {dlc.gradient_of = 1 : i64}) {
  return %x : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op expects 'dlc.updates' on result #0 as the i64 index of one of the function's arguments}}
func.func @updates_out_of_range(%w: tensor<3xf32> {dlc.param = "w"}) -> (tensor<3xf32> {dlc.updates = 7 : i64}) {
  return %w : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op has 'dlc.updates' on result #0 of type 'tensor<2xf32>' for argument #0 of type 'tensor<3xf32>'}}
func.func @updates_type(%w: tensor<3xf32> {dlc.param = "w"}, %x: tensor<2xf32>) -> (tensor<2xf32> {dlc.updates = 0 : i64}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{has an empty first result; a mean over no elements is not a loss}}
func.func @empty(%w: tensor<0x3xf32> {dlc.param = "w"}) -> tensor<0x3xf32> {
  return %w : tensor<0x3xf32>
}

// -----

// expected-error @+1 {{needs a float first result to build the loss on}}
func.func @integer_result(%w: tensor<3xf32> {dlc.param = "w"}, %i: tensor<2x3xi32>) -> tensor<2x3xi32> {
  return %i : tensor<2x3xi32>
}

// -----

// expected-error @+1 {{dlc-autodiff differentiates single-block functions}}
func.func @two_blocks(%w: tensor<2x3xf32> {dlc.param = "w"}) -> tensor<2x3xf32> {
  return %w : tensor<2x3xf32>
^unreachable:
  return %w : tensor<2x3xf32>
}

// -----

func.func @param_in_kernel(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %k = dlc.kernel (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    // expected-error @+1 {{is a parameter inside a region; parameters live in the function's body}}
    %c = dlc.constant {dlc.param = "c"} dense<1.0> : tensor<2x3xf32>
    %s = dlc.add %a, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    dlc.yield %s : tensor<2x3xf32>
  }
  return %k : tensor<2x3xf32>
}

// -----

func.func @int_constant_param() -> tensor<2x3xi32> {
  // expected-error @+1 {{'dlc.constant' op expects 'dlc.param' on a float dlc.constant, as the parameter's name}}
  %c = dlc.constant {dlc.param = "c"} dense<1> : tensor<2x3xi32>
  return %c : tensor<2x3xi32>
}

// -----

// expected-error @+1 {{'func.func' op expects 'dlc.state' on argument #0 of a function, as a non-empty name}}
func.func @empty_state(%s: tensor<3xf32> {dlc.state = ""}) -> tensor<3xf32> {
  return %s : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op has more than one of 'dlc.param', 'dlc.state' and 'dlc.buffer' on argument #0}}
func.func @both(%s: tensor<3xf32> {dlc.state = "s", dlc.param = "p"}) -> tensor<3xf32> {
  return %s : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op has an unknown dlc result attribute 'dlc.gradient' on result #0}}
func.func @unknown_result_attr(%w: tensor<3xf32> {dlc.param = "w"}) -> (tensor<3xf32> {dlc.gradient = 0 : i64}) {
  return %w : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op has 'dlc.updates' on result #0 for argument #1, which is neither a parameter nor state}}
func.func @updates_input(%w: tensor<3xf32> {dlc.param = "w"}, %x: tensor<3xf32>) -> (tensor<3xf32> {dlc.updates = 1 : i64}) {
  return %x : tensor<3xf32>
}

// -----

func.func @channels_last(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32> {dlc.param = "w"}) -> tensor<1x32xf32> {
  // expected-error @+1 {{has no gradient rule in the channels-last layout (differentiate before dlc-assign-layout)}}
  %y = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, dlc.channels_last} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r = dlc.reshape %y : tensor<1x2x4x4xf32> -> tensor<1x32xf32>
  return %r : tensor<1x32xf32>
}

// -----

func.func @bf16_pool(%w: tensor<1x1x4x4xbf16> {dlc.param = "w"}) -> tensor<1x4xbf16> {
  // expected-error @+1 {{has no gradient rule for pooling 'bf16' yet}}
  %p = dlc.pool2d max %w {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xbf16>) -> tensor<1x1x2x2xbf16>
  %r = dlc.reshape %p : tensor<1x1x2x2xbf16> -> tensor<1x4xbf16>
  return %r : tensor<1x4xbf16>
}

// -----

// expected-error @+1 {{expects 'dlc.micro_batches' on a function, as an i64 from 2 to 65536}}
func.func @one_micro_batch(%w: tensor<3xf32> {dlc.param = "w"}) -> tensor<3xf32> attributes {dlc.micro_batches = 1 : i64} {
  return %w : tensor<3xf32>
}

// -----

func.func @param_and_buffer(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'dlc.constant' op has both 'dlc.param' and 'dlc.buffer'}}
  %w = dlc.constant {dlc.param = "w", dlc.buffer = "w"} dense<1.0> : tensor<3xf32>
  %y = dlc.add %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// expected-error @+1 {{expects 'dlc.buffer_update' on result #1 as the non-empty name of a buffer}}
func.func @unnamed_update(%w: tensor<1x3xf32> {dlc.param = "w"}) -> (tensor<1x3xf32>, tensor<1x3xf32> {dlc.buffer_update = ""}) {
  return %w, %w : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// expected-error @+1 {{expects 'dlc.step_skipped' on result #1 as a unit attribute on a tensor<f32> result}}
func.func @skipped_vector(%w: tensor<1x3xf32> {dlc.param = "w"}) -> (tensor<1x3xf32>, tensor<1x3xf32> {dlc.step_skipped}) {
  return %w, %w : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// expected-error @+1 {{result #1 updates 'bn.running_mean', which is no buffer of the function}}
func.func @no_such_buffer(%w: tensor<1x3xf32> {dlc.param = "w"}) -> (tensor<1x3xf32>, tensor<1x3xf32> {dlc.buffer_update = "bn.running_mean"}) {
  %e = dlc.exp %w : tensor<1x3xf32>
  return %e, %w : tensor<1x3xf32>, tensor<1x3xf32>
}
