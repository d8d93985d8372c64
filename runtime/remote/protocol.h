#pragma once
// The messages between a program (client) and `ascendsim exec --shared` (server). Every change
// to a message changes kProtocolVersion; a client and server of different versions refuse each
// other at the handshake with both versions named.
//
// client -> server                          server -> client
// Hello: version, pid, tid, rank, world     HelloReply: version, ok, error text, the address of
//        size, thread number, program name,   the thread's MPI-wait word and of its queue of
//        pthread_t (aclrtSubscribeReport's name)  posts (post_ring.h) (host threads only)
//                                             (then, if ok, the descriptors of the shared host
//                                             memory and of the device memory store)
// Call: name, arguments                     Reply, then CallReply: code, error text, results
// Post: name, arguments (an asynchronous call sent without waiting: no reply; a failure is
//       returned by the thread's next Call)
// Check: name, arguments, results (a call the program answered itself, from what the machine
//       answered before: run for the trace and the thread's clock, no reply; a different answer
//       is returned as a failure by the thread's next Call)
// Posts and Checks go in the thread's queue in shared memory (post_ring.h), not on the socket,
// unless too long for it (then a marker in the queue stands where the socket's message belongs).
// Wake: (nothing; the server's thread slept while the program queued a post)
// Stage: slot, bytes                        Reply, then StageReply: address of a shared buffer
//                                             of that size
// Calls and Stages are requests: the program's thread waits for the Reply, and while it waits
// the server may ask it, on the same connection, to run a kernel of its process (RunKernel,
// answered with KernelDone, after which the thread goes on waiting) or to release a launch's
// arguments (ReleaseKernel). Otherwise (no thread of the process waits) it asks the process's
// kernel service (a connection made with Hello and thread number kServiceThread):
// RunKernel: entry, closure, device, its      KernelDone: what the blocks did (KernelUse), the
//   memory and allocations (with where a        device pages written, the host pages touched
//   mapping's bytes live), cores, blocks,       and changed, how the kernel stopped
//   the host ranges kernels reach in place
// ReleaseKernel: release function, closure

#include <cstdint>

namespace ascendsim::remote {

constexpr uint32_t kProtocolVersion = 11;

enum class MessageKind : uint8_t {
  Hello = 1,
  Call = 2,
  Stage = 3,
  Post = 4,
  Check = 5,
  Reply = 6,           // server -> client: the answer to a Call or a Stage
  Wake = 7,            // client -> server: look at the thread's queue of posts
  RunKernel = 20,      // server -> a program (kernel service or waiting thread): run the blocks
  ReleaseKernel = 21,  // server -> a program: release a launch's arguments (no answer)
  KernelDone = 22,     // the program -> server: the answer to a RunKernel
};

// The thread number in a Hello of a program's kernel service connection (not a host thread).
constexpr uint32_t kServiceThread = 0xFFFFFFFFu;

// The environment variable that names the server's socket; set by `ascendsim exec --shared` for
// the processes it starts, inherited by theirs.
constexpr const char* kSocketVariable = "ASCENDSIM_MACHINE_SOCKET";

// Calls of the program's library that are not AscendCL entry points (sent as Calls): sharing a
// registered range's pages (runtime/remote/program_pages.h) and running callbacks and host
// functions in the program (runtime/remote/served_callbacks.h).
constexpr const char* kSharePagesCall = "ascendsimSharePages";
constexpr const char* kTakeReportCall = "ascendsimTakeReport";
constexpr const char* kEndReportCall = "ascendsimEndReport";
constexpr const char* kHostFuncStreamCall = "ascendsimHostFuncStream";
constexpr const char* kAdoptHostFuncCall = "ascendsimAdoptHostFuncStream";
// The failures kept for a thread of a program with exception callbacks (served_callbacks.h).
constexpr const char* kTakeExceptionsCall = "ascendsimTakeExceptions";
// Whether the thread's aclrtDestroyStream(Force) of a stream would pass its checks: a program
// with stream state callbacks runs them before it sends the destruction (served_callbacks.h).
constexpr const char* kStreamDestroyableCall = "ascendsimStreamDestroyable";
// The default stream a thread's aclrtSetDevice or aclrtCreateContext made, or the streams its
// aclrtDestroyContext or aclrtResetDevice(Force) would release: a program with stream state
// callbacks runs them after, or before, the call (served_callbacks.h).
constexpr const char* kStreamStatesCall = "ascendsimStreamStates";

}  // namespace ascendsim::remote
