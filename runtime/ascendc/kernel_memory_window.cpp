#include "runtime/ascendc/kernel_memory_window.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cxxabi.h>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <typeinfo>

#include "runtime/core/device_memory.h"

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
}

KernelMemoryWindow::~KernelMemoryWindow() {
  finish();
  sigaction(SIGSEGV, &oldSegv_, nullptr);
  sigaction(SIGBUS, &oldBus_, nullptr);
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
    w->fault_->kind = stack ? KernelFault::Kind::StackOverflow : KernelFault::Kind::OutOfBounds;
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
  if (w && w->fault_ && w->timeline_) w->timeline_->vector(bytes, dst, src0, src1);
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
  if (w && w->fault_ && w->timeline_) w->timeline_->scalarAccess(buffer, write);
}

void KernelMemoryWindow::barrier() {
  KernelMemoryWindow* w = tActive;
  if (w && w->fault_ && w->timeline_) w->timeline_->barrier();
}

void KernelMemoryWindow::countLoopTest() {
  KernelMemoryWindow* w = tActive;
  if (!w || !w->fault_ || tLibraryDepth != 0) return;
  ++w->loopTests_;
  if (w->timeline_) w->timeline_->scalar(models::kScalarOpsPerLoopTest);
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
  // A trap or an exceeded resource is raised from the kernel's own calls: it unwinds the block
  // like an exception, so the kernel's objects (a TPipe's buffers) are destroyed. A fault in the
  // signal handler cannot unwind: it jumps back here, and what the block held stays allocated.
  // The kernel's own exceptions stop the block too (they would end the process otherwise).
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
  // A block stopped inside kernel_operator.h's code (a DataCopy that faulted) never left it: the
  // next block, and the next kernel, start outside it again.
  tLibraryDepth = libraryDepth;
  fault_ = nullptr;
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
