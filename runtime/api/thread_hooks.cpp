// pthread_create and pthread_join, in front of the C library's: the runtime numbers each thread a
// program creates when it is created and hands clocks over at joins, so that calls from several
// threads reach the simulation in the same order on every run (see runtime/core/host_threads.h).
// A program linked with libascendcl.so (or any library CANN's samples link) finds these first;
// std::thread goes through them too.

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "runtime/ascendc/kernel_memory_window.h"
#include "runtime/core/kernel_sandbox.h"
#include "runtime/core/runtime.h"
#include "runtime/remote/machine_client.h"

namespace {
template <class Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                                     const pthread_attr_t* attr,
                                                                     void* (*start)(void*),
                                                                     void* arg) {
  using Create = ascendsim::runtime::Runtime::CreateThread;
  static const Create create = next<Create>("pthread_create");
  if (!create) return EAGAIN;
  // Before the simulator is initialised (a preinit function) the thread is only the C library's.
  if (!ascendsim::runtime::sandbox::libraryReady()) return create(thread, attr, start, arg);
  return ascendsim::runtime::Runtime::instance().createThread(create, thread, attr, start, arg);
}

extern "C" __attribute__((visibility("default"))) int pthread_join(pthread_t thread,
                                                                   void** result) {
  using Join = int (*)(pthread_t, void**);
  static const Join join = next<Join>("pthread_join");
  if (!join) return ESRCH;
  const int rc = join(thread, result);
  if (!ascendsim::runtime::sandbox::libraryReady()) return rc;
  if (rc == 0) ascendsim::runtime::Runtime::instance().threadJoined(thread);
  return rc;
}

// Told by libascendsim_mpi_waits.so (runtime/remote/mpi_waits.c) when the calling thread starts
// and ends waiting in an MPI call, so that a served machine does not wait for its next call
// meanwhile (docs/multiprocess.md).
extern "C" __attribute__((visibility("default"))) void ascendsimWaitingOutside(int waiting) {
  ascendsim::remote::markWaitingOutside(waiting != 0);
}

// exit() and abort() from an Ascend C kernel's code: the kernel runs on the thread that holds the
// runtime, so ending the process from there would wait for ever for the outputs it writes at
// exit. The block stops instead and the kernel fails (docs/reliability.md); anywhere else they
// are the C library's.
extern "C" __attribute__((visibility("default"))) void exit(int status) noexcept {
  ascendsim::runtime::KernelMemoryWindow::stopForExit(status, false);
  using Exit = void (*)(int);
  static const Exit real = next<Exit>("exit");
  if (real) real(status);
  _exit(status);
}

extern "C" __attribute__((visibility("default"))) void abort() noexcept {
  ascendsim::runtime::KernelMemoryWindow::stopForExit(134, true);
  using Abort = void (*)();
  static const Abort real = next<Abort>("abort");
  if (real) real();
  _exit(134);
}
