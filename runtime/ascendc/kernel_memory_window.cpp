#include "runtime/ascendc/kernel_memory_window.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cxxabi.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <typeinfo>

#include "runtime/core/device_memory.h"
#include "runtime/core/kernel_sandbox.h"

namespace ascendsim::runtime {
namespace {
thread_local KernelMemoryWindow* tActive = nullptr;  // the window whose block this thread runs
thread_local uint32_t tBlock = 0, tBlocks = 1;
thread_local int tLibraryDepth = 0;  // inside kernel_operator.h's own code
thread_local bool tOnHost = false;   // running a CPU-debug block (runOnHost)
// The window watching host pages, for faults of any thread.
std::atomic<KernelMemoryWindow*> gHostWatch{nullptr};
// The handlers before the window's: a fault that is not a kernel's goes to them.
struct sigaction gPreviousSegv {
}, gPreviousBus{};

// A kernel that recurses too deeply faults on its thread's stack guard, where a handler cannot
// run on that stack: every thread that runs blocks gets an alternate signal stack of this size
// (unless it has one as large), for the rest of its life. At the thread's end the stack it had
// before comes back (a sanitizer's runtime unmaps the one it gave the thread) and ours goes.
constexpr size_t kAltStackBytes = 256 * 1024;
class AltStack {
 public:
  void ensure() {
    if (mine_) return;
    stack_t current{};
    if (sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_ONSTACK)) return;
    if (!(current.ss_flags & SS_DISABLE) && current.ss_size >= kAltStackBytes) return;
    void* p =
        mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;  // a deep recursion then ends the process as it would anyway
    stack_t ss{};
    ss.ss_sp = p;
    ss.ss_size = kAltStackBytes;
    if (sigaltstack(&ss, nullptr) != 0) {
      munmap(p, kAltStackBytes);
      return;
    }
    previous_ = current;
    mine_ = p;
  }
  ~AltStack() {
    if (!mine_) return;
    stack_t now{};
    // Someone else's by now: ours stays mapped (address space only), theirs in place.
    if (sigaltstack(nullptr, &now) != 0 || now.ss_sp != mine_ || (now.ss_flags & SS_ONSTACK))
      return;
    previous_.ss_flags &= SS_DISABLE;  // (0: in use again, or disabled as it was)
    if (sigaltstack(&previous_, nullptr) == 0) munmap(mine_, kAltStackBytes);
  }

 private:
  void* mine_ = nullptr;
  stack_t previous_{};
};
thread_local AltStack tAltStack;

// The interrupted code's stack pointer, from the handler's context (0 where unknown).
uint64_t stackPointer(void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return static_cast<uint64_t>(uc->uc_mcontext.sp);
#else
  (void)uc;
  return 0;
#endif
}

// The watchdog's wall clock: a timer per thread that runs blocks, sending interruptSignal() to
// that thread when the kernel's limit ends and every 100 ms after until disarmed.
double monotonicSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
class BlockTimer {
 public:
  void arm(double seconds) {
    if (!made_) {
      sigevent sev{};
      sev.sigev_notify = SIGEV_THREAD_ID;
      sev.sigev_signo = sandbox::interruptSignal();
      sev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
      if (timer_create(CLOCK_MONOTONIC, &sev, &id_) != 0) return;  // (no wall-clock limit then)
      made_ = true;
    }
    itimerspec spec{};
    seconds = std::max(seconds, 1e-6);
    spec.it_value.tv_sec = static_cast<time_t>(seconds);
    spec.it_value.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
    spec.it_interval.tv_nsec = 100 * 1000 * 1000;
    timer_settime(id_, 0, &spec, nullptr);
  }
  void disarm() {
    if (!made_) return;
    itimerspec none{};
    timer_settime(id_, 0, &none, nullptr);
  }
  ~BlockTimer() {
    if (made_) timer_delete(id_);
  }

