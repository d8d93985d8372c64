#pragma once
// `ascendsim view TRACE.json [--report REPORT.json] -o TRACE.html`: one self-contained HTML file
// (no network, no CDN) that draws the trace.

#include <CLI/CLI.hpp>

namespace ascendsim::tools {

// The viewer page for `traceJson` (and `reportJson`, may be empty), ready to write to a file.
std::string renderViewer(const std::string& traceJson, const std::string& reportJson);

}  // namespace ascendsim::tools
