#pragma once
// The figures of one run, by name, for comparing two runs: a run report (JSON, docs/traces.md)
// flattened to "copy_totals.H2D.GBps", "resources.npu0.link.down.busy_us", ... or a table (CSV:
// a sweep's or bandwidth's), each numeric cell named by its row's text cells and its column.

#include <string>
#include <utility>
#include <vector>

namespace ascendsim::tools {

using RunMetrics = std::vector<std::pair<std::string, double>>;  // in the order they appear

// Reads `path` (a report if it parses as a JSON object, else a CSV table). False, with `why`, if
// it is neither or holds no figure.
bool readRunMetrics(const std::string& path, RunMetrics& out, std::string& why);

}  // namespace ascendsim::tools
