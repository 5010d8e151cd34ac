// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// Bit-exact agreement with the reference on integer and boolean semantics:
// an integer becomes bf16/f16 with a single rounding (through a float
// rounded to odd), booleans wrap in one bit.
// The kernels of exact.mlir as `dlc compile exact.mlir --emit=fused` forms
// them; the second RUN line builds their package and runs the reference
// interpreter on them.

// CHECK-LABEL: // k0:
// CHECK: const bool [[Q:v[0-9]+]] = true && {{v[0-9]+}};
// CHECK: const bool {{v[0-9]+}} = !{{v[0-9]+}} || {{v[0-9]+}};
// CHECK: const bool {{v[0-9]+}} = {{v[0-9]+}} != {{v[0-9]+}};
// CHECK: dlc_round_bf16(dlc_i2f_odd((long long){{v[0-9]+}}))
// CHECK: dlc_round_f16(dlc_i2f_odd((long long){{v[0-9]+}}))

func.func @main(%a: tensor<64xi1>, %b: tensor<64xi1>, %i: tensor<64xi32>, %l: tensor<64xi64>) -> (tensor<64xi1>, tensor<64xi1>, tensor<64xi1>, tensor<64xbf16>, tensor<64xf16>, tensor<64xbf16>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %div, %pow, %add, %bf_i32, %f16_i32, %bf_i64 = dlc.kernel(%a, %b, %i, %l) {dlc.offsets = array<i64: -1, -1, -1, -1, -1, -1>} : (tensor<64xi1>, tensor<64xi1>, tensor<64xi32>, tensor<64xi64>) -> (tensor<64xi1>, tensor<64xi1>, tensor<64xi1>, tensor<64xbf16>, tensor<64xf16>, tensor<64xbf16>) {
  ^bb0(%a0: tensor<64xi1>, %a1: tensor<64xi1>, %a2: tensor<64xi32>, %a3: tensor<64xi64>):
    %0 = dlc.constant dense<true> : tensor<64xi1>
    %1 = dlc.div %a0, %0 : (tensor<64xi1>, tensor<64xi1>) -> tensor<64xi1>
    %2 = dlc.pow %a0, %a1 : (tensor<64xi1>, tensor<64xi1>) -> tensor<64xi1>
    %3 = dlc.add %a0, %a1 : (tensor<64xi1>, tensor<64xi1>) -> tensor<64xi1>
    %4 = dlc.constant dense<16842753> : tensor<64xi32>
    %5 = dlc.mul %a2, %4 : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
    %6 = dlc.cast %5 : tensor<64xi32> -> tensor<64xbf16>
    %7 = dlc.constant dense<2049> : tensor<64xi32>
    %8 = dlc.mul %a2, %7 : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
    %9 = dlc.cast %8 : tensor<64xi32> -> tensor<64xf16>
    %10 = dlc.constant dense<1152921504606846977> : tensor<64xi64>
    %11 = dlc.mul %a3, %10 : (tensor<64xi64>, tensor<64xi64>) -> tensor<64xi64>
    %12 = dlc.cast %11 : tensor<64xi64> -> tensor<64xbf16>
    dlc.yield %1, %2, %3, %6, %9, %12 : tensor<64xi1>, tensor<64xi1>, tensor<64xi1>, tensor<64xbf16>, tensor<64xf16>, tensor<64xbf16>
  }
  return %div, %pow, %add, %bf_i32, %f16_i32, %bf_i64 : tensor<64xi1>, tensor<64xi1>, tensor<64xi1>, tensor<64xbf16>, tensor<64xf16>, tensor<64xbf16>
}
