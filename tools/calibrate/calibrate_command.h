#pragma once
// `ascendsim calibrate MEASURED.csv --config X -o Y.yaml`: fits the host's root-complex
// efficiency and the DMA setup latency so that the probe's copy times on the simulated machine
// match the ones measured on a real one (docs/calibration.md).

#include <CLI/CLI.hpp>

namespace ascendsim::tools {

void addCalibrateCommand(CLI::App& app, int& exitCode);

}  // namespace ascendsim::tools
