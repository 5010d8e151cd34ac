// A resource key defined twice is refused by name, not as an internal error.
// RUN: not dlc compile %s --no-cubin -o %t.dlcpkg 2>&1 | FileCheck %s
// CHECK: error: the resource 'w' is defined twice in dialect_resources
func.func @main() -> tensor<1xf32> {
  %0 = "dlc.constant"() {value = dense_resource<w> : tensor<1xf32>} : () -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F",
      w: "0x040000000000803F"
    }
  }
#-}
