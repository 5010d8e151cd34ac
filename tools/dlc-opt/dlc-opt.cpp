//===- dlc-opt.cpp - mlir-opt with the dlc dialect and passes -------------===//
#include "ir/Dialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::dlc::registerDlcPassesAndPipelines();
  mlir::DialectRegistry registry;
  registry.insert<mlir::dlc::DlcDialect, mlir::func::FuncDialect,
                  mlir::tosa::TosaDialect, mlir::arith::ArithDialect,
                  mlir::tensor::TensorDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "dlc optimizer driver\n", registry));
}
