// RUN: dlc-opt --dlc-plan-memory -verify-diagnostics %s
// RUN: not dlc-opt --dlc-plan-memory=alignment=0 %s 2>&1 | FileCheck %s --check-prefix=ALIGN

// ALIGN: error: dlc-plan-memory needs a positive alignment, but got 0

// Liveness is computed over one straight-line schedule.
// expected-error @+1 {{dlc-plan-memory expects a function with one block}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
^bb1:
  return %x : tensor<4xf32>
}
