// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// Storage and compute types: f16/bf16 are loaded into float and every f16
// or bf16 result is rounded to its type; integers wrap; booleans are bytes.
// The kernels of types.mlir as `dlc compile types.mlir --emit=fused
// --no-merge-kernels` forms them; the second RUN line builds their package and
// runs the reference interpreter on them.

// CHECK-LABEL: // k0: cast+mul
// CHECK: extern "C" __global__ void k0(const unsigned short* __restrict__ in0, const unsigned short* __restrict__ in1, unsigned short* __restrict__ out0) {
// CHECK: const float [[A:v[0-9]+]] = dlc_bf2f(in0[tid]);
// CHECK-NEXT: const float [[B:v[0-9]+]] = dlc_h2f(in1[tid]);
// CHECK-NEXT: const float [[C:v[0-9]+]] = dlc_round_bf16([[B]]);
// CHECK-NEXT: const float [[M:v[0-9]+]] = dlc_round_bf16([[A]] * [[C]]);
// CHECK-NEXT: out0[tid] = dlc_f2bf([[M]]);

// Float to integer rounds to nearest even and saturates; integer arithmetic
// goes through the wrapping helpers; comparisons give bool, stored as a byte.
// CHECK-LABEL: // k1: mul+cast+add+div+cmp+select
// CHECK: extern "C" __global__ void k1(const float* __restrict__ in0, const int* __restrict__ in1, int* __restrict__ out0, unsigned char* __restrict__ out1) {
// CHECK: const int [[I:v[0-9]+]] = dlc_f2i32({{v[0-9]+}});
// CHECK-NEXT: const int [[J:v[0-9]+]] = in1[tid];
// CHECK-NEXT: const bool [[G:v[0-9]+]] = [[I]] > [[J]];
// CHECK-NEXT: const int [[S:v[0-9]+]] = dlc_add([[J]], 1);
// CHECK-NEXT: const int [[Q:v[0-9]+]] = dlc_div([[I]], [[S]]);
// CHECK-NEXT: const int [[R:v[0-9]+]] = [[G]] ? [[Q]] : [[J]];
// CHECK: out0[{{.*}}] = [[R]];
// CHECK: out1[{{.*}}] = (unsigned char)([[G]] ? 1 : 0);

// Booleans: loaded as `!= 0`, combined with logical operators.
// CHECK-LABEL: // k2: not+and+or+cast
// CHECK: const bool [[A:v[0-9]+]] = (in0[tid] != 0);
// CHECK-NEXT: const bool [[N:v[0-9]+]] = ![[A]];
// CHECK-NEXT: const bool [[B:v[0-9]+]] = (in1[tid] != 0);
// CHECK-NEXT: const bool [[X:v[0-9]+]] = [[N]] && [[B]];
// CHECK: const bool [[Y:v[0-9]+]] = [[X]] || {{v[0-9]+}};
// CHECK-NEXT: const float [[F:v[0-9]+]] = [[Y]] ? 1.0f : 0.0f;

// Clamp bounds are converted to the element type; i32 widens to i64.
// CHECK-LABEL: // k3: clamp+cast+mul
// CHECK: fminf(fmaxf({{v[0-9]+}}, (-0.5f)), 0.25f)
// CHECK: const long long [[W:v[0-9]+]] = (long long){{v[0-9]+}};
// CHECK-NEXT: const long long {{v[0-9]+}} = dlc_mul([[W]], 3000000000LL);

func.func @main(%bf: tensor<6x5xbf16>, %h: tensor<6x5xf16>, %x: tensor<6x5xf32>, %i: tensor<6x5xi32>, %p: tensor<6x5xi1>, %q: tensor<6x5xi1>) -> (tensor<6x5xbf16>, tensor<6x5xi32>, tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf16>, tensor<6x5xi64>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %k0 = dlc.kernel(%bf, %h) {dlc.offsets = array<i64: -1>} : (tensor<6x5xbf16>, tensor<6x5xf16>) -> tensor<6x5xbf16> {
  ^bb0(%a0: tensor<6x5xbf16>, %a1: tensor<6x5xf16>):
    %0 = dlc.cast %a1 : tensor<6x5xf16> -> tensor<6x5xbf16>
    %1 = dlc.mul %a0, %0 : (tensor<6x5xbf16>, tensor<6x5xbf16>) -> tensor<6x5xbf16>
    dlc.yield %1 : tensor<6x5xbf16>
  }
  %k1_i, %k1_b = dlc.kernel(%x, %i) {dlc.offsets = array<i64: -1, -1>} : (tensor<6x5xf32>, tensor<6x5xi32>) -> (tensor<6x5xi32>, tensor<6x5xi1>) {
  ^bb0(%a0: tensor<6x5xf32>, %a1: tensor<6x5xi32>):
    %0 = dlc.constant dense<1> : tensor<6x5xi32>
    %1 = dlc.constant dense<1.000000e+01> : tensor<6x5xf32>
    %2 = dlc.mul %a0, %1 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %3 = dlc.cast %2 : tensor<6x5xf32> -> tensor<6x5xi32>
    %4 = dlc.add %a1, %0 : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    %5 = dlc.div %3, %4 : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    %6 = dlc.cmp gt, %3, %a1 : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi1>
    %7 = dlc.select %6, %5, %a1 : (tensor<6x5xi1>, tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    dlc.yield %7, %6 : tensor<6x5xi32>, tensor<6x5xi1>
  }
  %k2 = dlc.kernel(%p, %q) {dlc.offsets = array<i64: -1>} : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xf32> {
  ^bb0(%a0: tensor<6x5xi1>, %a1: tensor<6x5xi1>):
    %0 = dlc.not %a0 : tensor<6x5xi1>
    %1 = dlc.and %0, %a1 : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xi1>
    %2 = dlc.or %1, %a0 : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xi1>
    %3 = dlc.cast %2 : tensor<6x5xi1> -> tensor<6x5xf32>
    dlc.yield %3 : tensor<6x5xf32>
  }
  %k3_h, %k3_l = dlc.kernel(%h, %i) {dlc.offsets = array<i64: -1, -1>} : (tensor<6x5xf16>, tensor<6x5xi32>) -> (tensor<6x5xf16>, tensor<6x5xi64>) {
  ^bb0(%a0: tensor<6x5xf16>, %a1: tensor<6x5xi32>):
    %0 = dlc.constant dense<3000000000> : tensor<6x5xi64>
    %1 = dlc.clamp %a0 {max = 2.500000e-01 : f64, min = -5.000000e-01 : f64} : tensor<6x5xf16>
    %2 = dlc.cast %a1 : tensor<6x5xi32> -> tensor<6x5xi64>
    %3 = dlc.mul %2, %0 : (tensor<6x5xi64>, tensor<6x5xi64>) -> tensor<6x5xi64>
    dlc.yield %1, %3 : tensor<6x5xf16>, tensor<6x5xi64>
  }
  return %k0, %k1_i, %k1_b, %k2, %k3_h, %k3_l : tensor<6x5xbf16>, tensor<6x5xi32>, tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf16>, tensor<6x5xi64>
}