 private:
  bool made_ = false;
  timer_t id_{};
};
thread_local BlockTimer tTimer;

// Local buffers: [header page: the mapping's size][guard][data ... 32 bytes of slack][guard]. The
// guards of live buffers are listed (lock-free, for the fault handler) to name an overrun.
constexpr uint64_t kLocalPage = 4096;
constexpr size_t kGuardSlots = 16384;
std::atomic<uint64_t> gGuardBase[kGuardSlots];  // the first guard's address (0: free slot)
std::atomic<uint64_t> gGuardEnd[kGuardSlots];   // the second guard's end

bool isLocalGuard(uint64_t address) {
  for (size_t i = 0; i < kGuardSlots; ++i) {
    const uint64_t base = gGuardBase[i].load(std::memory_order_relaxed);
    if (base == 0) continue;
    const uint64_t end = gGuardEnd[i].load(std::memory_order_relaxed);
    if ((address >= base && address < base + kLocalPage) ||
        (address >= end - kLocalPage && address < end))
      return true;
  }
  return false;
}

// A fault this close below or above the stack pointer is the stack running out.
constexpr uint64_t kStackSlack = 64 * 1024;

std::string exceptionName() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  if (!type) return "an unknown exception";
  int status = 0;
  char* demangled = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : type->name();
  std::free(demangled);
  return "an exception of type " + name;
}
}  // namespace

KernelMemoryWindow::KernelMemoryWindow(DeviceMemory& memory) : memory_(memory) {
  struct sigaction sa {};
  sa.sa_sigaction = &KernelMemoryWindow::onFault;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;  // (ONSTACK: see AltStack)
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &oldSegv_);
  sigaction(SIGBUS, &sa, &oldBus_);
  gPreviousSegv = oldSegv_;
  gPreviousBus = oldBus_;
  struct sigaction si {};
  si.sa_sigaction = &KernelMemoryWindow::onInterrupt;
  si.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&si.sa_mask);
  sigaction(sandbox::interruptSignal(), &si, &oldInterrupt_);
}

KernelMemoryWindow::~KernelMemoryWindow() {
  finish();
  tTimer.disarm();
  sigaction(SIGSEGV, &oldSegv_, nullptr);
  sigaction(SIGBUS, &oldBus_, nullptr);
  sigaction(sandbox::interruptSignal(), &oldInterrupt_, nullptr);
}

DeviceMemory* KernelMemoryWindow::memoryFor(uint64_t address) const {
  if (memory_.contains(address)) return &memory_;
  for (DeviceMemory* peer : peers_) {
    if (peer->contains(address)) return peer;
  }
  return nullptr;
}

bool KernelMemoryWindow::mapIn(uint64_t address) {
  DeviceMemory* memory = memoryFor(address);
  if (!memory || !memory->allocationContaining(address)) return false;
  const uint64_t page = address / kPage * kPage;
  if (pages_.count(page)) return false;  // mapped already: the fault was not about access
  void* p = reinterpret_cast<void*>(page);
  if (mprotect(p, kPage, PROT_READ | PROT_WRITE) != 0) return false;
  std::vector<uint8_t>& before = pages_[page];
  before.resize(kPage);
  memory->read(page, before.data(), kPage);
  std::memcpy(p, before.data(), kPage);
  if (tLibraryDepth == 0) {
    // Scalar code's first touch: the page comes in through the core's load path (DataCopy's
    // pages are its own traffic).
    scalarPages_.emplace(page, tBlock);
    if (timeline_) timeline_->scalarLoad(kPage);
  }
  return true;
}

