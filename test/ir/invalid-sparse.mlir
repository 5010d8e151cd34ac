// RUN: not dlc-opt %s 2>&1 | FileCheck %s
// RUN: not dlc compile %s -o %t.dlcpkg 2>&1 | FileCheck %s
// MLIR 19's parser crashes on sparse literals whose indices or values are of
// the wrong kind (found by fuzz-parse); dlc rejects every sparse literal
// before parsing, with its location. The `sparse<` in this comment, in the
// string below and in names is not a literal.

// CHECK: invalid-sparse.mlir:[[@LINE+3]]:21: error: sparse elements attributes are not supported by dlc; write the constant as dense<...> or dense_resource<...>
// CHECK-NOT: error
func.func @main() -> tensor<2xf32> attributes {note = "sparse<[[0]], [1.0]>"} {
  %0 = dlc.constant sparse<[[0.5]], [1.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
