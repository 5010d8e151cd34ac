// A dense_resource constant whose type declares far more elements than its
// blob holds is refused, naming the sizes, before the package grows by the
// type's size: a 4-byte blob typed as 2^38 floats is a clear error, not a
// 1 TiB allocation (fuzz-pipeline found the 16 GiB case).
// RUN: not dlc compile %s --no-cubin --no-cache -o %t.dlcpkg 2>&1 | FileCheck %s
// CHECK: error: 'dlc.constant' op the resource 'w' holds 4 bytes, but tensor<274877906944xf32> needs 1099511627776 (274877906944 elements of 4 bytes)
func.func @main() -> tensor<274877906944xf32> {
  %0 = "dlc.constant"() {value = dense_resource<w> : tensor<274877906944xf32>} : () -> tensor<274877906944xf32>
  return %0 : tensor<274877906944xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F"
    }
  }
#-}
