#pragma once
// A program's side of a machine served by `ascendsim exec --shared`: each thread that calls
// AscendCL has its own connection (its own host thread in the server, with its own clock and
// context), made at its first call; the main thread's is made when the library loads, so the
// server knows every process of a job before any of them acts. Calls wait for their reply.

#include <sys/types.h>

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
// getpid(), without a system call (kept, and set again in a child made by fork()).
pid_t ownProcess();

struct CallReply {
  aclError code = ACL_SUCCESS;
  std::vector<uint8_t> results;
};

// Sends the calling thread's call `name` with its encoded arguments and waits for the reply. A
// server that cannot be reached or is gone gives ACL_ERROR_RT_INTERNAL_ERROR and says so.
// `wait` false: an asynchronous call sent without waiting for its result (ACL_SUCCESS at once;
// if it fails, the thread's next call that waits returns the failure).
CallReply callServer(const char* name, const WireWriter& arguments, bool wait = true);
// Sends a call the program answered itself with `results` (a learned answer, below) without
// waiting: the machine runs it too, for the trace, the report and the thread's clock, and if its
// answer differs the thread's next call that waits returns the failure.
void checkWithServer(const char* name, const WireWriter& arguments,
                     const std::vector<uint8_t>& results);

// How a served call's answer may be known in the program (Served<Fn>::answer, marshal.h).
enum class Answer : uint8_t {
  Served,   // asked of the machine every time
  Learned,  // the same arguments get the same answer until a call that Changes: the machine's
            // last successful answer is kept by the calling thread and given again (a Check)
  Changes,  // may change what Learned calls answer (init, finalize, devices, contexts): every
            // thread of the process forgets its learned answers
  Repeats,  // Changes, but the same call again with nothing changed since changes nothing
            // (aclrtSetDevice of the device the thread set last): sent as a Check
};

// The calling thread's learned answer to `name` with these arguments; nullptr if none is kept
// (or learned answers are off: ASCENDSIM_PIPELINE=0).
const std::vector<uint8_t>* learnedAnswer(const char* name, const WireWriter& arguments);
// The process's answers epoch: an answer is learned only if no call that Changes started between
// `epoch` (read before the call was sent) and now.
uint64_t answersEpoch();
void learnAnswer(const char* name, const WireWriter& arguments, const std::vector<uint8_t>& results,
                 uint64_t epoch);
// Every thread of the process forgets its learned answers (a call that Changes starts or ended);
// returns the new epoch.
uint64_t forgetAnswers();
// The results of the calling thread's last call that Repeats if it was this call with these
// arguments and nothing changed since (then it changes nothing), else nullptr; rememberChange
// records a successful one, which ended at `epoch`.
const std::vector<uint8_t>* repeatedChange(const char* name, const WireWriter& arguments);
// The epoch at which the calling thread's last call that Repeats ended (0: none).
uint64_t lastChangeEpoch();
void rememberChange(const char* name, const WireWriter& arguments,
                    const std::vector<uint8_t>& results, uint64_t epoch);
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
