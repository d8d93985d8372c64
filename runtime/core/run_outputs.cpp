#include "runtime/core/run_outputs.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/core/errors.h"
#include "runtime/report/report_format.h"
#include "runtime/trace/output_file.h"
#include "spec/kind_registry.h"

namespace ascendsim::runtime {

void RunOutputs::attach(const spec::SystemSpec& spec, models::SimulatedSystem& system) {
  spec_ = &spec;
  system_ = &system;
  owner_ = ::getpid();
  report_ = std::make_unique<RunReport>(spec);
  system.addListener(report_.get());
  profiling_.attach(spec);
  system.addListener(&profiling_);
  const char* dram = std::getenv("ASCENDSIM_DRAM_STATS");
  if (dram && *dram ? std::string(dram) != "0" : spec.trace.dramStats) {
    memoryStats_ = std::make_unique<models::MemoryStatistics>(spec);
    system.setTrafficObserver(memoryStats_.get());
    report_->setMemoryStatistics(memoryStats_.get());
  }
}

// msprof's collection of the whole run (tools/msprof): ASCENDSIM_PROFILE is the result folder,
// ASCENDSIM_PROFILE_TYPES the ACL_PROF_* bits (ACL_PROF_ACL_API | ACL_PROF_TASK_TIME unless given).
void RunOutputs::openProfile() {
  const char* dir = std::getenv("ASCENDSIM_PROFILE");
  if (!dir || !*dir || !ownedHere() || profiling_.wholeRunActive()) return;
  uint64_t types = 0x0001 | 0x0002;
  if (const char* text = std::getenv("ASCENDSIM_PROFILE_TYPES"); text && *text) {
    char* end = nullptr;
    errno = 0;
    types = std::strtoull(text, &end, 0);
    if (errno || *end || types == 0)
      fail(ACL_ERROR_INVALID_PARAM, std::string("ASCENDSIM_PROFILE_TYPES: '") + text +
                                        "' is not a nonzero number of ACL_PROF_* bits");
  }
  profiling_.startWholeRun(dir, types);
}

// The report format the user chose (ASCENDSIM_REPORT_FORMAT, else trace.report_format), or
// empty: the report file's extension picks it.
std::string RunOutputs::chosenReportFormat() const {
  const char* env = std::getenv("ASCENDSIM_REPORT_FORMAT");
  return env && *env ? env : spec_->trace.reportFormat;
}

bool RunOutputs::openTrace() {
  openProfile();
  if (const std::string format = chosenReportFormat();
      !format.empty() && !kinds::findKind("report-format", format)) {
    std::string formats;
    for (const std::string& n : kinds::kindNames("report-format"))
      formats += (formats.empty() ? "" : ", ") + n;
    fail(ACL_ERROR_INVALID_PARAM, "ASCENDSIM_REPORT_FORMAT: unknown report format '" + format +
                                      "' (formats: " + formats + ")");
  }
  const char* env = std::getenv("ASCENDSIM_TRACE");
  const std::string path = env && *env ? env : spec_->trace.path;
  if (trace_.active() || path.empty()) return trace_.active();
  const char* reportEnv = std::getenv("ASCENDSIM_REPORT");
  const std::string report = reportEnv && *reportEnv ? reportEnv : spec_->trace.report;
  std::error_code ec;
  if (!report.empty() && std::filesystem::weakly_canonical(report, ec) ==
                             std::filesystem::weakly_canonical(path, ec)) {
    fail(ACL_ERROR_INVALID_PARAM, "the trace and the report are both to be written to '" + path +
                                      "'; give them different files");
  }
  std::string why;
  const char* format = std::getenv("ASCENDSIM_TRACE_FORMAT");
  const std::string chosen = format && *format ? format : spec_->trace.format;
  if (!chosen.empty() && !kinds::findKind("trace-format", chosen)) {
    std::string formats;
    for (const std::string& n : kinds::kindNames("trace-format"))
      formats += (formats.empty() ? "" : ", ") + n;
    fail(ACL_ERROR_INVALID_PARAM, "ASCENDSIM_TRACE_FORMAT: unknown trace format '" + chosen +
                                      "' (formats: " + formats + ")");
  }
  if (!trace_.open(path, chosen, *spec_, why, spec_->trace.maxFileSize))
    fail(ACL_ERROR_INVALID_FILE, why);
  system_->addListener(&trace_);
  spec::Picoseconds interval = spec_->trace.counterInterval;
  if (const char* text = std::getenv("ASCENDSIM_TRACE_INTERVAL"); text && *text) {
    auto parsed = spec::parseDuration(text, why);
    if (!parsed || *parsed <= 0)
      fail(ACL_ERROR_INVALID_FILE,
           "ASCENDSIM_TRACE_INTERVAL: " + (parsed ? "must be more than 0" : why));
    interval = *parsed;
  }
  trace_.attachFabric(&system_->graph().resources(), interval);
  if (memoryStats_) memoryStats_->setBinWidth(interval);
  return true;
}

const models::ResourceTable& RunOutputs::resources() const {
  static const models::ResourceTable none;
  return system_ ? system_->graph().resources() : none;
}

namespace {
// Writes `text` to `path` through PATH.partial and a rename, so `path` is complete or absent.
bool writeWhole(const std::string& path, const std::string& text, std::string& why) {
  return writeOutputFile(path, text, why);
}
}  // namespace

bool RunOutputs::writeReport(const std::vector<RuntimeWarning>& warnings) {
  if (!report_ || !ownedHere()) return true;
  if (memoryStats_) memoryStats_->finish();
  bool ok = true;
  std::string why;
  const char* env = std::getenv("ASCENDSIM_REPORT");
  const std::string path = env && *env ? env : spec_->trace.report;
  const ReportInput input{*report_, warnings, resources()};
  if (!path.empty() &&
      !writeWhole(path, renderReport(reportFormatFor(path, chosenReportFormat()), input), why)) {
    std::fprintf(stderr, "ascendsim: the report could not be written to %s: %s\n", path.c_str(),
                 why.c_str());
    ok = false;
  }
  // The summary only when asked: ASCENDSIM_SUMMARY=1 (`ascendsim exec` and `ascendsim run` set
  // it unless the user did) prints it on stderr, on lines of its own after what the program
  // printed (its stdout flushed first, a newline first); a file name writes it there; unset,
  // empty or 0, nothing.
  const char* summaryEnv = std::getenv("ASCENDSIM_SUMMARY");
  const std::string summary = summaryEnv ? summaryEnv : "";
  if (summary.empty() || summary == "0") {
    failed_ = failed_ || !ok;
    return ok;
  }
  const std::string table = renderReport("text", input);
  if (summary == "1") {
    std::fflush(stdout);
    std::fputs(("\n" + table).c_str(), stderr);
    std::fflush(stderr);
  } else if (!writeWhole(summary, table, why)) {
    std::fprintf(stderr, "ascendsim: the summary could not be written to %s: %s\n", summary.c_str(),
                 why.c_str());
    ok = false;
  }
  failed_ = failed_ || !ok;
  return ok;
}

// Once, as the trace ends, with the figures of the whole process (a program may initialise and
// finalise more than once).
bool RunOutputs::closeTrace() {
  if (!ownedHere()) return true;
  progress_.finish();
  profiling_.closeAll();
  if (memoryStats_ && trace_.active()) {
    memoryStats_->finish();
    const spec::Picoseconds end = system_->now();
    for (const auto& m : report_->memoryStatisticsArgs()) {
      trace_.memoryStatistics(m.index, m.name, end, m.args);
      const auto& memory = memoryStats_->memories()[static_cast<size_t>(m.index)];
      trace_.memoryCounters(m.index, m.name, memory.bins, memoryStats_->binWidth());
    }
  }
  const bool ok = trace_.close();
  failed_ = failed_ || !ok;
  return ok;
}

}  // namespace ascendsim::runtime
