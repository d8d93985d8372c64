#pragma once
// What goes into the trace: host threads' API calls, each device's stream tasks and DMA channel
// transfers, and the flow arrows between them (call -> task -> transfer). Processes: the host
// (pid 0) and each device (pid 1 + index); tracks: one per host thread, stream and DMA channel.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "models/sched/device_scheduler.h"
#include "runtime/trace/trace_writer.h"
#include "spec/system_spec.h"

namespace ascendsim::runtime {

class TraceRecorder : public models::TaskListener {
 public:
  bool open(const std::string& path, const spec::SystemSpec& sys, std::string& why);
  bool active() const { return writer_.isOpen(); }
  void close() { writer_.close(); }
  void closeFromSignal() { writer_.closeFromSignal(); }
  const std::string& path() const { return writer_.path(); }

  void apiCall(uint32_t thread, const std::string& name, spec::Picoseconds start, spec::Picoseconds end, int code,
               const std::string& args, const std::vector<uint64_t>& tasks);
  void taskStarted(int device, const models::StreamQueue& stream, const models::Task& task) override;
  void taskEnded(int device, const models::StreamQueue& stream, const models::Task& task) override;

  static int streamTrack(uint32_t streamId) { return 1000 + static_cast<int>(streamId); }
  static int channelTrack(int channel) { return 100000 + channel; }

 private:
  void nameThread(uint32_t thread);
  void nameStream(int device, uint32_t streamId);
  void nameChannel(int device, int channel);
  std::string placeText(const models::MemoryPlace& p) const;

  TraceWriter writer_;
  const spec::SystemSpec* sys_ = nullptr;
  std::set<uint32_t> threads_;
  std::set<std::pair<int, uint32_t>> streams_;
  std::set<std::pair<int, int>> channels_;
};

}  // namespace ascendsim::runtime
