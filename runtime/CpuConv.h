//===- CpuConv.h - Convolution steps on the CPU (the sim device) -*- C++
//-*-===//
#ifndef DLC_RUNTIME_CPUCONV_H
#define DLC_RUNTIME_CPUCONV_H

#include "runtime/Package.h"

namespace dlc::rt {

/// Computes convolution step `conv` (ConvStep's definition) on host memory:
/// per image and group, the windows of the input gathered into rows (host
/// scratch memory, not device traffic) and multiplied by the filter with the
/// CPU GEMM, which applies the bias, the residual and the relu and rounds
/// to the step's type once. `bias` and `addend` are null when the step has
/// none.
void cpuConv(const ConvStep &conv, const void *x, const void *filter, void *y,
             int threads = 2, const void *bias = nullptr,
             const void *addend = nullptr);

} // namespace dlc::rt

#endif // DLC_RUNTIME_CPUCONV_H
