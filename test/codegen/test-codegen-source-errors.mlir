// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-test-codegen="source-only=true reference=false"
// The CUDA emitter on its own (generateCudaSource in codegen/Codegen.h, as
// `dlc compile --emit=cuda`): what it reports on functions it cannot emit.

// expected-error @+1 {{'func.func' op cannot generate code for a function without a body}}
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// -----

func.func @no_template(%x: tensor<4xf32>, %y: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  // expected-error @+1 {{'dlc.kernel' op has no kernel template that covers it: outputs have different shapes ([4] and [8])}}
  %k:2 = dlc.kernel(%x, %y) : (tensor<4xf32>, tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<8xf32>):
    %0 = dlc.exp %a : tensor<4xf32>
    %1 = dlc.exp %b : tensor<8xf32>
    dlc.yield %0, %1 : tensor<4xf32>, tensor<8xf32>
  }
  return %k#0, %k#1 : tensor<4xf32>, tensor<8xf32>
}
