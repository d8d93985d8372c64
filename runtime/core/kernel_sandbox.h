#pragma once
// What the rest of the runtime knows of the Ascend C kernel a thread is running (the blocks run in
// the simulator's process, on the thread that holds the runtime while the simulation advances):
// an AscendCL call from inside a kernel is refused instead of waiting for the lock its own thread
// holds; a signal that ends the program stops a kernel that would never return, so the outputs can
// still be written; and the kernel watchdog's limits (docs/reliability.md).

#include <cstdint>
#include <string>

namespace ascendsim::runtime::sandbox {

// Marks the calling thread as running kernel `name`'s blocks while it lives.
class KernelScope {
 public:
  explicit KernelScope(const std::string& name);
  ~KernelScope();
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;

 private:
  const std::string* outer_;
};

// The kernel the calling thread runs, or nullptr.
const std::string* runningKernel();

// Asks every kernel block, running or to come, to stop (the process is ending on a signal): the
// running block is told at once through interruptSignal() and stops at its next instruction the
// simulator sees, or is abandoned where it is if it has none within a grace of 100 ms.
void stopKernels();
bool kernelsStopped();
// The signal that tells a kernel's thread to stop (the watchdog's timer sends it too).
int interruptSignal();
// Whether a thread runs a kernel block now, and which (for stopKernels).
void blockStarted();
void blockEnded();

// The kernel watchdog: a block stops with ACL_ERROR_RT_AICORE_TIMEOUT / VECTOR_CORE_TIMEOUT when
// its core has spent more than `simulatedSeconds` of simulated time on it, or the kernel more
// than `wallSeconds` of the host's time (0: no limit). ASCENDSIM_KERNEL_TIMEOUT and
// ASCENDSIM_KERNEL_WALL_TIMEOUT (seconds, decimals allowed); a value that is not a number >= 0
// makes aclInit fail with ACL_ERROR_INVALID_PARAM (`error`).
struct KernelLimits {
  double simulatedSeconds = 60;
  double wallSeconds = 600;
  std::string error;
};
const KernelLimits& kernelLimits();

// Whether the simulator's libraries have been initialised (their constructors have run). A call
// before that (from a preinit function, or a constructor the dynamic loader runs before theirs)
// is refused with ACL_ERROR_UNINITIALIZE and a line on stderr (refuseEarly), never run on
// objects not yet constructed.
bool libraryReady();
int refuseEarly(const char* api);

}  // namespace ascendsim::runtime::sandbox
