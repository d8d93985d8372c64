#pragma once
// Device memory as an Ascend C kernel running on the host sees it: while the kernel's blocks run,
// its device's allocations can be read and written at their own (simulated) addresses. The
// reserved range stays inaccessible; the first touch of a 4 KiB page faults, and the fault
// handler maps that page in with its contents from the device's sparse store. When the kernel
// ends, the pages go back to the store (the ones it changed) and become inaccessible again. A
// touch outside every live allocation of the device (an out-of-bounds access) stops the block
// and is reported with its address; so is an Ascend C trap.

#include <signal.h>

#include <csetjmp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/compute/ascendc_cost.h"
#include "runtime/core/kernel_use.h"

namespace ascendsim::runtime {

class DeviceMemory;

struct KernelFault {
  // Resource: the kernel asked its core for more than it has (`reason` says what). Exception:
  // its code threw a C++ exception out of the block (`reason`: what() or its type). StackOverflow:
  // its code ran out of the host thread's stack (deep recursion), at `address`. Exit: its code
  // called exit() (`address`: the status) or abort() (`reason`: "abort"). Timeout: the watchdog
  // stopped it (`reason` says which limit). Interrupted: the process is ending on a signal.
  // LocalOverrun: it touched the guard page after (or before) a local buffer, at `address`.
  enum class Kind {
    None,
    OutOfBounds,
    Trap,
    Resource,
    Exception,
    StackOverflow,
    Exit,
    Timeout,
    Interrupted,
    LocalOverrun
  };
  Kind kind = Kind::None;
  std::string reason;
  uint64_t address = 0;  // OutOfBounds: the address touched
  uint32_t block = 0;
};

// What trap() and exceedResource() throw to stop the running block (caught by runBlock).
struct BlockStopped {};

class KernelMemoryWindow {
 public:
  explicit KernelMemoryWindow(DeviceMemory& memory);
  // The memory of a device the kernel's device has peer access to: the kernel may read and write
  // its allocations as its own (an IPC-imported buffer of another device, say).
  void addPeer(DeviceMemory& peer) { peers_.push_back(&peer); }
  ~KernelMemoryWindow();  // returns every page to the store
  KernelMemoryWindow(const KernelMemoryWindow&) = delete;
  KernelMemoryWindow& operator=(const KernelMemoryWindow&) = delete;

  // Runs `entry(closure)` as block `block` of `blocks`; false and `fault` filled when it stopped
  // on a fault.
  bool runBlock(void (*entry)(void*), void* closure, uint32_t block, uint32_t blocks,
                KernelFault& fault);
  // The CPU-debug run of a kernel (tikicpulib.h's ICPU_RUN_KF): its `blocks` blocks one after the
  // other on the calling thread, on host memory, untimed, with no device. -1, or the first block
  // that trapped (the rest do not run).
  static int64_t runOnHost(void (*entry)(void*), void* closure, uint32_t blocks);
  // Stops the running block with a trap (Ascend C's trap instruction).
  static void trap();
  // From exit() and abort() (runtime/api/thread_hooks.cpp): when the calling thread runs a block,
  // stops it (the kernel fails) and does not return; otherwise returns.
  static void stopForExit(int status, bool abort);
  // A local buffer (TQue/TBuf storage) of `bytes` zeroed bytes, 32-byte aligned, between two
  // inaccessible guard pages (its end 32 bytes of slack before the second): a kernel that writes
  // past it faults on the guard instead of corrupting the host's heap. freeLocal gives it back.
  static void* allocateLocal(uint64_t bytes);
  static void freeLocal(void* buffer);
  // Stops the running block: it asked its core for more than the core has.
  static void exceedResource(const char* reason);
  // Host memory kernels reach in place (registered mapped memory, managed memory): while the
  // blocks run, the whole pages inside these ranges are watched, so that the pages a block touches
  // and changes are known (their traffic crosses PCIe). Another thread touching a watched page
  // meanwhile just makes it unwatched (the kernel's use of it then goes uncounted); a system call
  // given a watched page fails with EFAULT until the kernel ends.
  void watchHost(const std::vector<std::pair<uint64_t, uint64_t>>& ranges);
  // The watched pages the blocks touched, and those they changed (valid after finish()).
  std::vector<uint64_t> hostTouchedPages() const;
  const std::vector<uint64_t>& hostChangedPages() const { return hostChanged_; }
  // The Unified Buffer of the core the running kernel's blocks run on (0 outside a kernel).
  void setUnifiedBuffer(uint32_t bytes) { unifiedBuffer_ = bytes; }
  static uint32_t unifiedBuffer();
  // The block the calling thread runs, and how many the kernel has (0 and 1 outside a kernel).
  static uint32_t currentBlock();
  static uint32_t blockCount();
  // The cores the blocks run on: each block's instructions are timed on one of them (the cost
  // model, models/compute/ascendc_cost.h). Without it nothing is timed.
  void setCores(const spec::AiCoreSpec* cores) { cores_ = cores; }
  // What the running block's vector interface did (kernel_operator.h reports it): a vector
  // instruction over `bytes` writing local buffer `dst` from `src0` and `src1` (0: none); DataCopy
  // of `bytes` between global memory at `global` and local buffer `local`; the scalar unit reading
  // or writing a local buffer; PipeBarrier<PIPE_ALL>.
  static void countVector(uint64_t bytes, uintptr_t dst, uintptr_t src0, uintptr_t src1);
  static void countCopy(uint64_t global, uintptr_t local, uint64_t bytes, bool toGlobal);
  // One copy instruction of `blocks` blocks of `blockBytes`, `globalStride` bytes apart in global
  // memory (DataCopy with DataCopyParams, DataCopyPad): timed as one instruction of all their
  // bytes; device memory carries each block. `atomic`: a copy out that combines with what global
  // memory holds (SetAtomicAdd ...), which reads those bytes too.
  static void countCopyBlocks(uint64_t global, uintptr_t local, uint64_t blockBytes,
                              uint64_t blocks, uint64_t globalStride, bool toGlobal, bool atomic);
  static void localAccess(uintptr_t buffer, bool write);
  static void barrier();
  // Kernels built by ascendc_library count every test of a loop condition in their own source
  // (ascendsim-ascendc-prep puts the count in): their scalar code's time, the same whatever the
  // host compiler's optimisation (not counted while kernel_operator.h's stand-ins for vector
  // instructions run, between enterLibrary(true) and enterLibrary(false)).
  static void countLoopTest();
  static void enterLibrary(bool enter);
  uint64_t loopTests() const { return loopTests_; }
  uint64_t copiedIn() const { return copiedIn_; }
  uint64_t copiedOut() const { return copiedOut_; }
  // Where DataCopy read and wrote device memory, in order.
  struct Run {
    uint64_t address, bytes;
  };
  const std::vector<Run>& copyInRuns() const { return copyInRuns_; }
  const std::vector<Run>& copyOutRuns() const { return copyOutRuns_; }
  // Each block's cycles on its core (valid after finish(): a page of global memory its scalar
  // code changed is written back through the core's store path at its end).
  const std::vector<uint64_t>& blockCycles() const { return blockCycles_; }