void KernelMemoryWindow::onFault(int sig, siginfo_t* info, void* context) {
  KernelMemoryWindow* w = tActive;
  const uint64_t address = reinterpret_cast<uint64_t>(info->si_addr);
  if (KernelMemoryWindow* watch = gHostWatch.load()) {
    if (watch->openHostPage(address, w == watch && w->fault_)) return;
  }
  if (w && w->fault_) {
    if (w->mapIn(address)) return;  // the access is retried and now succeeds
    const uint64_t sp = stackPointer(context);
    const bool stack = sp != 0 && !w->memoryFor(address) && address + kStackSlack >= sp &&
                       address <= sp + kStackSlack;
    w->fault_->kind = stack                   ? KernelFault::Kind::StackOverflow
                      : isLocalGuard(address) ? KernelFault::Kind::LocalOverrun
                                              : KernelFault::Kind::OutOfBounds;
    w->fault_->address = address;
    siglongjmp(w->jump_, 1);
  }
  // Not a kernel's access: whatever handled it before does.
  const struct sigaction& old = sig == SIGBUS ? gPreviousBus : gPreviousSegv;
  if (old.sa_flags & SA_SIGINFO) {
    old.sa_sigaction(sig, info, context);
    return;
  }
  if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    old.sa_handler(sig);
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void KernelMemoryWindow::countVector(uint64_t bytes, uintptr_t dst, uintptr_t src0,
                                     uintptr_t src1) {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;
  if (w->timeline_) w->timeline_->vector(bytes, dst, src0, src1);
  w->checkpoint(true);
}

void KernelMemoryWindow::countCopy(uint64_t global, uintptr_t local, uint64_t bytes,
                                   bool toGlobal) {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;
  if (w->timeline_) {
    if (toGlobal) {
      w->timeline_->copyOut(bytes, local);
    } else {
      w->timeline_->copyIn(bytes, local);
    }
  }
  w->checkpoint(true);
  // Device memory's traffic (host memory reached in place crosses PCIe by its pages instead).
  if (bytes == 0 || !w->memoryFor(global)) return;
  (toGlobal ? w->copiedOut_ : w->copiedIn_) += bytes;
  std::vector<Run>& runs = toGlobal ? w->copyOutRuns_ : w->copyInRuns_;
  if (!runs.empty() && runs.back().address + runs.back().bytes == global) {
    runs.back().bytes += bytes;
  } else {
    runs.push_back({global, bytes});
  }
}

void KernelMemoryWindow::countCopyBlocks(uint64_t global, uintptr_t local, uint64_t blockBytes,
                                         uint64_t blocks, uint64_t globalStride, bool toGlobal,
                                         bool atomic) {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;
  if (w->timeline_) {
    if (toGlobal) {
      w->timeline_->copyOut(blockBytes * blocks, local);
    } else {
      w->timeline_->copyIn(blockBytes * blocks, local);
    }
  }
  w->checkpoint(true);
  auto record = [&](bool out, uint64_t at) {
    if (blockBytes == 0 || !w->memoryFor(at)) return;
    (out ? w->copiedOut_ : w->copiedIn_) += blockBytes;
    std::vector<Run>& runs = out ? w->copyOutRuns_ : w->copyInRuns_;
    if (!runs.empty() && runs.back().address + runs.back().bytes == at) {
      runs.back().bytes += blockBytes;
    } else {
      runs.push_back({at, blockBytes});
    }
  };
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t at = global + b * globalStride;
    if (toGlobal && atomic) record(false, at);  // the bytes it combines with
    record(toGlobal, at);
  }
}

void KernelMemoryWindow::localAccess(uintptr_t buffer, bool write) {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;
  if (w->timeline_) w->timeline_->scalarAccess(buffer, write);
  w->checkpoint(true);
}

void KernelMemoryWindow::barrier() {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;
  if (w->timeline_) w->timeline_->barrier();
  w->checkpoint(true);
}

void KernelMemoryWindow::countLoopTest() {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_ || tLibraryDepth != 0) return;
  ++w->loopTests_;
  if (w->timeline_) w->timeline_->scalar(models::kScalarOpsPerLoopTest);
  w->checkpoint(false);  // (from anywhere in the kernel's code: a noexcept function, say)
}

void KernelMemoryWindow::checkpoint(bool unwind) {
  if (stopAsked_ != 0) {
    stop(stopAsked_ == 2 ? KernelFault::Kind::Interrupted : KernelFault::Kind::Timeout, "", unwind);
  }
  if (simulatedLimit_ != 0 && timeline_ && timeline_->cycles() > simulatedLimit_) {
    char reason[200];
    std::snprintf(reason, sizeof reason,
                  "its core spent more than %g s of simulated time on the block (the watchdog's "
                  "limit, ASCENDSIM_KERNEL_TIMEOUT)",
                  sandbox::kernelLimits().simulatedSeconds);
    stop(KernelFault::Kind::Timeout, reason, unwind);
  }
}

void KernelMemoryWindow::stop(KernelFault::Kind kind, const std::string& reason, bool unwind) {
  fault_->kind = kind;
  fault_->reason = reason;
  if (unwind) throw BlockStopped{};
  siglongjmp(jump_, 1);
}

