#pragma once
// One stream's in-order task queue on a device.

#include <cstdint>
#include <deque>
#include <memory>

#include "models/task/task.h"

namespace ascendsim::models {

class StreamQueue {
 public:
  StreamQueue(uint32_t id, uint32_t depthLimit) : id_(id), depthLimit_(depthLimit) {}

  uint32_t id() const { return id_; }
  // 0 is the greatest (CANN: RT_STREAM_GREATEST_PRIORITY 0, least 7); set through the scheduler.
  uint32_t priority() const { return priority_; }
  bool full() const { return tasks_.size() >= depthLimit_; }
  bool idle() const { return tasks_.empty(); }
  size_t pending() const { return tasks_.size(); }
  uint64_t submitted() const { return submitted_; }
  uint64_t completed() const { return completed_; }
  // Completion time of the most recent task, or -1 if none has completed.
  Picoseconds lastCompletion() const { return lastCompletion_; }

  Task* head() { return tasks_.empty() ? nullptr : tasks_.front().get(); }
  void push(std::unique_ptr<Task> task) {
    tasks_.push_back(std::move(task));
    ++submitted_;
  }
  std::unique_ptr<Task> popHead(Picoseconds when) {
    std::unique_ptr<Task> t = std::move(tasks_.front());
    tasks_.pop_front();
    ++completed_;
    lastCompletion_ = when;
    return t;
  }

 private:
  friend class DeviceScheduler;
  uint32_t id_;
  uint32_t priority_ = 0;
  uint32_t depthLimit_;
  std::deque<std::unique_ptr<Task>> tasks_;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  Picoseconds lastCompletion_ = -1;
};

}  // namespace ascendsim::models
