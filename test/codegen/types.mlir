// RUN: dlc compile %s --emit=cuda --no-merge-kernels | FileCheck %s
// RUN: dlc run %s --device=sim --check --seed=13 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// (--no-merge-kernels keeps each kernel below a launch of its own, as written;
// the sim run checks them merged.)
// Storage and compute types: f16/bf16 are loaded into float and every f16
// or bf16 result is rounded to its type; integers wrap; booleans are bytes.

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

// NVRTC: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM: check output_3: relative error {{.*}} ok
// SIM: check output_4: relative error {{.*}} ok
// SIM: check output_5: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%bf: tensor<6x5xbf16>, %h: tensor<6x5xf16>, %x: tensor<6x5xf32>, %i: tensor<6x5xi32>, %p: tensor<6x5xi1>, %q: tensor<6x5xi1>) -> (tensor<6x5xbf16>, tensor<6x5xi32>, tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf16>, tensor<6x5xi64>) {
  %k0 = dlc.kernel (%bf, %h) : (tensor<6x5xbf16>, tensor<6x5xf16>) -> tensor<6x5xbf16> {
  ^bb0(%a0: tensor<6x5xbf16>, %a1: tensor<6x5xf16>):
    %0 = dlc.cast %a1 : tensor<6x5xf16> -> tensor<6x5xbf16>
    %1 = dlc.mul %a0, %0 : (tensor<6x5xbf16>, tensor<6x5xbf16>) -> tensor<6x5xbf16>
    dlc.yield %1 : tensor<6x5xbf16>
  }
  %k1:2 = dlc.kernel (%x, %i) : (tensor<6x5xf32>, tensor<6x5xi32>) -> (tensor<6x5xi32>, tensor<6x5xi1>) {
  ^bb0(%a0: tensor<6x5xf32>, %a1: tensor<6x5xi32>):
    %ten = dlc.constant dense<10.0> : tensor<6x5xf32>
    %0 = dlc.mul %a0, %ten : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %1 = dlc.cast %0 : tensor<6x5xf32> -> tensor<6x5xi32>
    %one = dlc.constant dense<1> : tensor<6x5xi32>
    %2 = dlc.add %a1, %one : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    %3 = dlc.div %1, %2 : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    %4 = dlc.cmp gt, %1, %a1 : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi1>
    %5 = dlc.select %4, %3, %a1 : (tensor<6x5xi1>, tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    dlc.yield %5, %4 : tensor<6x5xi32>, tensor<6x5xi1>
  }
  %k2 = dlc.kernel (%p, %q) : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xf32> {
  ^bb0(%a0: tensor<6x5xi1>, %a1: tensor<6x5xi1>):
    %0 = dlc.not %a0 : tensor<6x5xi1>
    %1 = dlc.and %0, %a1 : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xi1>
    %2 = dlc.or %1, %a0 : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xi1>
    %3 = dlc.cast %2 : tensor<6x5xi1> -> tensor<6x5xf32>
    dlc.yield %3 : tensor<6x5xf32>
  }
  %k3:2 = dlc.kernel (%h, %i) : (tensor<6x5xf16>, tensor<6x5xi32>) -> (tensor<6x5xf16>, tensor<6x5xi64>) {
  ^bb0(%a0: tensor<6x5xf16>, %a1: tensor<6x5xi32>):
    %0 = dlc.clamp %a0 {min = -0.5 : f64, max = 0.25 : f64} : tensor<6x5xf16>
    %1 = dlc.cast %a1 : tensor<6x5xi32> -> tensor<6x5xi64>
    %big = dlc.constant dense<3000000000> : tensor<6x5xi64>
    %2 = dlc.mul %1, %big : (tensor<6x5xi64>, tensor<6x5xi64>) -> tensor<6x5xi64>
    dlc.yield %0, %2 : tensor<6x5xf16>, tensor<6x5xi64>
  }
  return %k0, %k1#0, %k1#1, %k2, %k3#0, %k3#1 : tensor<6x5xbf16>, tensor<6x5xi32>, tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf16>, tensor<6x5xi64>
}
