#pragma once
// A whole machine driven through its SystemC device schedulers, for model tests: tasks go on
// streams of their own at time 0 (or a given time) and the test reads when each ended.

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/system/simulated_system.h"
#include "spec/system_loader.h"

namespace ascendsim::models {

class Machine {
 public:
  explicit Machine(const std::string& preset) : Machine(spec::loadSystemSpec(preset)) {}
  explicit Machine(spec::SystemSpec sys) : sys_(std::move(sys)), system_(sys_) {}

  // A copy of `bytes` on its own stream of `device` (host side pinned).
  const Task* copy(int device, MemoryPlace src, MemoryPlace dst, uint64_t bytes,
                   int hostThread = 0) {
    auto t = std::make_unique<Task>();
    t->hostThread = hostThread;  // (one process: its threads numbered as in it)
    t->hostThreadInProcess = hostThread;
    t->kind = TaskKind::Copy;
    t->src = src;
    t->dst = dst;
    t->bytes = bytes;
    return submit(device, newStream(device), std::move(t));
  }
  // A copy of `bytes` on `stream` of `device`, behind what that stream already holds.
  const Task* copyOn(int device, StreamQueue& stream, MemoryPlace src, MemoryPlace dst,
                     uint64_t bytes) {
    auto t = std::make_unique<Task>();
    t->kind = TaskKind::Copy;
    t->src = src;
    t->dst = dst;
    t->bytes = bytes;
    return submit(device, stream, std::move(t));
  }
  // A kernel on `stream` of `device` (a new stream when `stream` is null).
  const Task* kernel(int device, const KernelWork& work, StreamQueue* stream = nullptr) {
    auto t = std::make_unique<Task>();
    t->kind = TaskKind::Kernel;
    t->dst = {MemoryPlace::Kind::Device, device, 0};
    t->kernel = work;
    t->bytes = work.bytesRead + work.bytesWritten;
    return submit(device, stream ? *stream : newStream(device), std::move(t));
  }
  // Any task, on `stream` of `device` or a new stream of its own.
  const Task* add(int device, std::unique_ptr<Task> t, StreamQueue* stream = nullptr) {
    return submit(device, stream ? *stream : newStream(device), std::move(t));
  }
  StreamQueue& newStream(int device) {
    streams_.push_back(std::make_unique<StreamQueue>(static_cast<uint32_t>(streams_.size()), 1024));
    system_.device(static_cast<size_t>(device)).attach(*streams_.back());
    return *streams_.back();
  }
  void run() {
    system_.runUntil([this] {
      for (auto& s : streams_)
        if (!s->idle()) return false;
      return true;
    });
  }
  // One copy of `bytes` on each of the first `devices` devices, to (`toDevice`) or from pinned host
  // memory, run to the end: when the last of them ends.
  Picoseconds copyOnEach(int devices, bool toDevice, uint64_t bytes) {
    const size_t first = ends_.size();
    for (int d = 0; d < devices; ++d) {
      const MemoryPlace host{MemoryPlace::Kind::HostPinned, -1, 0};
      const MemoryPlace device{MemoryPlace::Kind::Device, d, 0};
      copy(d, toDevice ? host : device, toDevice ? device : host, bytes);
    }
    run();
    Picoseconds last = 0;
    for (size_t i = first; i < ends_.size(); ++i) last = std::max(last, ends_[i]);
    return last;
  }
  // End time of the i-th task submitted (in order of submission).
  Picoseconds end(size_t i) const { return ends_.at(i); }
  Picoseconds start(size_t i) const { return starts_.at(i); }
  const Resource& resource(const std::string& name) {
    for (const Resource& r : system_.graph().resources()) {
      if (r.name == name) return r;
    }
    throw std::out_of_range(name);
  }
  const spec::SystemSpec& spec() const { return sys_; }
  SimulatedSystem& system() { return system_; }

 private:
  const Task* submit(int device, StreamQueue& q, std::unique_ptr<Task> t) {
    Task* raw = t.get();
    ends_.push_back(-1);
    starts_.push_back(-1);
    const size_t slot = ends_.size() - 1;
    t->effect = [this, raw, slot] {
      ends_[slot] = raw->endTime;
      starts_[slot] = raw->startTime;
    };
    system_.device(static_cast<size_t>(device)).submit(q, std::move(t));
    return raw;
  }

  spec::SystemSpec sys_;
  SimulatedSystem system_;
  std::vector<std::unique_ptr<StreamQueue>> streams_;
  std::vector<Picoseconds> ends_, starts_;
};

}  // namespace ascendsim::models
