#pragma once
// Ascend C kernels of programs on a served machine run in the program that launched them (their
// code is there): each program has a kernel service, a connection of its own on which the server
// asks it to run a launch's blocks when the launch's task starts, over the device memory store
// every process shares, and to release a launch's arguments when its task is gone.

#include <cstdint>
#include <memory>
#include <mutex>

#include "runtime/core/kernel_use.h"
#include "runtime/remote/wire.h"

namespace ascendsim::remote {

// The server's end of one program's kernel service.
class KernelService {
 public:
  explicit KernelService(std::unique_ptr<Channel> channel) : channel_(std::move(channel)) {}
  // Runs the blocks of `entry` over `closure` (the program's) as `run` says; a program that is
  // gone, or breaks the protocol, stops the kernel with an exception fault.
  runtime::KernelUse run(uint64_t entry, uint64_t closure, const runtime::KernelRun& run,
                         runtime::KernelStop& stop);
  // The program releases the launch's arguments with its `release` function (no answer).
  void release(uint64_t release, uint64_t closure);
  void close() { channel_->close(); }

 private:
  std::mutex mutex_;
  std::unique_ptr<Channel> channel_;
};

// A program's side: makes this process's kernel service (a connection and the thread that serves
// it) if it has none yet; false, with the reason in `why`, if the server cannot be reached.
bool ensureKernelService(std::string& why);

}  // namespace ascendsim::remote
