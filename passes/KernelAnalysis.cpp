//===- KernelAnalysis.cpp - How a group of ops becomes one kernel ---------===//
#include "passes/KernelAnalysis.h"

using namespace mlir;
using namespace mlir::dlc;

int64_t KernelPlan::numRows() const {
  int64_t n = 1;
  for (size_t i = 0; i + numInnerDims < space.size(); ++i)
    n *= space[i];
  return n;
}

int64_t KernelPlan::rowLength() const {
  int64_t n = 1;
  for (size_t i = space.size() - numInnerDims; i < space.size(); ++i)
    n *= space[i];
  return n;
}
