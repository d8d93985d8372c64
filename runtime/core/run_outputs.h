#pragma once
// What a run leaves behind: the timing trace, the JSON report with its summary table, and the DRAM
// statistics both include. Attached to the machine at the first aclInit; the report is written
// at every aclFinalize (or at exit), the trace closed once as the process ends.

#include <unistd.h>

#include <memory>
#include <vector>

#include "models/dram/memory_statistics.h"
#include "models/system/simulated_system.h"
#include "runtime/core/profiling.h"
#include "runtime/core/progress_title.h"
#include "runtime/report/run_report.h"
#include "runtime/trace/trace_recorder.h"
#include "spec/system_spec.h"

namespace ascendsim::runtime {

class RunOutputs {
 public:
  // The report hears every task; DRAM statistics replay every memory access when the machine's
  // `trace.dram_stats` or ASCENDSIM_DRAM_STATS (1 or 0 overrides the machine) asks for them.
  void attach(const spec::SystemSpec& spec, models::SimulatedSystem& system);
  // Opens the trace ASCENDSIM_TRACE or `trace.path` names, if any and not open yet; returns
  // whether one is open. Throws AclFailure for a path or interval it cannot use. Starts msprof's
  // collection of the whole run first when ASCENDSIM_PROFILE names a folder (tools/msprof).
  bool openTrace();
  TraceRecorder& trace() { return trace_; }
  // The program's aclprof* collections (written at aclprofStop, or as the trace closes).
  Profiling& profiling() { return profiling_; }

  // The report to ASCENDSIM_REPORT (or `trace.report`) in the format ASCENDSIM_REPORT_FORMAT or
  // `trace.report_format` names, else the one its extension picks (runtime/report/
  // report_format.h), and the summary table when asked:
  // ASCENDSIM_SUMMARY=1 to stderr on lines of its own, any other value but 0 a file to write it
  // to (unset, empty or 0: none). Files are
  // written whole or not at all; false (said on stderr) when one could not be written.
  bool writeReport(const std::vector<RuntimeWarning>& warnings);
  // The DRAM statistics of the whole process into the trace, then the trace's end.
  bool closeTrace();
  // After every API call: how far the run has got, in the terminal's title under `exec`.
  void callEnded(spec::Picoseconds now) { progress_.callEnded(now); }
  // Whether any output could not be written: the process then exits with 1.
  bool failed() const { return failed_; }
  // From a signal handler: only write(2) inside, the lock may be held by the interrupted thread.
  void closeTraceFromSignal() {
    if (!ownedHere()) return;
    trace_.closeFromSignal();
    profiling_.closeFromSignal();
  }
  // The outputs belong to the process that attached them: a child the program forks leaves them
  // alone, at its exit or on a signal (it would otherwise end the parent's trace under it).
  bool ownedHere() const { return ::getpid() == owner_; }

  // The machine's resources with what they carried and how long they were busy so far.
  const models::ResourceTable& resources() const;

 private:
  void openProfile();
  std::string chosenReportFormat() const;
  const spec::SystemSpec* spec_ = nullptr;
  models::SimulatedSystem* system_ = nullptr;
  TraceRecorder trace_;
  Profiling profiling_;
  ProgressTitle progress_;
  std::unique_ptr<models::MemoryStatistics> memoryStats_;
  std::unique_ptr<RunReport> report_;
  bool failed_ = false;
  pid_t owner_ = ::getpid();
};

}  // namespace ascendsim::runtime
