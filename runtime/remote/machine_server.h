#pragma once
// The server side of `ascendsim exec --shared`: one simulated machine (the process's Runtime)
// served to every program of a job over a Unix-domain socket. Each connection is one thread of a
// program; a server thread stands for it in the runtime (its clock, context, last error) and runs
// the AscendCL calls it sends, so the runtime orders the calls of every process by simulated
// time, then process rank and thread, exactly as it orders a single program's threads.

#include <sys/types.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_base.h"
#include "runtime/core/host_thread.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/wire.h"

namespace ascendsim::remote {

// One process of the job, as long as it has a connection.
struct ServedProcess {
  pid_t pid = 0;
  int32_t rank = -1;   // the launcher's, or -1
  uint32_t order = 0;  // its place among the job's processes: the rank, or after every rank
  std::string program;
  int connections = 0;
  std::shared_ptr<class KernelService> kernels;  // its kernel service, once it has one
  // The sessions of its threads, which may run its kernels while they wait for an answer
  // (kernel_service.h); a session leaves before it ends.
  std::mutex threadsMutex;
  std::vector<class Session*> threads;
  std::atomic<bool> initialized{false};  // has called aclInit (and not aclFinalize since)
  // What it holds that must be given back if it goes away without doing so itself: the handle
  // (an address) and how to release it, in the order acquired.
  // (The process's threads acquire and release from their own server threads at once: held is
  // kept under heldMutex.)
  std::mutex heldMutex;
  std::vector<std::pair<uint64_t, std::function<void()>>> held;
  // Its threads' MPI-wait words and queues of posts (in the shared memory): given back only when
  // the process has gone, since a thread whose connection broke may still write them.
  std::vector<void*> waitWords;
  void hold(uint64_t handle, std::function<void()> release) {
    std::lock_guard<std::mutex> lock(heldMutex);
    held.emplace_back(handle, std::move(release));
  }
  void drop(uint64_t handle);  // (from either list)
  void releaseAll();
  // What is given back only when the process has gone, not at its aclFinalize (data channels and
  // queues, which outlive aclFinalize as on a machine of its own); released before `held`.
  std::vector<std::pair<uint64_t, std::function<void()>>> heldUntilExit;
  void holdUntilExit(uint64_t handle, std::function<void()> release) {
    std::lock_guard<std::mutex> lock(heldMutex);
    heldUntilExit.emplace_back(handle, std::move(release));
  }
  // The process has gone: everything it held, heldUntilExit first.
  void releaseAtExit();
  // Handles only this process may use (kernel binaries, their functions and argument lists,
  // models, labels...), each with the handle of what it belongs to (a binary's go with it) and
  // when it was owned (a count of owns).
  struct Owned {
    uint64_t owner = 0;
    uint64_t since = 0;
  };
  std::map<uint64_t, Owned> owned;
  uint64_t owns = 0;
  void own(uint64_t handle, uint64_t owner) {
    std::lock_guard<std::mutex> lock(heldMutex);
    owned[handle] = Owned{owner, ++owns};
  }
  // The owner of `handle` if this process owns it, else 0.
  uint64_t ownerOf(uint64_t handle) {
    std::lock_guard<std::mutex> lock(heldMutex);
    auto it = owned.find(handle);
    return it == owned.end() ? 0 : it->second.owner;
  }
  // What has been owned so far: taken before a call that destroys `owner`, and handed to
  // disown after it, so that the disowning and the destroying are one step. An object another
  // thread of the process makes at the freed address meanwhile (its own() comes after the
  // destroy's) stays owned. (Not a lock held across the call: the call waits for the runtime's
  // order of threads, in which another thread of the process waiting for that lock may come
  // first: both would wait for ever.)
  uint64_t ownedSoFar() {
    std::lock_guard<std::mutex> lock(heldMutex);
    return owns;
  }
  // `owner` and what belongs to it, owned up to `upTo` (ownedSoFar before its destroy), go.
  void disown(uint64_t owner, uint64_t upTo) {
    std::lock_guard<std::mutex> lock(heldMutex);
    for (auto it = owned.begin(); it != owned.end();)
      it = it->second.owner == owner && it->second.since <= upTo ? owned.erase(it) : std::next(it);
  }
};

// The number aclrtSubscribeReport names a program's thread by in the runtime: its pthread_t,
// made unique among the job's processes.
inline uint64_t servedThreadId(const ServedProcess& p, uint64_t programThread) {
  return programThread ^ ((static_cast<uint64_t>(p.order) + 1) * 0x9E3779B97F4A7C15ull);
}

class Session;
// A served call: reads its arguments, runs the AscendCL entry point on the session's thread and
// writes its results. Registered by name from the C layer (runtime/api/served_calls.cpp).
using ServedHandler = aclError (*)(Session&, WireReader&, WireWriter&);
void registerServedCall(const char* name, ServedHandler handler);

class Session {
 public:
  Session(class MachineServer& server, std::unique_ptr<Channel> channel);
  void run();  // until the program's thread closes its connection
  ServedProcess& process() { return *process_; }
  Channel& channel() { return *channel_; }
  void close() { channel_->close(); }
  // Callbacks handed to the program's thread to run, innermost last: each ends (its stream goes
  // on) when the program says it returned, or when the connection closes first.
  std::vector<std::function<void()>> callbacksRunning;

 private:
  enum class Joined { No, Thread, Service };
  Joined handshake();
  // `kind`: Call (answered), Post (not), Check (not; the answer the program gave follows).
  void serveCall(WireReader& in, MessageKind kind);
  void serveStage(WireReader& in);
  MachineServer& server_;
  std::unique_ptr<Channel> channel_;
  std::shared_ptr<ServedProcess> process_;
  void* staging_[2] = {nullptr, nullptr};
  // Set by the program's thread while it waits in MPI (in the job's shared memory; the process's).
  runtime::MpiWaits* waitingOutside_ = nullptr;
  aclError deferredCode_ = ACL_SUCCESS;  // an unanswered call's failure, for the next call
  std::string deferredError_;
  WireWriter results_, answer_;  // a call's results and its answer (kept for the next call)
};

class MachineServer {
 public:
  // Listens on a new socket in a private directory; the job's shared memory is made here.
  MachineServer();
  ~MachineServer();
  const std::string& socketPath() const { return socketPath_; }
  int storeDescriptor() const { return storeFd_; }
  void start();
  // After the job's command has ended: waits up to `grace` for connections still open (a
  // program's orphaned children), then closes them and returns when every session has ended.
  void stop(std::chrono::milliseconds grace);

  // ---- for sessions
  std::shared_ptr<ServedProcess> join(pid_t pid, int32_t rank, const std::string& program);
  // A program's kernel service connection: kept with its process (which has connected first).
  // Takes `channel` only when it succeeds.
  bool attachKernelService(pid_t pid, std::unique_ptr<Channel>& channel);
  // A rank's main thread is enrolled: waits (up to 60 s) until `world` ranks are.
  void awaitRanks(int32_t world);
  // True when `p` has no connection left (it has gone).
  bool leave(ServedProcess& p);

 private:
  void acceptLoop();
  boost::asio::io_context io_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::string directory_, socketPath_;
  std::thread acceptor_thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<pid_t, std::shared_ptr<ServedProcess>> processes_;
  std::set<int32_t> ranks_;  // ranks that have connected
  uint32_t nextUnranked_ = 0;
  int32_t enrolledRanks_ = 0;
  std::vector<std::thread> sessionThreads_;
  std::vector<Session*> sessions_;  // live ones
  bool stopping_ = false;
  int storeFd_ = -1;
};

}  // namespace ascendsim::remote
