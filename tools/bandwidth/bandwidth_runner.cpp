#include "tools/bandwidth/bandwidth_runner.h"

#include <stdexcept>

namespace ascendsim::tools {

BandwidthRunner::BandwidthRunner(const spec::SystemSpec& sys, const std::string& tracePath)
    : sys_(sys), system_(sys_) {
  if (!tracePath.empty()) {
    std::string why;
    if (!trace_.open(tracePath, sys_.trace.format, sys_, why)) throw std::runtime_error(why);
    system_.addListener(&trace_);
    trace_.attachFabric(&system_.graph().resources(), 10000000);
  }
}

BandwidthRunner::~BandwidthRunner() {
  trace_.close();
}

std::vector<spec::Picoseconds> BandwidthRunner::runTogether(
    const std::vector<CopyRequest>& copies) {
  const spec::Picoseconds start = system_.now();
  std::vector<spec::Picoseconds> ends(copies.size(), start);
  std::vector<models::StreamQueue*> used;
  for (size_t i = 0; i < copies.size(); ++i) {
    const CopyRequest& c = copies[i];
    streams_.push_back(
        std::make_unique<models::StreamQueue>(static_cast<uint32_t>(streams_.size()), 1 << 20));
    models::StreamQueue& q = *streams_.back();
    models::DeviceScheduler& dev = system_.device(static_cast<size_t>(c.engine));
    dev.attach(q);
    used.push_back(&q);
    if (!c.kernel.name.empty()) {
      auto t = std::make_unique<models::Task>();
      t->id = nextTask_++;
      t->kind = models::TaskKind::Kernel;
      t->dst = {models::MemoryPlace::Kind::Device, c.engine, 0};
      t->kernel = c.kernel;
      t->bytes = c.kernel.bytesRead + c.kernel.bytesWritten;
      t->submitTime = start;
      models::Task* raw = t.get();
      t->effect = [&ends, i, raw] { ends[i] = std::max(ends[i], raw->endTime); };
      dev.submit(q, std::move(t));
      continue;
    }
    // As the runtime does: host copies go in tasks of at most 64 MiB, device copies in one.
    const bool host = c.src.kind != models::MemoryPlace::Kind::Device ||
                      c.dst.kind != models::MemoryPlace::Kind::Device;
    const uint64_t piece = host ? (64ull << 20) : c.bytes;
    for (uint64_t off = 0; off < c.bytes; off += piece) {
      auto t = std::make_unique<models::Task>();
      t->id = nextTask_++;
      t->kind = models::TaskKind::Copy;
      t->src = c.src;
      t->dst = c.dst;
      t->src.address += off;
      t->dst.address += off;
      t->bytes = std::min(piece, c.bytes - off);
      t->submitTime = start;
      models::Task* raw = t.get();
      t->effect = [&ends, i, raw] { ends[i] = std::max(ends[i], raw->endTime); };
      dev.submit(q, std::move(t));
    }
  }
  system_.runUntil([&] {
    for (auto* q : used)
      if (!q->idle()) return false;
    return true;
  });
  for (size_t i = 0; i < copies.size(); ++i)
    system_.device(static_cast<size_t>(copies[i].engine)).detach(*used[i]);
  std::vector<spec::Picoseconds> times;
  for (spec::Picoseconds e : ends) times.push_back(e - start);
  return times;
}

}  // namespace ascendsim::tools