void KernelMemoryWindow::onInterrupt(int, siginfo_t*, void*) {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;  // (a block that has just ended)
  if (w->stopAsked_ == 0) {
    w->stopAsked_ = sandbox::kernelsStopped() ? 2 : 1;  // at its next instruction
    return;
  }
  // Nothing the simulator sees within the grace: abandoned where it is (no allocation here).
  w->fault_->kind =
      w->stopAsked_ == 2 ? KernelFault::Kind::Interrupted : KernelFault::Kind::Timeout;
  siglongjmp(w->jump_, 1);
}

void KernelMemoryWindow::stopForExit(int status, bool abort) {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;
  w->fault_->kind = KernelFault::Kind::Exit;
  w->fault_->address = static_cast<uint64_t>(static_cast<uint32_t>(status));
  w->fault_->reason = abort ? "abort" : "";
  siglongjmp(w->jump_, 1);  // (exit() and abort() may not throw)
}

void* KernelMemoryWindow::allocateLocal(uint64_t bytes) {
  const uint64_t data = (bytes + 32 + 31) / 32 * 32;
  const uint64_t dataPages = (data + kLocalPage - 1) / kLocalPage;
  const uint64_t total = (dataPages + 3) * kLocalPage;
  void* m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  auto* base = static_cast<uint8_t*>(m);
  *reinterpret_cast<uint64_t*>(base) = total;
  mprotect(base + kLocalPage, kLocalPage, PROT_NONE);
  mprotect(base + (dataPages + 2) * kLocalPage, kLocalPage, PROT_NONE);
  const uint64_t guard = reinterpret_cast<uint64_t>(base) + kLocalPage;
  for (size_t i = 0; i < kGuardSlots; ++i) {
    uint64_t empty = 0;
    if (gGuardBase[i].load(std::memory_order_relaxed) == 0 &&
        gGuardBase[i].compare_exchange_strong(empty, guard)) {
      gGuardEnd[i].store(reinterpret_cast<uint64_t>(base) + total);
      break;
    }
  }
  return base + 2 * kLocalPage + dataPages * kLocalPage - data;
}

void KernelMemoryWindow::freeLocal(void* buffer) {
  if (!buffer) return;
  auto* base = reinterpret_cast<uint8_t*>(
      reinterpret_cast<uint64_t>(buffer) / kLocalPage * kLocalPage - 2 * kLocalPage);
  const uint64_t guard = reinterpret_cast<uint64_t>(base) + kLocalPage;
  for (size_t i = 0; i < kGuardSlots; ++i) {
    uint64_t mine = guard;
    if (gGuardBase[i].compare_exchange_strong(mine, 0)) break;
  }
  munmap(base, *reinterpret_cast<const uint64_t*>(base));
}

void KernelMemoryWindow::enterLibrary(bool enter) {
  tLibraryDepth += enter ? 1 : -1;
}

uint32_t KernelMemoryWindow::currentBlock() {
  return tBlock;
}
uint32_t KernelMemoryWindow::blockCount() {
  return tBlocks;
}

