#pragma once
// A report format: how a run's report is written. Each format is one file that registers itself
// (family "report-format") with the file extensions it answers to; a report file gets the format
// ASCENDSIM_REPORT_FORMAT, `--report-format` or `trace.report_format` names, else the one its
// extension picks, else JSON.

#include <functional>
#include <string>
#include <vector>

#include "models/resource/resource.h"
#include "runtime/report/run_report.h"
#include "spec/kind_registry.h"

namespace ascendsim::runtime {

// What a format writes: the report's figures, the run's warnings and the fabric's resources.
struct ReportInput {
  const RunReport& report;
  const std::vector<RuntimeWarning>& warnings;
  const models::ResourceTable& resources;
};

struct ReportFormatEntry {
  std::vector<std::string> extensions;  // ".json": a report file so named gets this format
  std::function<std::string(const ReportInput&)> render;
};
using ReportFormatRegistration = kinds::Registration<ReportFormatEntry>;

// The format a report written to `path` gets: `chosen` when given, else by extension, else json.
std::string reportFormatFor(const std::string& path, const std::string& chosen);

// The report in `format` (a registered name).
std::string renderReport(const std::string& format, const ReportInput& input);

}  // namespace ascendsim::runtime
