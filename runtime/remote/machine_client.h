#pragma once
// A program's side of a machine served by `ascendsim exec --shared`: each thread that calls
// AscendCL has its own connection (its own host thread in the server, with its own clock and
// context), made at its first call; the main thread's is made when the library loads, so the
// server knows every process of a job before any of them acts. Calls wait for their reply.

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "runtime/remote/wire.h"

namespace ascendsim::runtime {
struct MpiWaits;  // runtime/core/host_thread.h
}

namespace ascendsim::remote {

// Whether this process's AscendCL calls go to a served machine.
bool clientActive();

struct CallReply {
  aclError code = ACL_SUCCESS;
  std::vector<uint8_t> results;
};

// Sends the calling thread's call `name` with its encoded arguments and waits for the reply. A
// server that cannot be reached or is gone gives ACL_ERROR_RT_INTERNAL_ERROR and says so.
// `wait` false: an asynchronous call sent without waiting for its result (ACL_SUCCESS at once;
// if it fails, the thread's next call that waits returns the failure).
CallReply callServer(const char* name, const WireWriter& arguments, bool wait = true);
// Whether asynchronous calls are sent without waiting (ASCENDSIM_PIPELINE=0 turns it off: every
// call then returns its own result, at the cost of a round trip each).
bool pipelining();

// A buffer of at least `bytes` in the job's shared memory, the calling thread's for `slot` (0:
// a copy's source, 1: its destination) until its next request; nullptr if the server refused.
void* stagingBuffer(int slot, uint64_t bytes);

// Memory only this process can reach (its stack, heap, globals): not device memory and not the
// job's shared memory. Copies from or to it are staged through shared buffers. With `bytes`: any
// of [p, p + bytes) is (a copy that runs past a registered range's shared pages is staged).
bool programMemory(const void* p, uint64_t bytes = 1);

// Marks the calling thread, while it lives, as waiting for the server's answer to a message it
// sent (MpiWaits::awaitingServer): the server does not take it for a thread asleep outside
// AscendCL meanwhile.
class AwaitingServer {
 public:
  AwaitingServer();
  ~AwaitingServer();
  AwaitingServer(const AwaitingServer&) = delete;
  AwaitingServer& operator=(const AwaitingServer&) = delete;

 private:
  runtime::MpiWaits* word_ = nullptr;
};

// The calling thread starts (true) or ends (false) waiting for other processes outside AscendCL
// (in an MPI call: libascendsim_mpi_waits.so): the server does not wait for its next call then.
void markWaitingOutside(bool waiting);

// The number of ranks of each communicator this program made (HCCL calls that pass counts per
// rank send that many); 0 for a handle it did not make.
void rememberRanks(const void* comm, uint32_t ranks);
void forgetRanks(const void* comm);
uint32_t ranksOf(const void* comm);

// The calling thread's error text from its last failed served call (aclGetRecentErrMsg), taken.
const char* takeServedError();
void setServedError(std::string text);
// Drops the message of a call this process refused itself (it is older than the served one).
void discardLocalError();

}  // namespace ascendsim::remote