bool KernelMemoryWindow::runBlock(void (*entry)(void*), void* closure, uint32_t block,
                                  uint32_t blocks, KernelFault& fault) {
  fault = KernelFault{};
  fault.block = block;
  tBlock = block;
  tBlocks = blocks;
  KernelMemoryWindow* outer = tActive;
  tActive = this;
  fault_ = &fault;
  if (cores_) timeline_ = std::make_unique<models::BlockTimeline>(*cores_);
  tAltStack.ensure();
  const int libraryDepth = tLibraryDepth;
  // The watchdog (runtime/core/kernel_sandbox.h): its simulated limit per block, its wall-clock
  // limit for the kernel, from its first block's start.
  const sandbox::KernelLimits& limits = sandbox::kernelLimits();
  simulatedLimit_ = cores_ && limits.simulatedSeconds > 0
                        ? static_cast<uint64_t>(limits.simulatedSeconds * cores_->clock)
                        : 0;
  stopAsked_ = 0;
  bool run = true;
  if (sandbox::kernelsStopped()) {
    fault.kind = KernelFault::Kind::Interrupted;
    run = false;
  } else if (limits.wallSeconds > 0) {
    const double now = monotonicSeconds();
    if (wallDeadline_ == 0) wallDeadline_ = now + limits.wallSeconds;
    if (now >= wallDeadline_) {
      fault.kind = KernelFault::Kind::Timeout;
      run = false;
    } else {
      tTimer.arm(wallDeadline_ - now);
    }
  }
  sandbox::blockStarted();
  // A trap or an exceeded resource is raised from the kernel's own calls: it unwinds the block
  // like an exception, so the kernel's objects (a TPipe's buffers) are destroyed. A fault in the
  // signal handler cannot unwind: it jumps back here, and what the block held stays allocated.
  // The kernel's own exceptions stop the block too (they would end the process otherwise).
  if (run) {
    if (sigsetjmp(jump_, 1) == 0) {
      try {
        entry(closure);
      } catch (const BlockStopped&) {
      } catch (abi::__forced_unwind&) {
        throw;  // a cancelled thread must finish unwinding
      } catch (const std::exception& e) {
        fault.kind = KernelFault::Kind::Exception;
        fault.reason = exceptionName() + ": " + e.what();
      } catch (...) {
        fault.kind = KernelFault::Kind::Exception;
        fault.reason = exceptionName();
      }
    }
  }
  fault_ = nullptr;  // (a signal of the watchdog from now on finds no block to stop)
  tTimer.disarm();
  sandbox::blockEnded();
  if (fault.kind == KernelFault::Kind::Timeout && fault.reason.empty()) {
    char reason[200];
    std::snprintf(reason, sizeof reason,
                  "the kernel ran for more than %g s of wall-clock time (the watchdog's limit, "
                  "ASCENDSIM_KERNEL_WALL_TIMEOUT)",
                  limits.wallSeconds);
    fault.reason = reason;
  }
  // A block stopped inside kernel_operator.h's code (a DataCopy that faulted) never left it: the
  // next block, and the next kernel, start outside it again.
  tLibraryDepth = libraryDepth;
  if (timeline_) blockCycles_.push_back(timeline_->cycles());
  timeline_.reset();
  tActive = outer;
  tBlock = 0;
  tBlocks = 1;
  return fault.kind == KernelFault::Kind::None;
}

int64_t KernelMemoryWindow::runOnHost(void (*entry)(void*), void* closure, uint32_t blocks) {
  int64_t trapped = -1;
  const bool outer = tOnHost;
  tOnHost = true;
  for (uint32_t b = 0; b < blocks && trapped < 0; ++b) {
    tBlock = b;
    tBlocks = blocks;
    try {
      entry(closure);
    } catch (const BlockStopped&) {
      trapped = b;
    }
  }
  tOnHost = outer;
  tBlock = 0;
  tBlocks = 1;
  return trapped;
}

void KernelMemoryWindow::trap() {
  if (!tActive && tOnHost) throw BlockStopped{};  // a CPU-debug block
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;  // not inside a kernel: nothing to stop
  w->fault_->kind = KernelFault::Kind::Trap;
  throw BlockStopped{};
}

void KernelMemoryWindow::exceedResource(const char* reason) {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_) return;
  w->fault_->kind = KernelFault::Kind::Resource;
  w->fault_->reason = reason ? reason : "";
  throw BlockStopped{};
}

uint32_t KernelMemoryWindow::unifiedBuffer() {
  return tActive && tActive->fault_ ? tActive->unifiedBuffer_ : 0;
}

std::vector<KernelMemoryWindow::Run> KernelMemoryWindow::touchedRuns() const {
  std::vector<Run> runs;
  for (const auto& [page, block] : scalarPages_) {
    if (!runs.empty() && runs.back().address + runs.back().bytes == page) {
      runs.back().bytes += kPage;
    } else {
      runs.push_back({page, kPage});
    }
  }
  return runs;
}

std::vector<KernelMemoryWindow::Run> KernelMemoryWindow::changedRuns() const {
  std::vector<Run> runs;
  for (uint64_t page : changed_) {
    if (!scalarPages_.count(page)) continue;  // (DataCopy's writes are counted as copied)
    if (!runs.empty() && runs.back().address + runs.back().bytes == page) {
      runs.back().bytes += kPage;
    } else {
      runs.push_back({page, kPage});
    }
  }
  return runs;
}