  // What the blocks' scalar code touched (not DataCopy): every page it read or wrote first, and
  // those whose contents changed.
  std::vector<Run> touchedRuns() const;
  std::vector<Run> changedRuns() const;  // valid after finish()
  // Returns the pages to the store now (the destructor does it otherwise).
  void finish();
  // What the blocks did (after finish()).
  KernelUse use() const;

  static constexpr uint64_t kPage = 4096;

 private:
  // From the fault handler: maps the page holding `address` in, or says it is out of bounds.
  bool mapIn(uint64_t address);
  // From the fault handler, any thread: opens a watched host page; records it when `record`.
  bool openHostPage(uint64_t address, bool record);
  void unwatchHost();
  static void onFault(int sig, siginfo_t* info, void* context);
  // The watchdog's timer, or stopKernels (runtime/core/kernel_sandbox.h): the first signal asks
  // the block to stop at its next instruction the simulator sees; the next one (100 ms later)
  // abandons it where it is.
  static void onInterrupt(int sig, siginfo_t* info, void* context);
  // At each instruction the simulator sees: stops the block if it was asked to or has run past
  // the simulated limit (`unwind`: by an exception, from kernel_operator.h's calls).
  void checkpoint(bool unwind);
  [[noreturn]] void stop(KernelFault::Kind kind, const std::string& reason, bool unwind);
  void armWallClock();

  DeviceMemory& memory_;
  std::vector<DeviceMemory*> peers_;
  // The memory (the device's own or a peer's) whose range holds `address`, or nullptr.
  DeviceMemory* memoryFor(uint64_t address) const;
  std::map<uint64_t, std::vector<uint8_t>> pages_;  // page address -> contents when mapped in
  std::vector<uint64_t> changed_;
  bool finished_ = false;
  uint64_t copiedIn_ = 0, copiedOut_ = 0, loopTests_ = 0;
  const spec::AiCoreSpec* cores_ = nullptr;
  std::unique_ptr<models::BlockTimeline> timeline_;  // the running block's
  std::vector<uint64_t> blockCycles_;
  std::map<uint64_t, uint32_t> scalarPages_;  // page first touched by scalar code -> its block
  std::vector<Run> copyInRuns_, copyOutRuns_;
  uint32_t unifiedBuffer_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> hostWatched_;  // page-aligned [begin, end)
  std::map<uint64_t, std::vector<uint8_t>> hostPages_;      // touched page -> contents before
  std::vector<uint64_t> hostChanged_;
  sigjmp_buf jump_;
  KernelFault* fault_ = nullptr;
  struct sigaction oldSegv_ {
  }, oldBus_{}, oldInterrupt_{};
  // The watchdog: the simulated limit in core cycles (0: none); when the kernel's wall-clock limit
  // ends (0: none; set as its first block starts).
  uint64_t simulatedLimit_ = 0;
  double wallDeadline_ = 0;
  volatile sig_atomic_t stopAsked_ = 0;  // 1: the wall clock's limit; 2: the process ends
};

}  // namespace ascendsim::runtime
