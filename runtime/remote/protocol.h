#pragma once
// The messages between a program (client) and `ascendsim exec --shared` (server). Every change
// to a message changes kProtocolVersion; a client and server of different versions refuse each
// other at the handshake with both versions named.
//
// client -> server                          server -> client
// Hello: version, pid, tid, rank, world     HelloReply: version, ok, error text, the address of
//        size, thread number, program name    the thread's MPI-wait word (host threads only)
//                                             (then, if ok, the descriptors of the shared host
//                                             memory and of the device memory store)
// Call: name, arguments                     CallReply: code, error text, results
// Post: name, arguments (an asynchronous call sent without waiting: no reply; a failure is
//       returned by the thread's next Call)
// Stage: slot, bytes                        StageReply: address of a shared buffer of that size
// On a kernel service connection (Hello with thread number kServiceThread), the other way:
// RunKernel: entry, closure, device, its      KernelDone: what the blocks did (KernelUse), the
//   memory and allocations (with where a        device pages written, how the kernel stopped
//   mapping's bytes live), cores, blocks
// ReleaseKernel: release function, closure

#include <cstdint>

namespace ascendsim::remote {

constexpr uint32_t kProtocolVersion = 7;

enum class MessageKind : uint8_t {
  Hello = 1,
  Call = 2,
  Stage = 3,
  Post = 4,
  RunKernel = 20,      // server -> a program's kernel service: run a launch's blocks
  ReleaseKernel = 21,  // server -> kernel service: release a launch's arguments (no answer)
};

// The thread number in a Hello of a program's kernel service connection (not a host thread).
constexpr uint32_t kServiceThread = 0xFFFFFFFFu;

// The environment variable that names the server's socket; set by `ascendsim exec --shared` for
// the processes it starts, inherited by theirs.
constexpr const char* kSocketVariable = "ASCENDSIM_MACHINE_SOCKET";

}  // namespace ascendsim::remote
