#include "runtime/remote/kernel_service.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <thread>

#include "runtime/ascendc/kernel_memory_window.h"
#include "runtime/core/device_memory.h"
#include "runtime/core/host_threads.h"
#include "runtime/core/kernel_sandbox.h"
#include "runtime/remote/machine_client.h"
#include "runtime/remote/machine_server.h"
#include "runtime/remote/program_pages.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/shared_host_memory.h"

namespace ascendsim::remote {
using runtime::KernelRange;
using runtime::KernelRun;
using runtime::KernelStop;
using runtime::KernelUse;

namespace {
void putRanges(WireWriter& w, const std::vector<KernelRange>& ranges) {
  w.u64(ranges.size());
  for (const KernelRange& r : ranges) {
    w.u64(r.address);
    w.u64(r.bytes);
    w.u64(r.target);
  }
}

std::vector<KernelRange> takeRanges(WireReader& r) {
  const uint64_t n = r.u64();
  if (n > WireReader::kMaxMessage / 24) throw WireError("too many ranges");
  std::vector<KernelRange> out(n);
  for (KernelRange& k : out) {
    k.address = r.u64();
    k.bytes = r.u64();
    k.target = r.u64();
  }
  return out;
}

void putNumbers(WireWriter& w, const std::vector<uint64_t>& v) {
  w.u64(v.size());
  for (uint64_t x : v) w.u64(x);
}

std::vector<uint64_t> takeNumbers(WireReader& r) {
  const uint64_t n = r.u64();
  if (n > WireReader::kMaxMessage / 8) throw WireError("too many numbers");
  std::vector<uint64_t> out(n);
  for (uint64_t& x : out) x = r.u64();
  return out;
}

// ---------------------------------------------------------------- the program's end

// Runs one launch's blocks here, over a view of the device's memory in the shared store.
void runKernel(WireReader& in, WireWriter& out) {
  const uint64_t entry = in.u64(), closure = in.u64();
  KernelRun run;
  run.device = in.i32();
  run.base = in.u64();
  run.span = in.u64();
  run.allocations = takeRanges(in);
  in.blobInto(&run.cores, sizeof run.cores);
  run.unifiedBuffer = in.u32();
  run.blocks = in.u32();
  const uint64_t peers = in.u64();
  if (peers > 1024) throw WireError("too many peers");
  for (uint64_t i = 0; i < peers; ++i) {
    KernelRun::Peer p;
    p.base = in.u64();
    p.span = in.u64();
    p.allocations = takeRanges(in);
    run.peers.push_back(std::move(p));
  }
  run.hostRanges = takeRanges(in);
  auto viewOf = [](uint64_t base, uint64_t span, const std::vector<KernelRange>& ranges) {
    std::vector<runtime::DeviceMemory::Range> allocations;
    for (const KernelRange& a : ranges) allocations.push_back({a.address, a.bytes, a.target});
    return std::make_unique<runtime::DeviceMemory>(base, span, allocations);
  };
  std::unique_ptr<runtime::DeviceMemory> own = viewOf(run.base, run.span, run.allocations);
  runtime::DeviceMemory& view = *own;
  std::vector<std::unique_ptr<runtime::DeviceMemory>> peerViews;
  for (const KernelRun::Peer& p : run.peers)
    peerViews.push_back(viewOf(p.base, p.span, p.allocations));
  runtime::KernelFault fault;
  KernelUse use;
  {
    runtime::KernelMemoryWindow window(view);
    window.setUnifiedBuffer(run.unifiedBuffer);
    window.setCores(&run.cores);
    for (auto& peer : peerViews) window.addPeer(*peer);
    // Host ranges: managed memory (in the job's shared memory) and this program's registrations
    // (another process's addresses are not ours to watch).
    std::vector<std::pair<uint64_t, uint64_t>> host;
    const SharedHostMemory* shared = SharedHostMemory::instance();
    for (const KernelRange& r : run.hostRanges) {
      if ((shared && shared->contains(reinterpret_cast<const void*>(r.address))) ||
          registeredHere(r.address, r.bytes))
        host.push_back({r.address, r.bytes});
    }
    window.watchHost(host);
    auto* code = reinterpret_cast<void (*)(void*)>(entry);
    static const std::string kServed = "code (run here for the served machine)";
    const runtime::sandbox::KernelScope inKernel(kServed);  // (its AscendCL calls are refused)
    for (uint32_t block = 0; block < run.blocks; ++block) {
      if (!window.runBlock(code, reinterpret_cast<void*>(closure), block, run.blocks, fault)) break;
    }
    window.finish();
    use = window.use();
  }
  std::fflush(stdout);  // the kernel's printf shows before the program's next line
  out.u64(use.copiedIn);
  out.u64(use.copiedOut);
  for (const auto* ranges :
       {&use.copyInRuns, &use.copyOutRuns, &use.touchedRuns, &use.changedRuns}) {
    putRanges(out, *ranges);
  }
  putNumbers(out, use.blockCycles);
  std::vector<uint64_t> written = view.writtenPages();
  for (auto& peer : peerViews)
    written.insert(written.end(), peer->writtenPages().begin(), peer->writtenPages().end());
  putNumbers(out, written);
  putNumbers(out, use.hostTouched);
  putNumbers(out, use.hostChanged);
  out.i32(static_cast<int32_t>(fault.kind));
  out.text(fault.reason);
  out.u64(fault.address);
  out.u32(fault.block);
}

void serve(std::unique_ptr<Channel> channel) {
  std::vector<uint8_t> message;
  try {
    while (channel->receive(message)) serveKernelMessage(message, *channel);
  } catch (const WireError&) {
    // The server is gone: the program's next call says so.
  }
}

struct ServiceState {
  std::mutex mutex;
  pid_t owner = 0;              // the process whose service runs (a forked child makes its own)
  std::atomic<pid_t> ready{0};  // owner, once the service runs
};
}  // namespace

bool ensureKernelService(std::string& why) {
  static ServiceState state;
  const pid_t self = ownProcess();  // (asked at every launch: no system call)
  if (state.ready.load(std::memory_order_acquire) == self) return true;
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.owner == self) return true;
  auto channel = std::make_unique<Channel>();
  try {
    channel->connect(std::getenv(kSocketVariable) ? std::getenv(kSocketVariable) : "");
    WireWriter hello;
    hello.u8(static_cast<uint8_t>(MessageKind::Hello));
    hello.u32(kProtocolVersion);
    hello.i32(static_cast<int32_t>(getpid()));
    hello.i32(static_cast<int32_t>(syscall(SYS_gettid)));
    hello.i32(-1);
    hello.i32(0);
    hello.u32(kServiceThread);
    hello.text("");
    hello.u64(0);
    const AwaitingServer awaiting;  // (the calling thread's own connection's word)
    channel->send(hello);
    std::vector<uint8_t> reply;
    if (!channel->receive(reply)) throw WireError("the server closed the connection");
    WireReader r(reply);
    r.u32();
    const bool ok = r.u8() != 0;
    const std::string text = r.text();
    if (!ok) {
      why = text;
      return false;
    }
    ::close(channel->receiveDescriptor());  // (mapped already by the process's first connection)
    ::close(channel->receiveDescriptor());
    channel->readAhead(0);
  } catch (const std::exception& e) {
    why = std::string("cannot reach the machine served by ascendsim exec --shared: ") + e.what();
    return false;
  }
  // Not a thread of the program's: the runtime neither numbers it nor waits for it.
  runtime::HostThreads::InternalThreads internal;
  std::thread(serve, std::move(channel)).detach();
  state.owner = self;
  state.ready.store(self, std::memory_order_release);
  return true;
}

