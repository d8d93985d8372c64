#pragma once
// The validation cases of `ascendsim validate` (docs/validation.md): every figure the simulator
// is compared with outside it, declared once each. A case names its reference (a published
// measurement or an established simulator's output, with where it was published), the
// tolerance and why, what was fitted to what, and the measurement that produces the model's
// figure. A measurement runs the model through the paths users use (the bandwidth tool's tests,
// the DRAM model on a generated request stream, the AscendCL runtime, the collectives bench) on
// a named machine; it runs in a process of its own (SystemC elaborates one machine per process),
// so nothing is computed ahead of time.

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ascendsim::tools::validate {

// A measurement's figures by name ("h2d", "bidir d2h", "random read" ...).
using Figures = std::map<std::string, double>;

struct Measurement {
  std::string id;       // what `--case` and the progress lines name
  std::string machine;  // the machine (preset or file, settings) and the workload, for the table
  std::function<Figures()> run;  // throws std::exception on failure
};

// How the model's figure relates to the reference.
enum class Basis {
  Predicted,   // nothing was set from this reference
  Fitted,      // a setting was fitted to this figure: the case shows the limit is honoured
  Calibrated,  // a preset's assumed cost was set from this figure (a calibration reproduced)
  Assumed,     // the figure rests on an assumed setting named in the tolerance's reason
};
const char* basisName(Basis basis);

struct ValidationCase {
  std::string id;            // area/what, unique; `--case` matches it
  std::string area;          // as issue #30 lists them: bidirectional, eight devices to host, ...
  std::string what;          // the figure, in words
  double low = 0, high = 0;  // the reference: one figure (low == high) or a published range
  std::string unit;          // "GB/s" or "us"
  std::string source;        // who published it, with the URL and commit or version
  double tolerance = 0;      // accepted relative distance from the range
  std::string why;           // why that tolerance
  std::string measurement;   // the Measurement::id that gives the model's figure
  std::string figure;        // which of its figures
  Basis basis = Basis::Predicted;
  bool quick = false;     // part of `--quick` (CI's subset)
  std::string knownMiss;  // non-empty: a documented miss, and why; it does not fail the command
};

const std::vector<Measurement>& measurements();
const std::vector<ValidationCase>& cases();

// Relative distance of `model` from [low, high]: 0 inside, else from the nearer end.
double gapFromRange(double model, double low, double high);

}  // namespace ascendsim::tools::validate
