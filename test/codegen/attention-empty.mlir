// RUN: dlc compile %s --no-cubin --no-cache -o %t.dlcpkg --quiet
// An attention of no elements whose sequence is 2^32 queries long: the
// kernel's FLOP count is computed in closed form (a loop over the queries
// took minutes; found by fuzz-pipeline).

func.func @main(%q: tensor<4294967296x0x0x32xf16>, %kv: tensor<37x1x4x32xf16>) -> tensor<4294967296x0x0x32xf16> {
  %0 = dlc.attention %q, %kv, %kv {causal, head_offsets = array<i64: 0, 0, 0>, scale = 0.17677669529663687 : f64, seq_first} : (tensor<4294967296x0x0x32xf16>, tensor<37x1x4x32xf16>, tensor<37x1x4x32xf16>) -> tensor<4294967296x0x0x32xf16>
  return %0 : tensor<4294967296x0x0x32xf16>
}
