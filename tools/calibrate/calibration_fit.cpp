#include "tools/calibrate/calibration_fit.h"

#include <cmath>
#include <map>

namespace ascendsim::tools {

bool fitLine(const std::vector<double>& x, const std::vector<double>& y, LineFit& fit) {
  const double n = static_cast<double>(x.size());
  if (x.size() < 2 || x.size() != y.size()) return false;
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0) return false;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  return true;
}

bool slopeRatio(const std::vector<CopyTime>& measured, const std::vector<double>& simulated,
                double& ratio) {
  struct Columns {
    std::vector<double> size, meas, sim;
  };
  std::map<std::string, Columns> byDirection;
  for (size_t i = 0; i < measured.size(); ++i) {
    Columns& c = byDirection[measured[i].direction];
    c.size.push_back(static_cast<double>(measured[i].size));
    c.meas.push_back(measured[i].seconds);
    c.sim.push_back(simulated[i]);
  }
  double logSum = 0;
  int used = 0;
  for (const auto& [direction, c] : byDirection) {
    LineFit m, s;
    if (!fitLine(c.size, c.meas, m) || !fitLine(c.size, c.sim, s) || m.slope <= 0 || s.slope <= 0)
      continue;
    logSum += std::log(m.slope / s.slope);
    ++used;
  }
  if (used == 0) return false;
  ratio = std::exp(logSum / used);
  return true;
}

double bestShift(const std::vector<CopyTime>& measured, const std::vector<double>& simulated) {
  // d/dshift sum w_i (sim_i + shift - meas_i)^2 = 0 with w_i = 1 / meas_i^2.
  double num = 0, den = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    const double w = 1.0 / (measured[i].seconds * measured[i].seconds);
    num += w * (measured[i].seconds - simulated[i]);
    den += w;
  }
  return den > 0 ? num / den : 0;
}

Residuals residualsOf(const std::vector<CopyTime>& measured, const std::vector<double>& simulated) {
  Residuals r;
  double squares = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    const double e = (simulated[i] - measured[i].seconds) / measured[i].seconds;
    r.relative.push_back(e);
    squares += e * e;
    if (std::fabs(e) > std::fabs(r.relative[r.worst])) r.worst = i;
  }
  r.rms = measured.empty() ? 0 : std::sqrt(squares / static_cast<double>(measured.size()));
  return r;
}

}  // namespace ascendsim::tools
