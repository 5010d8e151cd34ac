// RUN: dlc-opt %s --verify-diagnostics --dlc-test-codegen="reference=false"
// Code generation compiles a function without calls: `dlc compile` inlines
// them first (dlc-inline-calls; test/tools/inline-calls.test). A call that
// reaches it says so, not "run dlc-fuse and dlc-plan-memory first".

func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  return %x : tensor<4xf32>
}

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  // expected-error @+1 {{'func.call' op calls '@helper'; code generation takes a function without calls (run dlc-inline-calls first)}}
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
