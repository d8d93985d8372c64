#pragma once
// The run report: what every copy got, what each kernel took, how busy every stream and fabric
// resource was. Its formats (JSON, schema docs/report.md; a readable table; CSV) are kinds of
// their own, runtime/report/report_format.h.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/dram/memory_statistics.h"
#include "models/resource/resource.h"
#include "models/sched/device_scheduler.h"
#include "runtime/report/copy_statistics.h"
#include "runtime/trace/trace_sink.h"
#include "spec/system_spec.h"

namespace ascendsim::runtime {

struct RuntimeWarning {
  std::string kind;  // "pageable-async-copy", "memory-not-freed", "tasks-dropped"
  std::string message;
  spec::Picoseconds when;
};

class RunReport : public models::TaskListener {
 public:
  explicit RunReport(const spec::SystemSpec& sys) : sys_(sys) {}
  void taskStarted(int, const models::StreamQueue&, const models::Task&) override {}
  void taskEnded(int device, const models::StreamQueue& stream, const models::Task& task) override;

  // DRAM statistics to include (finished: nothing still queued), or nullptr.
  void setMemoryStatistics(const models::MemoryStatistics* stats) { memoryStats_ = stats; }
  // Per memory that saw traffic: its place in MemoryStatistics::memories() (0 the host's, d + 1
  // device d's: the trace's process ids), its name and its statistics as trace arguments.
  struct MemoryArgs {
    int index;
    std::string name;
    TraceArgs args;
  };
  std::vector<MemoryArgs> memoryStatisticsArgs() const;

  static constexpr size_t kMaxCopies =
      100000;  // per-copy records kept; the totals count every copy

  // What the report holds, for its formats (runtime/report/*_report.cpp).
  struct Copy {
    uint64_t task;
    int device;
    uint32_t stream;
    std::string kind;
    uint64_t bytes;
    spec::Picoseconds submit, start, end;
  };
  struct StreamStats {
    uint64_t tasks = 0;
    spec::Picoseconds busy = 0, first = -1, last = 0;
  };
  struct KindTotals {
    uint64_t count = 0, bytes = 0;
    spec::Picoseconds time = 0;
  };
  struct KernelTotals {
    uint64_t count = 0, bytesRead = 0, bytesWritten = 0, ops = 0;
    spec::Picoseconds time = 0;
  };
  struct DeviceTotals {
    uint64_t count = 0, bytes = 0;
    spec::Picoseconds first = -1, last = 0;  // first start, last end of its copies
  };
  const spec::SystemSpec& machine() const { return sys_; }
  // From the first task's start to the last one's end.
  spec::Picoseconds span() const { return first_ < 0 ? 0 : last_ - first_; }
  const std::vector<Copy>& copies() const { return copies_; }  // the first kMaxCopies
  uint64_t copiesSeen() const { return copiesSeen_; }
  const std::map<std::string, KindTotals>& copyTotals() const { return totals_; }  // by kind
  const std::map<std::string, CopyStatistics>& copyStatistics() const { return statistics_; }
  // Copies and memsets by the device that ran them.
  const std::map<int, DeviceTotals>& deviceTotals() const { return devices_; }
  const std::map<std::string, KernelTotals>& kernelTotals() const { return kernels_; }  // by name
  uint64_t kernelsSeen() const { return kernelsSeen_; }
  // By (device, stream).
  const std::map<std::pair<int, uint32_t>, StreamStats>& streams() const { return streams_; }
  const models::MemoryStatistics* memoryStatistics() const { return memoryStats_; }

 private:
  std::string kindOf(const models::Task& task) const;

  const spec::SystemSpec& sys_;
  std::vector<Copy> copies_;
  uint64_t copiesSeen_ = 0;
  std::map<std::string, KindTotals> totals_;
  std::map<std::string, CopyStatistics> statistics_;  // by kind
  std::map<int, DeviceTotals> devices_;
  std::map<std::string, KernelTotals> kernels_;
  uint64_t kernelsSeen_ = 0;
  std::map<std::pair<int, uint32_t>, StreamStats> streams_;
  spec::Picoseconds first_ = -1, last_ = 0;
  const models::MemoryStatistics* memoryStats_ = nullptr;
};

}  // namespace ascendsim::runtime
