#pragma once
// Ascend C kernels of programs on a served machine run in the program that launched them (their
// code is there): when a launch's task starts, the server asks the program to run its blocks, over
// the device memory store every process shares, and when the task is gone, to release the
// launch's arguments. It asks a thread of the program that waits for an answer from the server
// (in aclrtSynchronizeStream, say: awake already) on that thread's own connection; when none
// waits, the program's kernel service, a connection and a thread of its own.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/core/kernel_use.h"
#include "runtime/remote/wire.h"

namespace ascendsim::remote {

struct ServedProcess;  // runtime/remote/machine_server.h

// The server's end of one program's kernel service.
class KernelService {
 public:
  KernelService(std::unique_ptr<Channel> channel, std::weak_ptr<ServedProcess> process)
      : channel_(std::move(channel)), process_(std::move(process)) {}
  // Runs the blocks of `entry` over `closure` (the program's) as `run` says; a program that is
  // gone, or breaks the protocol, stops the kernel with an exception fault.
  runtime::KernelUse run(uint64_t entry, uint64_t closure, const runtime::KernelRun& run,
                         runtime::KernelStop& stop);
  // The program releases the launch's arguments with its `release` function (no answer).
  void release(uint64_t release, uint64_t closure);
  void close() { channel_->close(); }

 private:
  struct Route;
  // The connection to ask on, held: a waiting thread's, else the service's.
  Route route();
  std::mutex mutex_;  // (one request at a time: a kernel's run, a release)
  std::unique_ptr<Channel> channel_;
  std::weak_ptr<ServedProcess> process_;
};

// A program's side: makes this process's kernel service (a connection and the thread that serves
// it) if it has none yet; false, with the reason in `why`, if the server cannot be reached.
bool ensureKernelService(std::string& why);
// A program's side: runs `message` if it is a RunKernel (answered on `channel` with KernelDone)
// or a ReleaseKernel, and says so; false for any other message.
bool serveKernelMessage(const std::vector<uint8_t>& message, Channel& channel);

}  // namespace ascendsim::remote
