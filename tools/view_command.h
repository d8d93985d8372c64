#pragma once
// `ascendsim view TRACE.json [--report REPORT.json] -o TRACE.html`: one self-contained HTML file
// (no network, no CDN) that draws the trace.

#include <CLI/CLI.hpp>
#include <string>

#include "tools/viewer_input.h"

namespace ascendsim::tools {

// The viewer page for `trace` (read by readTrace; `cutOff` when it was cut off) and `reportJson`
// (may be empty), ready to write to a file.
std::string renderViewer(const ViewerTrace& trace, bool cutOff, const std::string& reportJson);

}  // namespace ascendsim::tools