bool serveKernelMessage(const std::vector<uint8_t>& message, Channel& channel) {
  WireReader in(message);
  const auto kind = static_cast<MessageKind>(in.u8());
  if (kind == MessageKind::RunKernel) {
    const int kept = errno;  // (a thread that waits for an answer keeps its errno)
    WireWriter out;
    out.u8(static_cast<uint8_t>(MessageKind::KernelDone));
    runKernel(in, out);
    channel.send(out);
    errno = kept;
    return true;
  }
  if (kind == MessageKind::ReleaseKernel) {
    const int kept = errno;
    const uint64_t release = in.u64(), closure = in.u64();
    if (release && closure)
      reinterpret_cast<void (*)(void*)>(release)(reinterpret_cast<void*>(closure));
    errno = kept;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- the server's end

struct KernelService::Route {
  std::shared_ptr<ServedProcess> process;
  std::unique_lock<std::mutex> threads, wire;
  Channel* channel = nullptr;
};

KernelService::Route KernelService::route() {
  Route r;
  r.process = process_.lock();
  if (r.process) {
    // A thread of the program that waits for the server's answer is awake (polling for it) or
    // about to be: it runs the kernel at once, where the service's thread would have to be woken
    // (and the program's threads on two cores make every page the kernel maps in and out a TLB
    // shootdown between them). Its session stays registered while the connection is borrowed.
    r.threads = std::unique_lock<std::mutex>(r.process->threadsMutex);
    for (Session* s : r.process->threads) {
      std::unique_lock<std::mutex> wire(s->channel().mutex());
      bool waits = false;
      try {
        waits = s->channel().peerWaitsLocked();
      } catch (const WireError&) {
        // (A broken connection: its session ends it.)
      }
      if (waits) {
        r.wire = std::move(wire);
        r.channel = &s->channel();
        return r;
      }
    }
    r.threads.unlock();
  }
  r.wire = std::unique_lock<std::mutex>(channel_->mutex());
  r.channel = channel_.get();
  return r;
}

KernelUse KernelService::run(uint64_t entry, uint64_t closure, const KernelRun& run,
                             KernelStop& stop) {
  std::lock_guard<std::mutex> lock(mutex_);
  KernelUse use;
  try {
    WireWriter w;
    w.u8(static_cast<uint8_t>(MessageKind::RunKernel));
    w.u64(entry);
    w.u64(closure);
    w.i32(run.device);
    w.u64(run.base);
    w.u64(run.span);
    putRanges(w, run.allocations);
    w.blob(&run.cores, sizeof run.cores);
    w.u32(run.unifiedBuffer);
    w.u32(run.blocks);
    w.u64(run.peers.size());
    for (const KernelRun::Peer& p : run.peers) {
      w.u64(p.base);
      w.u64(p.span);
      putRanges(w, p.allocations);
    }
    putRanges(w, run.hostRanges);
    const Route via = route();
    via.channel->sendLocked(w);
    std::vector<uint8_t> reply;
    via.channel->receiveKindLocked(static_cast<uint8_t>(MessageKind::KernelDone), reply);
    WireReader r(reply);
    r.u8();
    use.copiedIn = r.u64();
    use.copiedOut = r.u64();
    for (auto* ranges : {&use.copyInRuns, &use.copyOutRuns, &use.touchedRuns, &use.changedRuns})
      *ranges = takeRanges(r);
    use.blockCycles = takeNumbers(r);
    use.devicePagesWritten = takeNumbers(r);
    use.hostTouched = takeNumbers(r);
    use.hostChanged = takeNumbers(r);
    stop.kind = r.i32();
    stop.reason = r.text();
    stop.address = r.u64();
    stop.block = r.u32();
  } catch (const WireError& e) {
    use = KernelUse();
    stop.kind = static_cast<int32_t>(runtime::KernelFault::Kind::Exception);
    stop.reason = std::string("the program that launched it is gone (") + e.what() + ")";
    stop.block = 0;
  }
  return use;
}

void KernelService::release(uint64_t release, uint64_t closure) {
  if (!release || !closure) return;  // (nothing to do in the program)
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    WireWriter w;
    w.u8(static_cast<uint8_t>(MessageKind::ReleaseKernel));
    w.u64(release);
    w.u64(closure);
    route().channel->sendLocked(w);
  } catch (const WireError&) {
    // A program that is gone has nothing left to release.
  }
}

}  // namespace ascendsim::remote
