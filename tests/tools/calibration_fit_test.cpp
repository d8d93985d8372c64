// The fit arithmetic of `ascendsim calibrate`, on tables whose answers are written out here.
#include <gtest/gtest.h>

#include <cmath>

#include "tools/calibrate/calibration_fit.h"

namespace ascendsim::tools {
namespace {

std::vector<CopyTime> table(double setupSeconds, double bytesPerSecond) {
  std::vector<CopyTime> rows;
  for (const char* dir : {"h2d", "d2h"}) {
    for (uint64_t size : {4096ull, 1ull << 20, 64ull << 20}) {
      rows.push_back({size, dir, setupSeconds + static_cast<double>(size) / bytesPerSecond, 0});
    }
  }
  return rows;
}

std::vector<double> secondsOf(const std::vector<CopyTime>& rows) {
  std::vector<double> s;
  for (const CopyTime& r : rows) s.push_back(r.seconds);
  return s;
}

TEST(CalibrationFit, LineThroughExactPoints) {
  // 10 us + bytes / 25 GB/s: intercept 1e-5 s, slope 4e-11 s/B.
  LineFit f;
  ASSERT_TRUE(fitLine({0, 1e6, 1e9}, {1e-5, 1e-5 + 4e-5, 1e-5 + 4e-2}, f));
  EXPECT_NEAR(f.intercept, 1e-5, 1e-12);
  EXPECT_NEAR(f.slope, 4e-11, 1e-20);
  EXPECT_FALSE(fitLine({5, 5}, {1, 2}, f));  // one size: no slope
}

TEST(CalibrationFit, RateRatioIsTheSlopeRatio) {
  // Measured at 20 GB/s, simulated at 25 GB/s: each byte takes 25/20 = 1.25 times as long.
  double ratio = 0;
  ASSERT_TRUE(slopeRatio(table(1e-5, 20e9), secondsOf(table(3e-6, 25e9)), ratio));
  EXPECT_NEAR(ratio, 1.25, 1e-9);
}

TEST(CalibrationFit, ShiftIsTheMissingFixedCost) {
  // The same rate, 2 us versus 9 us per copy: every simulated copy needs 7 us more.
  EXPECT_NEAR(bestShift(table(9e-6, 25e9), secondsOf(table(2e-6, 25e9))), 7e-6, 1e-12);
}

TEST(CalibrationFit, ResidualsAreRelative) {
  const std::vector<CopyTime> measured = {{4096, "h2d", 1e-5, 2}, {8192, "h2d", 2e-5, 3}};
  const Residuals r = residualsOf(measured, {1.1e-5, 1.9e-5});  // +10 %, -5 %
  EXPECT_NEAR(r.relative[0], 0.10, 1e-12);
  EXPECT_NEAR(r.relative[1], -0.05, 1e-12);
  EXPECT_NEAR(r.rms, std::sqrt((0.01 + 0.0025) / 2), 1e-12);
  EXPECT_EQ(r.worst, 0u);
}

}  // namespace
}  // namespace ascendsim::tools
