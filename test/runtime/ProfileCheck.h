//===- ProfileCheck.h - Checks of Session::profile results -------*- C++
//-*-===//
#ifndef DLC_TEST_RUNTIME_PROFILECHECK_H
#define DLC_TEST_RUNTIME_PROFILECHECK_H

#include "runtime/Runtime.h"

#include <gtest/gtest.h>

#include <vector>

namespace dlc::rt::test {

/// Checks a profile of `package`: one entry per step in order, with the
/// step's label, the expected bytes and FLOPs, times that are not negative
/// (a positive total), bandwidths consistent with bytes and time, and shares
/// summing to 1.
inline void expectProfile(const Package &package,
                          const std::vector<StepProfile> &profile,
                          const std::vector<uint64_t> &wantBytes,
                          const std::vector<double> &wantFlops) {
  ASSERT_EQ(profile.size(), package.steps.size());
  ASSERT_EQ(wantBytes.size(), package.steps.size());
  double totalMs = 0, shares = 0;
  for (size_t i = 0; i < profile.size(); ++i) {
    const StepProfile &p = profile[i];
    SCOPED_TRACE("step " + std::to_string(i) + " (" + p.label + ")");
    EXPECT_EQ(p.step, i);
    EXPECT_EQ(p.kind, package.steps[i].kind);
    EXPECT_EQ(p.label, package.steps[i].label);
    EXPECT_EQ(p.bytes, wantBytes[i]);
    EXPECT_DOUBLE_EQ(p.flops, wantFlops[i]);
    EXPECT_GE(p.milliseconds, 0.0);
    EXPECT_GE(p.share, 0.0);
    EXPECT_LE(p.share, 1.0);
    if (p.milliseconds > 0) {
      EXPECT_NEAR(p.gigabytesPerSecond(), p.bytes / (p.milliseconds * 1e6),
                  1e-9 * p.gigabytesPerSecond());
      if (p.flops > 0) {
        EXPECT_GT(p.gigaflopsPerSecond(), 0.0);
      }
    }
    totalMs += p.milliseconds;
    shares += p.share;
  }
  EXPECT_GT(totalMs, 0.0);
  EXPECT_NEAR(shares, 1.0, 1e-9);
}

} // namespace dlc::rt::test

#endif // DLC_TEST_RUNTIME_PROFILECHECK_H
