#pragma once
// The arithmetic of `ascendsim calibrate`: how far the simulated copy times are from measured
// ones, and which way to move the two settings it fits.
//  - root_complex.efficiency scales the rate of large copies: the ratio of measured to simulated
//    time per byte (the slope of time over size, per direction) says how much.
//  - dma.setup_latency adds the same time to every copy: the shift that minimises the squared
//    relative error of all rows says how much.

#include <string>
#include <vector>

#include "tools/calibrate/copy_times.h"

namespace ascendsim::tools {

// seconds = intercept + slope * bytes, fitted by least squares.
struct LineFit {
  double intercept = 0;
  double slope = 0;
};
// Needs at least two different x values; returns false otherwise.
bool fitLine(const std::vector<double>& x, const std::vector<double>& y, LineFit& fit);

// Time per byte measured over time per byte simulated, as the geometric mean over the directions
// that have at least two sizes (1: they agree; above 1: the machine is slower than the model).
// `simulated[i]` is the simulated time of `measured[i]`. Returns false if no direction has two
// sizes.
bool slopeRatio(const std::vector<CopyTime>& measured, const std::vector<double>& simulated,
                double& ratio);

// The time to add to every simulated copy to minimise sum(((sim + shift) - meas) / meas)^2.
double bestShift(const std::vector<CopyTime>& measured, const std::vector<double>& simulated);

// Relative errors (sim - meas) / meas, their root mean square and the worst row.
struct Residuals {
  std::vector<double> relative;
  double rms = 0;
  size_t worst = 0;
};
Residuals residualsOf(const std::vector<CopyTime>& measured, const std::vector<double>& simulated);

}  // namespace ascendsim::tools
