#include "runtime/remote/machine_client.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "runtime/core/device_memory.h"
#include "runtime/core/kernel_sandbox.h"
#include "runtime/core/runtime.h"
#include "runtime/remote/kernel_service.h"
#include "runtime/remote/post_ring.h"
#include "runtime/remote/program_pages.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/shared_host_memory.h"

namespace ascendsim::remote {
namespace {

struct ProcessLink {
  std::string socket;
  int32_t rank = -1;  // the launcher's rank, or -1 (then the server numbers processes itself)
  int32_t world = 0;  // how many ranks the job has, 0 if unknown
  std::atomic<uint32_t> nextThread{1};
  // Learned answers are kept for this epoch; a call that changes contexts moves it on.
  std::atomic<uint64_t> answersEpoch{1};
  std::mutex attachMutex;
  bool attached = false;
};

int32_t numberFromEnv(std::initializer_list<const char*> names, int32_t fallback) {
  for (const char* name : names) {
    if (const char* v = std::getenv(name); v && *v) {
      char* end = nullptr;
      const long n = std::strtol(v, &end, 10);
      if (end && *end == '\0' && n >= 0 && n < (1 << 20)) return static_cast<int32_t>(n);
    }
  }
  return fallback;
}

// getpid(), kept (it is a system call, and every call asks whether its connection is this
// process's); a child made by fork() sets it again.
std::atomic<pid_t> ownPid{getpid()};

ProcessLink& process() {
  static ProcessLink* link = [] {
    auto* p = new ProcessLink();
    if (const char* s = std::getenv(kSocketVariable)) p->socket = s;
    // Open MPI, MPICH/PMI, torchrun and Slurm name a process's rank and the job's size.
    p->rank = numberFromEnv(
        {"ASCENDSIM_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK", "SLURM_PROCID"}, -1);
    p->world = p->rank < 0 ? 0
                           : numberFromEnv({"ASCENDSIM_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE",
                                            "PMI_SIZE", "WORLD_SIZE", "SLURM_NTASKS"},
                                           0);
    // A child made by fork() is a process of its own, without the launcher's rank.
    pthread_atfork(nullptr, nullptr, [] {
      ownPid = getpid();
      process().rank = -1;
      process().world = 0;
      process().nextThread = 1;
    });
    return p;
  }();
  return *link;
}

std::string programName() {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

struct ThreadLink {
  std::unique_ptr<Channel> channel;
  pid_t owner = 0;  // the process that connected (a forked child makes its own connection)
  std::string broken;
  void* staging[2] = {nullptr, nullptr};
  uint64_t stagingBytes[2] = {0, 0};
  runtime::MpiWaits* waitingOutside = nullptr;  // in the job's shared memory
  PostRing* posts = nullptr;                    // the thread's queue of posts, there too
  int waitDepth = 0;
  std::string error, returned;
  // Learned answers (machine_client.h, Answer::Learned): call name and arguments -> results,
  // valid while `answersEpoch` is the process's.
  std::unordered_map<std::string, std::vector<uint8_t>> answers;
  uint64_t answersEpoch = 0;
  std::string key;  // (built here for each look-up: no allocation once it is long enough)
  // The last call that Repeats (name and arguments), its results and the epoch after it.
  std::string lastChange;
  std::vector<uint8_t> lastChangeResults;
  uint64_t lastChangeEpoch = 0;
  ~ThreadLink() {
    if (channel && owner == getpid()) channel->close();
  }
};

thread_local ThreadLink tLink;

// The answer to the request the thread just sent (its first byte, Reply, read). While the thread
// waits, the server may have it run a kernel of the process or release a launch's arguments
// (kernel_service.h): it does, and goes on waiting.
WireReader receiveAnswer(ThreadLink& l, std::vector<uint8_t>& bytes) {
  for (;;) {
    if (!l.channel->receive(bytes)) throw WireError("the server closed the connection");
    if (!bytes.empty() && bytes[0] == static_cast<uint8_t>(MessageKind::Reply)) break;
    if (!serveKernelMessage(bytes, *l.channel)) throw WireError("unexpected message");
  }
  WireReader r(bytes);
  r.u8();
  return r;
}

void connectThread(ThreadLink& link) {
  ProcessLink& p = process();
  const bool mainThread = getpid() == static_cast<pid_t>(syscall(SYS_gettid));
  link.channel = std::make_unique<Channel>();
  link.owner = getpid();
  link.staging[0] = link.staging[1] = nullptr;
  link.stagingBytes[0] = link.stagingBytes[1] = 0;
  link.posts = nullptr;
  link.answers.clear();  // (a forked child's contexts are not its parent's)
  link.answersEpoch = 0;
  link.lastChange.clear();
  link.lastChangeEpoch = 0;
  try {
    link.channel->connect(p.socket);
    // A program that execs another gives up this connection (the new image makes its own).
    ::fcntl(link.channel->socket().native_handle(), F_SETFD, FD_CLOEXEC);
    WireWriter hello;
    hello.u8(static_cast<uint8_t>(MessageKind::Hello));
    hello.u32(kProtocolVersion);
    hello.i32(static_cast<int32_t>(getpid()));
    hello.i32(static_cast<int32_t>(syscall(SYS_gettid)));
    hello.i32(p.rank);
    hello.i32(p.world);
    hello.u32(mainThread ? 0 : p.nextThread++);
    hello.text(programName());
    hello.u64(static_cast<uint64_t>(pthread_self()));
    link.channel->send(hello);
    std::vector<uint8_t> reply;
    if (!link.channel->receive(reply)) throw WireError("the server closed the connection");
    WireReader r(reply);
    const uint32_t version = r.u32();
    const bool ok = r.u8() != 0;
    const std::string why = r.text();
    if (!ok) {
      link.broken = why;
      return;
    }
    (void)version;
    link.waitingOutside = reinterpret_cast<runtime::MpiWaits*>(r.u64());
    link.posts = reinterpret_cast<PostRing*>(r.u64());
    const int fd = link.channel->receiveDescriptor();
    const int storeFd = link.channel->receiveDescriptor();
    link.channel->countSends(link.posts, false);
    link.channel->readAhead(50);
    std::lock_guard<std::mutex> lock(p.attachMutex);
    if (!SharedHostMemory::instance()) {
      SharedHostMemory::attach(fd);
      reserveDeviceWindow();
      SharedDeviceStore::attach(storeFd);
      runtime::DeviceMemory::shareStore(SharedDeviceStore::base(), AddressPlan::kDeviceBase);
    } else {
      ::close(fd);
      ::close(storeFd);
    }
  } catch (const std::exception& e) {
    link.broken = std::string("cannot reach the machine served by ascendsim exec --shared at ") +
                  p.socket + ": " + e.what();
  }
}

ThreadLink& link() {
  ThreadLink& l = tLink;
  const pid_t pid = ownPid.load(std::memory_order_relaxed);
  if (!l.channel || l.owner != pid) {
    if (l.channel && l.owner != pid) {
      // Inherited through fork(): the parent's connection is not ours to use or close.
      (void)l.channel->socket().release();
      l.channel.reset();
      l.broken.clear();
    }
    connectThread(l);
  }
  return l;
}

// The main thread connects as the library loads: the server then knows this process before any
// other may act, and a job's ranks all start at the same simulated instant.
const bool kConnectedAtLoad = [] {
  if (clientActive()) {
    runtime::Runtime::instance().refuseLocalCalls(
        "not yet served to programs sharing one machine under ascendsim exec --shared "
        "(docs/multiprocess.md lists the calls that are)");
    ThreadLink& l = link();
    if (!l.broken.empty()) std::cerr << "ascendsim: " << l.broken << "\n";
  }
  return true;
}();

// Sends a message that has no answer (a Post or a Check) in its turn among the thread's: in its
// queue in the job's shared memory (no system call; the Wake only if the server's thread sleeps),
// or, too long for it, on the socket with a marker in the queue where it belongs.
void sendUnanswered(ThreadLink& l, const WireWriter& m) {
  const std::vector<uint8_t>& bytes = m.bytes();
  if (!l.posts) {
    l.channel->send(m);
    return;
  }
  const bool fits = bytes.size() <= PostRing::kLongest;
  bool wake = false;
  for (int looks = 0; !l.posts->put(fits ? bytes.data() : nullptr,
                                    static_cast<uint32_t>(fits ? bytes.size() : 0), wake);
       ++looks) {
    // Full: the server's thread is behind (in a call that waits for other threads' turns, say),
    // as a full socket would block the send. Waits for room, and for a server that goes away.
    if (looks < 64) {
      sched_yield();
      continue;
    }
    pollfd p{l.channel->socket().native_handle(), POLLRDHUP, 0};
    if (::poll(&p, 1, 1) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))
      throw WireError("connection lost");
  }
  if (!fits) {
    l.channel->send(m);
  } else if (wake) {
    WireWriter w;
    w.u8(static_cast<uint8_t>(MessageKind::Wake));
    l.channel->send(w);
  }
}

}  // namespace

bool clientActive() {
  return !process().socket.empty();
}

pid_t ownProcess() {
  return ownPid.load(std::memory_order_relaxed);
}

bool pipelining() {
  static const bool on = [] {
    const char* v = std::getenv("ASCENDSIM_PIPELINE");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

CallReply callServer(const char* name, const WireWriter& arguments, bool wait) {
  CallReply reply;
  if (const std::string* kernel = runtime::sandbox::runningKernel()) {
    // The server waits for the kernel this thread runs: it would never answer
    // (docs/reliability.md).
    reply.code = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    setServedError(std::string(name) + ": called from inside kernel " + *kernel);
    return reply;
  }
  ThreadLink& l = link();
  if (l.broken.empty()) {
    try {
      WireWriter m;
      m.u8(static_cast<uint8_t>(wait ? MessageKind::Call : MessageKind::Post));
      m.text(name);
      m.blob(arguments.bytes().data(), arguments.bytes().size());
      if (!wait) {
        sendUnanswered(l, m);  // (no answer to wait for)
        return reply;
      }
      AwaitingServer awaiting;
      l.channel->send(m);
      std::vector<uint8_t> bytes;
      WireReader r = receiveAnswer(l, bytes);
      reply.code = r.i32();
      const std::string error = r.text();
      reply.results = r.blob();
      // A code without a text is no new failure (aclrtPeekAtLastError and aclrtGetLastError
      // return an earlier one): the earlier failure's text stays for aclGetRecentErrMsg.
      if (reply.code != ACL_SUCCESS && !error.empty()) setServedError(error);
      return reply;
    } catch (const WireError& e) {
      l.broken =
          "the machine served by ascendsim exec --shared is gone (" + std::string(e.what()) + ")";
    }
  }
  reply.code = ACL_ERROR_RT_INTERNAL_ERROR;
  setServedError(std::string(name) + ": " + l.broken);
  return reply;
}

void checkWithServer(const char* name, const WireWriter& arguments,
                     const std::vector<uint8_t>& results) {
  ThreadLink& l = link();
  if (!l.broken.empty()) return;  // (the next call that waits says so)
  try {
    WireWriter m;
    m.u8(static_cast<uint8_t>(MessageKind::Check));
    m.text(name);
    m.blob(arguments.bytes().data(), arguments.bytes().size());
    m.blob(results.data(), results.size());
    sendUnanswered(l, m);
  } catch (const WireError& e) {
    l.broken =
        "the machine served by ascendsim exec --shared is gone (" + std::string(e.what()) + ")";
  }
}

namespace {
// The key of a call with these arguments, in the thread's own string.
const std::string& keyOf(ThreadLink& l, const char* name, const WireWriter& arguments) {
  l.key.assign(name);
  l.key.push_back('\0');
  l.key.append(reinterpret_cast<const char*>(arguments.bytes().data()), arguments.bytes().size());
  return l.key;
}
}  // namespace

const std::vector<uint8_t>* learnedAnswer(const char* name, const WireWriter& arguments) {
  if (!pipelining()) return nullptr;
  ThreadLink& l = link();
  const uint64_t epoch = process().answersEpoch.load(std::memory_order_acquire);
  if (l.answersEpoch != epoch) {
    l.answers.clear();
    l.answersEpoch = epoch;
    return nullptr;
  }
  auto it = l.answers.find(keyOf(l, name, arguments));
  return it == l.answers.end() ? nullptr : &it->second;
}

uint64_t answersEpoch() {
  return process().answersEpoch.load(std::memory_order_acquire);
}

void learnAnswer(const char* name, const WireWriter& arguments, const std::vector<uint8_t>& results,
                 uint64_t epoch) {
  if (!pipelining()) return;
  // (Another thread's change since the call was sent: its answer may be from before it.)
  if (epoch != answersEpoch()) return;
  ThreadLink& l = link();
  if (l.answersEpoch != epoch) {
    l.answers.clear();
    l.answersEpoch = epoch;
  }
  // (Few calls are learned, with few arguments each; a program asking about every device of a
  // large machine keeps a few hundred.)
  l.answers[keyOf(l, name, arguments)] = results;
}

uint64_t forgetAnswers() {
  return process().answersEpoch.fetch_add(1, std::memory_order_acq_rel) + 1;
}

const std::vector<uint8_t>* repeatedChange(const char* name, const WireWriter& arguments) {
  if (!pipelining()) return nullptr;
  ThreadLink& l = link();
  const bool same = l.lastChangeEpoch != 0 &&
                    l.lastChangeEpoch == process().answersEpoch.load(std::memory_order_acquire) &&
                    l.lastChange == keyOf(l, name, arguments);
  return same ? &l.lastChangeResults : nullptr;
}

uint64_t lastChangeEpoch() {
  return link().lastChangeEpoch;
}

void rememberChange(const char* name, const WireWriter& arguments,
                    const std::vector<uint8_t>& results, uint64_t epoch) {
  ThreadLink& l = link();
  l.lastChange = keyOf(l, name, arguments);
  l.lastChangeResults = results;
  l.lastChangeEpoch = epoch;  // (another thread's change since: no longer the last)
}

void* stagingBuffer(int slot, uint64_t bytes) {
  ThreadLink& l = link();
  if (bytes <= l.stagingBytes[slot]) return l.staging[slot];
  if (!l.broken.empty()) return nullptr;
  try {
    WireWriter m;
    m.u8(static_cast<uint8_t>(MessageKind::Stage));
    m.u8(static_cast<uint8_t>(slot));
    m.u64(bytes);
    AwaitingServer awaiting;
    l.channel->send(m);
    std::vector<uint8_t> reply;
    WireReader r = receiveAnswer(l, reply);
    const uint64_t address = r.u64();
    if (!address) return nullptr;
    l.staging[slot] = reinterpret_cast<void*>(address);
    l.stagingBytes[slot] = bytes;
    return l.staging[slot];
  } catch (const WireError& e) {
    l.broken =
        "the machine served by ascendsim exec --shared is gone (" + std::string(e.what()) + ")";
    return nullptr;
  }
}

bool programMemory(const void* p, uint64_t bytes) {
  const auto a = reinterpret_cast<uint64_t>(p);
  if (!p) return false;
  if (a >= AddressPlan::kDeviceBase && a < AddressPlan::kDeviceBase + AddressPlan::kDeviceSize)
    return false;
  const SharedHostMemory* shared = SharedHostMemory::instance();
  return !(shared && shared->contains(p)) && !inSharedPages(p, bytes);
}

AwaitingServer::AwaitingServer() {
  ThreadLink& l = tLink;
  if (!l.channel || l.owner != ownPid.load(std::memory_order_relaxed) || !l.waitingOutside) return;
  word_ = l.waitingOutside;
  word_->awaitingServer.fetch_add(1, std::memory_order_release);
}

AwaitingServer::~AwaitingServer() {
  if (word_) word_->awaitingServer.fetch_sub(1, std::memory_order_release);
}

void markWaitingOutside(bool waiting) {
  ThreadLink& l = tLink;
  if (!clientActive() || !l.channel || l.owner != ownPid.load(std::memory_order_relaxed) ||
      !l.waitingOutside)
    return;
  // Calls nest (an MPI call made inside another, through the wrappers): the outermost counts.
  l.waitDepth += waiting ? 1 : -1;
  if (waiting && l.waitDepth == 1) {
    l.waitingOutside->entered.fetch_add(1, std::memory_order_relaxed);
    l.waitingOutside->waiting.store(1, std::memory_order_release);
  } else if (!waiting && l.waitDepth == 0) {
    l.waitingOutside->waiting.store(0, std::memory_order_release);
  }
}

namespace {
std::mutex ranksMutex;
std::map<const void*, uint32_t>& rankCounts() {
  static std::map<const void*, uint32_t> counts;
  return counts;
}
}  // namespace

void rememberRanks(const void* comm, uint32_t ranks) {
  std::lock_guard<std::mutex> lock(ranksMutex);
  rankCounts()[comm] = ranks;
}

void forgetRanks(const void* comm) {
  std::lock_guard<std::mutex> lock(ranksMutex);
  rankCounts().erase(comm);
}

uint32_t ranksOf(const void* comm) {
  std::lock_guard<std::mutex> lock(ranksMutex);
  auto it = rankCounts().find(comm);
  return it == rankCounts().end() ? 0 : it->second;
}

const char* takeServedError() {
  ThreadLink& l = tLink;
  if (l.error.empty()) return nullptr;
  l.returned = std::move(l.error);
  l.error.clear();
  return l.returned.c_str();
}

void discardLocalError() {
  runtime::Runtime::instance().takeRecentError();
}

void setServedError(std::string text) {
  tLink.error = std::move(text);
}

}  // namespace ascendsim::remote
