#include "runtime/report/run_report.h"

#include <algorithm>
#include <cstdio>
#include "runtime/report/report_figures.h"

namespace ascendsim::runtime {
using report::dramStatsJson;
using report::sawTraffic;

std::vector<RunReport::MemoryArgs> RunReport::memoryStatisticsArgs() const {
  std::vector<MemoryArgs> out;
  if (!memoryStats_) return out;
  const auto& memories = memoryStats_->memories();
  for (size_t i = 0; i < memories.size(); ++i) {
    const models::DramStats total = memories[i].timing->totalStats();
    if (!sawTraffic(total)) continue;
    const auto stats = dramStatsJson(total);
    TraceArgs args;
    for (auto it = stats.begin(); it != stats.end(); ++it)
      args.push_back(TraceArg::json(it.key(), it.value().dump()));
    out.push_back({static_cast<int>(i), memories[i].name, std::move(args)});
  }
  return out;
}

std::string RunReport::kindOf(const models::Task& t) const {
  using K = models::MemoryPlace::Kind;
  if (t.kind == models::TaskKind::Memset) return "memset";
  const bool srcDev = t.src.kind == K::Device, dstDev = t.dst.kind == K::Device;
  if (sys_.runMode == spec::RunMode::Device) return "local";
  if (srcDev && dstDev) return t.src.device == t.dst.device ? "D2D" : "P2P";
  return srcDev ? "D2H" : "H2D";
}

void RunReport::taskEnded(int device, const models::StreamQueue& stream, const models::Task& task) {
  StreamStats& s = streams_[{device, stream.id()}];
  s.tasks++;
  s.busy += task.endTime - task.startTime;
  if (s.first < 0) s.first = task.startTime;
  s.last = std::max(s.last, task.endTime);
  if (first_ < 0 || task.startTime < first_) first_ = task.startTime;
  last_ = std::max(last_, task.endTime);
  if (task.kind == models::TaskKind::Kernel) {
    KernelTotals& k = kernels_[task.kernel.name];
    k.count++;
    k.bytesRead += task.kernel.bytesRead;
    k.bytesWritten += task.kernel.bytesWritten;
    k.ops += task.kernel.ops;
    k.time += task.endTime - task.startTime;
    ++kernelsSeen_;
    return;
  }
  if (task.kind != models::TaskKind::Copy && task.kind != models::TaskKind::Memset) return;
  const std::string kind = kindOf(task);
  KindTotals& k = totals_[kind];
  k.count++;
  k.bytes += task.bytes;
  k.time += task.endTime - task.startTime;
  statistics_[kind].add(task.bytes, task.endTime - task.startTime);
  DeviceTotals& d = devices_[device];
  d.count++;
  d.bytes += task.bytes;
  if (d.first < 0 || task.startTime < d.first) d.first = task.startTime;
  d.last = std::max(d.last, task.endTime);
  ++copiesSeen_;
  if (copies_.size() < kMaxCopies) {
    copies_.push_back({task.id, device, stream.id(), kind, task.bytes, task.submitTime,
                       task.startTime, task.endTime});
  }
}

}  // namespace ascendsim::runtime
