#pragma once
// What goes into the trace: host threads' API calls, each device's stream tasks and DMA channel
// transfers, and the flow arrows between them (call -> task -> transfer). Processes: the host
// (pid 0) and each device (pid 1 + index); tracks: one per host thread, stream and DMA channel.

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/dram/dram_stats.h"
#include "models/resource/resource.h"
#include "models/sched/device_scheduler.h"
#include "runtime/trace/trace_sink.h"
#include "spec/system_spec.h"

namespace ascendsim::runtime {

// Where a host thread's API calls go: the host's process (0) for the threads of a program on its
// own machine; a process of its own for each program of a job sharing a served machine.
struct HostTrack {
  int process = 0;
  std::string processName;  // names `process` (other than 0)
  uint32_t thread = 0;      // the thread's number within its process
};

class TraceRecorder : public models::TaskListener {
 public:
  // Opens the trace in `format` (a registered trace format; empty: by the file's extension).
  bool open(const std::string& path, const std::string& format, const spec::SystemSpec& sys,
            std::string& why, uint64_t maxBytes = 0);
  bool active() const { return sink_ && sink_->isOpen(); }
  // Records the tasks of these devices only (and names no other device's process); set before
  // open(). Empty: every device.
  void onlyDevices(std::set<int> devices) { devices_ = std::move(devices); }
  // Names processes as msprof's timeline does (set before open()): the host's calls under "CANN",
  // each device's streams under "Ascend Hardware" ("Ascend Hardware (npuN)" when the trace has
  // several devices).
  void useMsprofNames(bool on) { msprofNames_ = on; }
  // False if the trace could not be written (reported on stderr).
  bool close() {
    if (!sink_) return true;
    if (sink_->isOpen()) flushCounters(-1);
    return sink_->close();
  }
  // Samples the fabric's resources every `interval` as bandwidth counters.
  void attachFabric(models::ResourceTable* resources, spec::Picoseconds interval);
  // Writes the counter samples of every bin that ended by `now` (all of them when now < 0).
  void flushCounters(spec::Picoseconds now);
  void closeFromSignal() {
    if (sink_) sink_->closeFromSignal();
  }
  const std::string& path() const {
    static const std::string none;
    return sink_ ? sink_->path() : none;
  }

  // `args`: the call's arguments; its return code is added for the sink and taken off again.
  void apiCall(const HostTrack& who, const char* name, spec::Picoseconds start,
               spec::Picoseconds end, int code, TraceArgs& args,
               const std::vector<uint64_t>& tasks);
  void taskStarted(int device, const models::StreamQueue& stream,
                   const models::Task& task) override;
  void taskEnded(int device, const models::StreamQueue& stream, const models::Task& task) override;
  // The DRAM statistics of one memory (process `pid`: 0 the host, d + 1 device d), as one slice
  // over the run up to `end` on a "DRAM statistics" track, its figures in the slice's arguments.
  void memoryStatistics(int pid, const std::string& memory, spec::Picoseconds end,
                        const TraceArgs& args);
  // Device memory held by allocations (what they reserve from capacity) as the counter
  // `npuN.memory allocated` in MiB: a sample at `at` whenever it changed since the last one.
  void memoryInUse(int device, spec::Picoseconds at, uint64_t bytes);
  // Its row-hit rate and mean read latency over time, one sample per bin of `width`.
  void memoryCounters(int pid, const std::string& memory,
                      const std::map<int64_t, models::DramCounters>& bins, spec::Picoseconds width);

  static int streamTrack(uint32_t streamId) { return 1000 + static_cast<int>(streamId); }
  static int channelTrack(int channel) { return 100000 + channel; }
  static constexpr int kAiCoreTrack = 50000;
  static constexpr int kDramTrack = 60000;
  static void addKernelArgs(TraceArgs& args, const models::Task& task);

 private:
  bool msprofNames_ = false;
  void nameThread(const HostTrack& who);
  void nameStream(int device, uint32_t streamId);
  void nameChannel(int device, int channel);
  const std::string& placeText(const models::MemoryPlace& p) const;

  std::unique_ptr<TraceSink> sink_;
  const spec::SystemSpec* sys_ = nullptr;
  // Kept from event to event, so that their buffers are reused: a task's and a transfer's
  // arguments, and the name of an API call, task or transfer.
  TraceArgs taskArgs_, transferArgs_;
  std::string apiName_, eventName_;
  std::set<std::pair<int, uint32_t>> threads_;  // (process, thread) named so far
  std::set<std::pair<int, uint32_t>> streams_;
  // The end of each stream's latest task: where the next one reached the head of its stream.
  std::map<std::pair<int, uint32_t>, spec::Picoseconds> streamFree_;
  std::vector<int64_t> memoryInUse_;  // the last sample of each device's allocated bytes (-1: none)
  std::set<std::pair<int, int>> channels_;
  std::set<int> aicoreNamed_;
  std::set<int> devices_;  // the devices recorded (empty: all)
  bool recorded(int device) const {
    return devices_.empty() || devices_.count(device) > 0;
  }  // devices whose AI Core track has its name
  // Where each event or notify record ended, by its number, so that a stream's wait can be
  // drawn as an arrow from the record it waited for (the last kRecordsKept of each).
  struct RecordSlice {
    int pid = 0;
    int track = 0;
    spec::Picoseconds start = 0, end = 0;
  };
  std::map<std::weak_ptr<models::SyncPoint>, std::map<uint64_t, RecordSlice>,
           std::owner_less<std::weak_ptr<models::SyncPoint>>>
      records_;
  uint64_t recordsSeen_ = 0;
  void noteRecord(int pid, int track, const models::Task& task);
  void linkWait(int pid, int track, const models::Task& task);
  models::ResourceTable* resources_ = nullptr;
  std::vector<int64_t> lastBin_;  // per resource: the last bin written, to close areas with a zero
  int fabricPid_ = 0;
  int counterPid(const std::string& resource) const;
};

}  // namespace ascendsim::runtime
