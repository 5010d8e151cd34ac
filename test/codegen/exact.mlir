// RUN: dlc run %s --device=sim --check --rtol=1e-300 --seed=19 | FileCheck %s --check-prefix=SIM
// Bit-exact agreement with the reference on integer and boolean semantics,
// end to end through fusion (the sim run, relative error 0). The tolerance
// 1e-300 is exact: two different values of dlc's element types differ by
// 2^-149 (a denormal) or more and an output's norm is below 2^150, so any
// difference is a relative error above 1e-90 (an all-zero reference
// divides by 1e-30 instead). exact-kernels.mlir checks the CUDA source of the kernel
// that fusion forms here.

// SIM: check output_0: relative error 0 (tolerance 1e-300) ok
// SIM: check output_1: relative error 0 (tolerance 1e-300) ok
// SIM: check output_2: relative error 0 (tolerance 1e-300) ok
// SIM: check output_3: relative error 0 (tolerance 1e-300) ok
// SIM: check output_4: relative error 0 (tolerance 1e-300) ok
// SIM: check output_5: relative error 0 (tolerance 1e-300) ok
// SIM-NOT: FAILED

func.func @main(%a: tensor<64xi1>, %b: tensor<64xi1>, %i: tensor<64xi32>, %l: tensor<64xi64>) -> (tensor<64xi1>, tensor<64xi1>, tensor<64xi1>, tensor<64xbf16>, tensor<64xf16>, tensor<64xbf16>) {
  %t = dlc.constant dense<true> : tensor<64xi1>
  %0 = dlc.div %a, %t : (tensor<64xi1>, tensor<64xi1>) -> tensor<64xi1>
  %1 = dlc.pow %a, %b : (tensor<64xi1>, tensor<64xi1>) -> tensor<64xi1>
  %2 = dlc.add %a, %b : (tensor<64xi1>, tensor<64xi1>) -> tensor<64xi1>
  // 2^24 + 2^16 + 1 times 0..7: int -> float -> bf16 would round twice.
  %big = dlc.constant dense<16842753> : tensor<64xi32>
  %3 = dlc.mul %i, %big : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %4 = dlc.cast %3 : tensor<64xi32> -> tensor<64xbf16>
  %k = dlc.constant dense<2049> : tensor<64xi32>
  %5 = dlc.mul %i, %k : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %6 = dlc.cast %5 : tensor<64xi32> -> tensor<64xf16>
  %huge = dlc.constant dense<1152921504606846977> : tensor<64xi64>
  %7 = dlc.mul %l, %huge : (tensor<64xi64>, tensor<64xi64>) -> tensor<64xi64>
  %8 = dlc.cast %7 : tensor<64xi64> -> tensor<64xbf16>
  return %0, %1, %2, %4, %6, %8 : tensor<64xi1>, tensor<64xi1>, tensor<64xi1>, tensor<64xbf16>, tensor<64xf16>, tensor<64xbf16>
}
