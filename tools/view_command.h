#pragma once
// `ascendsim view TRACE.json [--report REPORT.json] -o TRACE.html`: one self-contained HTML file
// (no network, no CDN) that draws the trace.

#include <CLI/CLI.hpp>
#include <string>

#include "tools/viewer_input.h"

namespace ascendsim::tools {

// The viewer page for a trace's header and binary block (viewerData) and `reportJson` (may be
// empty), ready to write to a file.
std::string renderViewer(const std::string& header, const std::string& binary,
                         const std::string& reportJson);

}  // namespace ascendsim::tools