void KernelMemoryWindow::watchHost(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  for (const auto& [address, size] : ranges) {
    // Whole pages inside the range only: the ones at its ends may hold other data (the
    // allocator's own, say), which must not fault.
    const uint64_t begin = (address + kPage - 1) / kPage * kPage;
    const uint64_t end = (address + size) / kPage * kPage;
    if (end <= begin) continue;
    if (mprotect(reinterpret_cast<void*>(begin), end - begin, PROT_NONE) == 0)
      hostWatched_.push_back({begin, end});
  }
  if (!hostWatched_.empty()) gHostWatch.store(this);
}

std::vector<uint64_t> KernelMemoryWindow::hostTouchedPages() const {
  std::vector<uint64_t> pages;
  pages.reserve(hostPages_.size());
  for (const auto& entry : hostPages_) pages.push_back(entry.first);
  return pages;
}

bool KernelMemoryWindow::openHostPage(uint64_t address, bool record) {
  const uint64_t page = address / kPage * kPage;
  const bool watched = std::any_of(hostWatched_.begin(), hostWatched_.end(), [page](const auto& r) {
    return page >= r.first && page < r.second;
  });
  if (!watched) return false;
  // (Only the kernel's own thread reads or changes the record of pages.)
  if (record && hostPages_.count(page)) return false;  // open already: the fault is not about it
  if (mprotect(reinterpret_cast<void*>(page), kPage, PROT_READ | PROT_WRITE) != 0) return false;
  if (record) {
    std::vector<uint8_t>& before = hostPages_[page];
    before.assign(reinterpret_cast<const uint8_t*>(page),
                  reinterpret_cast<const uint8_t*>(page) + kPage);
  }
  return true;
}

void KernelMemoryWindow::unwatchHost() {
  if (hostWatched_.empty() || gHostWatch.load() != this) return;
  gHostWatch.store(nullptr);
  for (const auto& [page, before] : hostPages_) {
    if (std::memcmp(reinterpret_cast<const void*>(page), before.data(), kPage) != 0)
      hostChanged_.push_back(page);
  }
  for (const auto& [begin, end] : hostWatched_)
    mprotect(reinterpret_cast<void*>(begin), end - begin, PROT_READ | PROT_WRITE);
}

void KernelMemoryWindow::finish() {
  unwatchHost();
  if (finished_) return;
  finished_ = true;
  for (const auto& [page, before] : pages_) {
    void* p = reinterpret_cast<void*>(page);
    if (std::memcmp(p, before.data(), kPage) != 0) {
      // Only the bytes of live allocations go back (a page may hold the end of one and free space).
      DeviceMemory& memory = *memoryFor(page);
      for (uint64_t a = page; a < page + kPage;) {
        const auto* alloc = memory.allocationContaining(a);
        if (!alloc) {
          ++a;
          continue;
        }
        const uint64_t end =
            std::min(page + kPage, alloc->base + std::max<uint64_t>(alloc->size, 1));
        memory.write(a, reinterpret_cast<const uint8_t*>(a), end - a);
        a = end;
      }
      changed_.push_back(page);
      // A page scalar code changed goes back through the store path of the core that first
      // touched it, after its block.
      const auto scalar = scalarPages_.find(page);
      if (cores_ && scalar != scalarPages_.end() && scalar->second < blockCycles_.size()) {
        blockCycles_[scalar->second] += models::BlockTimeline::copyOutCycles(*cores_, kPage);
      }
    }
    madvise(p, kPage, MADV_DONTNEED);
    mprotect(p, kPage, PROT_NONE);
  }
}

KernelUse KernelMemoryWindow::use() const {
  auto ranges = [](const std::vector<Run>& runs) {
    std::vector<KernelRange> out;
    out.reserve(runs.size());
    for (const Run& r : runs) out.push_back({r.address, r.bytes});
    return out;
  };
  KernelUse u;
  u.copiedIn = copiedIn_;
  u.copiedOut = copiedOut_;
  u.copyInRuns = ranges(copyInRuns_);
  u.copyOutRuns = ranges(copyOutRuns_);
  u.touchedRuns = ranges(touchedRuns());
  u.changedRuns = ranges(changedRuns());
  u.blockCycles = blockCycles_;
  u.hostTouched = hostTouchedPages();
  u.hostChanged = hostChanged_;
  return u;
}

}  // namespace ascendsim::runtime
