// RUN: dlc-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --dlc-test-codegen=reference=false
// What code generation (the package builder and the CUDA emitter) reports
// on IR it cannot compile: unplanned or wrongly planned kernels, constants
// it cannot store, values a package cannot pass, ops it cannot emit. The
// pipeline never produces such IR; a user meets these errors by feeding
// hand-written IR to a later stage.

// expected-error @+1 {{cannot pass a value of type 'tensor<?xf32>' to or from a compiled model (expected a static tensor of f32, f16, bf16, f8E4M3FN, i32, i64 or i1)}}
func.func @dynamic_input(%x: tensor<?xf32>) -> tensor<?xf32> attributes {dlc.arena_bytes = 0 : i64} {
  return %x : tensor<?xf32>
}

// -----

func.func @f64_output(%x: tensor<4xf32>) -> tensor<4xf64> attributes {dlc.arena_bytes = 0 : i64} {
  %c = arith.constant dense<1.0> : tensor<4xf64>
  // expected-error @+1 {{cannot pass a value of type 'tensor<4xf64>' to or from a compiled model}}
  return %c : tensor<4xf64>
}

// -----

func.func @unloaded_resource() -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  // expected-error @+1 {{'dlc.constant' op refers to the resource 'missing', whose data is not loaded}}
  %c = dlc.constant dense_resource<missing> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @short_resource() -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  // expected-error @+1 {{'dlc.constant' op the resource 'short' holds 8 bytes, but tensor<4xf32> needs 16 (4 elements of 4 bytes)}}
  %c = dlc.constant dense_resource<short> : tensor<4xf32>
  return %c : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F0000803F"
    }
  }
#-}

// -----

func.func @unplanned_kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  // expected-error @+1 {{'dlc.kernel' op has no 'dlc.offsets' attribute; run dlc-plan-memory before code generation}}
  %k = dlc.kernel(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = dlc.exp %a : tensor<4xf32>
    dlc.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @offsets_count(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 256 : i64} {
  // expected-error @+1 {{'dlc.kernel' op has 2 planned offsets for 1 results}}
  %k = dlc.kernel(%x) {dlc.offsets = array<i64: 0, 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = dlc.exp %a : tensor<4xf32>
    dlc.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

func.func @past_arena(%x: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {dlc.arena_bytes = 256 : i64} {
  // expected-error @+1 {{'dlc.matmul' op result #0 is planned at arena offset 256 with 16 bytes, past the arena's 256 bytes}}
  %m = dlc.matmul %x, %x {dlc.offsets = array<i64: 256>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

// -----

func.func @output_not_returned(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  // expected-error @+1 {{'dlc.kernel' op result #0 is planned into an output buffer, but no returned value is a view of it}}
  %k = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = dlc.exp %a : tensor<4xf32>
    dlc.yield %0 : tensor<4xf32>
  }
  return %x : tensor<4xf32>
}

// -----

func.func @invalid_offset(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  // expected-error @+1 {{'dlc.kernel' op has an invalid planned offset -2}}
  %k = dlc.kernel(%x) {dlc.offsets = array<i64: -2>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = dlc.exp %a : tensor<4xf32>
    dlc.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op cannot compile a function without a body}}
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// -----

// expected-error @+1 {{'func.func' op has no 'dlc.arena_bytes' attribute; run dlc-plan-memory before code generation}}
func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op has a negative 'dlc.arena_bytes' (-256)}}
func.func @negative_arena(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = -256 : i64} {
  return %x : tensor<4xf32>
}

// -----

func.func @unfused(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  // expected-error @+1 {{'dlc.exp' op cannot appear at the top level of a function given to code generation (run dlc-fuse and dlc-plan-memory first)}}
  %0 = dlc.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @no_template(%x: tensor<4xf32>, %y: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) attributes {dlc.arena_bytes = 0 : i64} {
  // expected-error @+1 {{'dlc.kernel' op has no kernel template that covers it: outputs have different shapes ([4] and [8])}}
  %k:2 = dlc.kernel(%x, %y) {dlc.offsets = array<i64: -1, -1>} : (tensor<4xf32>, tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<8xf32>):
    %0 = dlc.exp %a : tensor<4xf32>
    %1 = dlc.exp %b : tensor<8xf32>
    dlc.yield %0, %1 : tensor<4xf32>, tensor<8xf32>
  }
  return %k#0, %k#1 : tensor<4xf32>, tensor<8xf32>
}

// -----

func.func @not_emittable(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  %k = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'tosa.exp' op cannot be fused into a dlc.kernel}}
    %0 = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
    dlc.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op generated an invalid package: input #0 is too large: f32[72057594037927936, 2]}}
func.func @huge_input(%x: tensor<72057594037927936x2xf32>) -> tensor<72057594037927936x2xf32> attributes {dlc.arena_bytes = 0 : i64} {
  return %x : tensor<72057594037927936x2xf32>
}

// -----

func.func @f64_in_kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  %k = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'arith.constant' op cannot be fused into a dlc.kernel}}
    %c = arith.constant dense<1.0> : tensor<4xf64>
    dlc.yield %a : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op does not end in func.return}}
func.func @unregistered_terminator(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  "test.return"(%x) : (tensor<4xf32>) -> ()
}

// -----

func.func @resource_in_kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64} {
  %k = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'dlc.constant' op has a constant value the CUDA emitter cannot read inside a kernel (expected dense elements)}}
    %c = dlc.constant dense_resource<inkernel> : tensor<4xf32>
    %0 = dlc.add %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    dlc.yield %0 : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      inkernel: "0x04000000000000000000803F0000004000004040"
    }
  }
#-}

// -----

func.func @huge_splat() -> tensor<536870912xf32> attributes {dlc.arena_bytes = 0 : i64} {
  // expected-error @+1 {{'dlc.constant' op is a splat constant of 2147483648 bytes that the package would store expanded (at most 1073741824 bytes); compute it in the model instead (for example a broadcast of a smaller constant)}}
  %c = dlc.constant dense<1.0> : tensor<536870912xf32>
  return %c : tensor<536870912xf32>
}
