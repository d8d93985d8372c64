// Runtime lifecycle, API calls, outputs and waiting.

#include "runtime/core/runtime.h"

#include <fcntl.h>
#include <unistd.h>

#include <signal.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "runtime/core/data_mode.h"
#include "runtime/core/errors.h"
#include "runtime/core/input_file.h"
#include "runtime/core/kernel_sandbox.h"
#include "runtime/core/soc_cores.h"
#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::runtime {

Runtime& Runtime::instance() {
  // Never destroyed: host threads may still call in while the process exits.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

namespace {
// The thread's end is told through a pthread key, not a thread_local object with a destructor:
// registering one of those takes the dynamic loader's lock, and a thread that makes its first call
// while another thread holds that lock and waits for it (a library constructor run by dlopen that
// joins a thread calling AscendCL) waited for ever.
pthread_key_t exitKey(void (*onExit)(void*)) {
  static const pthread_key_t key = [onExit] {
    pthread_key_t k{};
    pthread_key_create(&k, onExit);
    return k;
  }();
  return key;
}
}  // namespace

void Runtime::onThreadExit(void* id) {
  instance().threadExited(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(id)));
}

HostThread& Runtime::thread() {
  HostThread& t = threads_.current(system_ ? system_->now() : 0);
  thread_local bool watched = false;  // (trivially destroyed: registers nothing)
  if (!watched) {
    watched = true;
    pthread_setspecific(exitKey(&Runtime::onThreadExit),
                        reinterpret_cast<void*>(static_cast<uintptr_t>(pthread_self())));
  }
  return t;
}

void Runtime::threadExited(uint64_t pthreadId) {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.remove(pthreadId);
}

namespace {
struct ThreadStart {
  void* (*start)(void*);
  void* arg;
};
}  // namespace

void* startHostThread(void* p) {
  const ThreadStart start = *static_cast<ThreadStart*>(p);
  delete static_cast<ThreadStart*>(p);
  Runtime::instance().threadStarted();
  return start.start(start.arg);
}

void Runtime::threadStarted() {
  std::lock_guard<std::mutex> lock(mutex_);  // taken once the creator has numbered this thread
  threads_.started(thread());
}

int Runtime::createThread(CreateThread create, pthread_t* out, const pthread_attr_t* attr,
                          void* (*start)(void*), void* arg) {
  // Threads made inside an API call are the runtime's own (the signal watcher): not callers.
  if (HostThreads::insideCall()) return create(out, attr, start, arg);
  auto* boot = new (std::nothrow) ThreadStart{start, arg};
  if (!boot) return EAGAIN;
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread& parent = thread();
  const int rc = create(out, attr, startHostThread, boot);
  if (rc != 0) {
    delete boot;
    return rc;
  }
  threads_.adopt(static_cast<uint64_t>(*out), parent);
  return 0;
}

void Runtime::threadJoined(pthread_t joined) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::optional<spec::Picoseconds> end =
      threads_.takeExitClock(static_cast<uint64_t>(joined));
  if (!end) return;
  HostThread& t = thread();
  t.now = std::max(t.now, *end);
}

namespace {
void closeTraceAtExit();
}

namespace {
// A kernel's blocks run on the thread that holds the runtime while the simulation advances: an
// AscendCL call from the kernel's code would wait for that lock for ever. It is refused; the
// thread's own record (this thread holds the lock) takes its message and code.
aclError refuseInsideKernel(const char* api, const std::string& kernel) {
  HostThread* self = HostThreads::self();
  if (self) {
    self->error = std::string(api) + ": called from inside kernel " + kernel +
                  " (a kernel's code runs on the device, where there is no AscendCL; make the "
                  "call on the host before or after the launch)";
    self->lastError = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
  }
  return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}
}  // namespace

aclError Runtime::call(const char* api, spec::Picoseconds spec::ApiOverheads::*overhead,
                       bool needsInit, const std::function<void(HostThread&)>& body) {
  if (!sandbox::libraryReady()) return sandbox::refuseEarly(api);
  if (const std::string* kernel = sandbox::runningKernel()) return refuseInsideKernel(api, *kernel);
  // The process is ending on a signal (a runaway kernel was stopped): the outputs are being
  // written; no call starts any more.
  while (sandbox::kernelsStopped()) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (HostThread* self = HostThreads::self()) self->entering = true;
  std::unique_lock<std::mutex> lock(mutex_);
  HostThread& t = thread();
  threads_.beginCall(lock, t);
  threads_.awaitTurn(t, system_.get());
  aclError code = ACL_SUCCESS;
  const spec::Picoseconds start = t.now;
  t.callArgs.clear();
  t.callTasks.clear();
  try {
    if (!localRefusal_.empty()) fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, localRefusal_);
    if (needsInit && !initialized_)
      fail(ACL_ERROR_UNINITIALIZE, "AscendCL is not initialised: call aclInit first");
    t.callOverhead = spec_.host.apiOverhead.*overhead;
    t.now += t.callOverhead;
    body(t);
  } catch (const AclFailure& f) {
    t.error = std::string(api) + ": " + f.message;
    code = f.code;
  } catch (const std::bad_alloc&) {
    t.error = std::string(api) + ": out of host memory";
    code = ACL_ERROR_BAD_ALLOC;
  } catch (const std::exception& e) {
    t.error = std::string(api) + ": internal error: " + e.what();
    code = ACL_ERROR_RT_INTERNAL_ERROR;
  }
  if (exceptions_.pending()) exceptions_.deliver(t);
  if (code != ACL_SUCCESS) t.lastError = code;
  outputs_.trace().apiCall(t.track, api, start, t.now, code, t.callArgs, t.callTasks);
  outputs_.profiling().apiCall(t.track, api, start, t.now, code, t.callArgs, t.callTasks);
  outputs_.callEnded(t.now);
  if (outputs_.trace().active()) {
    for (const auto& d : devices_) {
      if (d->memory) outputs_.trace().memoryInUse(d->id, t.now, d->memory->used());
    }
  }
  threads_.endCall(t);
  return code;
}

void Runtime::enrollRemoteThread(uint32_t index, pid_t pid, pid_t tid, HostTrack track,
                                 const MpiWaits* waitingOutside, uint64_t reportId) {
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread& t = threads_.enroll(index, system_ ? system_->now() : 0, pid, tid, std::move(track),
                                  waitingOutside, reportId);
  servesPrograms_ = true;
  endedRemoteThreads_.erase(reportId);
  auto waiting = reportsForLaterThreads_.find(reportId);
  if (waiting != reportsForLaterThreads_.end()) {
    for (CallbackReport& report : waiting->second) t.reports.push_back(report);
    reportsForLaterThreads_.erase(waiting);
  }
}

void Runtime::remoteThreadEnded(bool processGone) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (HostThread* self = HostThreads::self()) {
    endedRemoteThreads_.insert(self->reportId);
    exceptions_.forget(*self, processGone);
    if (processGone && self->remotePid) streams_.forgetAllocators(self->remotePid);
  }
  threads_.remove(static_cast<uint64_t>(pthread_self()));
}

void Runtime::threadsChanged() {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.changed();
}

void Runtime::addInternalThread() {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.addInternalThread();
}

aclError Runtime::lastError(bool clear) {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (!sandbox::runningKernel()) lock.lock();  // (inside a kernel this thread holds it)
  HostThread* self = sandbox::runningKernel() ? HostThreads::self() : &thread();
  if (!self) return ACL_SUCCESS;
  HostThread& t = *self;
  const aclError code = t.lastError;
  if (clear) t.lastError = ACL_SUCCESS;
  return code;
}

aclError Runtime::refuseArgument(const char* api, aclError code, const std::string& message) {
  if (const std::string* kernel = sandbox::runningKernel()) return refuseInsideKernel(api, *kernel);
  std::lock_guard<std::mutex> lock(mutex_);
  thread().error = std::string(api) + ": " + message;
  return code;
}

const char* Runtime::takeRecentError() {
  if (!sandbox::libraryReady()) return "AscendSim's libraries are not initialised yet";
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (!sandbox::runningKernel()) lock.lock();  // (inside a kernel this thread holds it)
  HostThread* self = sandbox::runningKernel() ? HostThreads::self() : &thread();
  if (!self) return nullptr;
  HostThread& t = *self;
  if (t.error.empty()) return nullptr;
  t.returned = std::move(t.error);
  t.error.clear();
  return t.returned.c_str();
}

const spec::ApiOverheads& Runtime::overheads() const {
  return spec_.host.apiOverhead;
}

spec::Picoseconds Runtime::simulatedNow() const {
  return system_ ? system_->now() : 0;
}

// ---------------------------------------------------------------- init

namespace {
void checkAclJson(const char* configPath) {
  if (!configPath || !*configPath) return;
  // A regular file of at most 1 MiB (acl.json holds a few options): a FIFO used to hang aclInit
  // and /dev/zero to be read for gigabytes.
  constexpr uint64_t kLargest = 1u << 20;
  std::string body, why;
  if (!readRegularFile(configPath, kLargest, body, why)) {
    fail(ACL_ERROR_INVALID_FILE,
         std::string("cannot use the config file '") + configPath + "': " + why);
  }
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return;  // empty: no options
  if (!nlohmann::json::accept(body)) {
    fail(ACL_ERROR_PARSE_FILE, std::string("'") + configPath + "' is not valid JSON");
  }
}

spec::SystemSpec loadMachine() {
  const char* ref = std::getenv("ASCENDSIM_CONFIG");
  // `ascendsim exec/run --set` hands over the changed machine itself.
  const char* yaml = std::getenv("ASCENDSIM_MACHINE_YAML");
  try {
    if (yaml && *yaml) return spec::loadSystemSpecFromText(yaml, "ASCENDSIM_MACHINE_YAML");
    return ref && *ref ? spec::loadSystemSpec(ref) : spec::defaultSystemSpec();
  } catch (const spec::ConfigError& e) {
    std::cerr << "ascendsim: invalid machine configuration:\n" << e.what() << "\n";
    fail(ACL_ERROR_INVALID_FILE, std::string("invalid machine configuration ASCENDSIM_CONFIG=") +
                                     (ref ? ref : "") + ":\n" + e.what());
  }
}
}  // namespace

const spec::SystemSpec& Runtime::machineSpec() {
  // Before aclInit (CANN answers some calls without it), the machine aclInit would load.
  if (!initialized_ && !system_ && !preInitMachine_)
    preInitMachine_ = std::make_unique<spec::SystemSpec>(loadMachine());
  return system_ ? spec_ : *preInitMachine_;
}

uint32_t Runtime::machineDeviceCount() {
  return initialized_ ? deviceCount() : static_cast<uint32_t>(machineSpec().devices.size());
}

const std::string& Runtime::socName() {
  const spec::SystemSpec& machine = machineSpec();
  if (machine.devices.empty() || machine.devices.front().soc.empty()) {
    fail(ACL_ERROR_FAILURE,
         "the machine names no SoC version: set `soc` on its devices (e.g. soc: Ascend910B4)");
  }
  return machine.devices.front().soc;
}

int32_t Runtime::cannAttribute(int32_t attr) {
  switch (attr) {
    // CANN reads both from the SoC's platform config (support_inf_nan, support_bf16): A2/A3 only.
    case ACL_CANN_ATTR_INF_NAN:
    case ACL_CANN_ATTR_BF16: return isA2OrA3(socName()) ? 1 : 0;
    case ACL_CANN_ATTR_JIT_COMPILE: return 0;
    default:
      fail(ACL_ERROR_INVALID_PARAM,
           "cannAttr " + std::to_string(attr) + " is not an aclCannAttr (0..2)");
  }
}

bool Runtime::archCompatible(const std::string& soc) {
  return socFamily(soc) == socFamily(socName());
}

aclrtRunMode Runtime::runMode() {
  return machineSpec().runMode == spec::RunMode::Host ? ACL_HOST : ACL_DEVICE;
}

void Runtime::setOverflowMode(HostThread& t, int32_t mode) {
  overflowMode_ = mode;
  if (t.current && devices().findContext(t.current)) t.current->device->overflowMode = mode;
}

int32_t Runtime::overflowMode() {
  if (overflowMode_ >= 0) return overflowMode_;
  return takesInfNan(socName()) ? ACL_RT_OVERFLOW_MODE_INFNAN : ACL_RT_OVERFLOW_MODE_SATURATION;
}

void Runtime::init(const char* configPath) {
  if (initialized_) fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit was already called");
  checkAclJson(configPath);
  if (!dataModeError().empty()) fail(ACL_ERROR_INVALID_PARAM, dataModeError());
  if (!sandbox::kernelLimits().error.empty())
    fail(ACL_ERROR_INVALID_PARAM, sandbox::kernelLimits().error);
  spec::SystemSpec machine = loadMachine();
  if (system_) {
    // SystemC elaborates once per process: a later aclInit must describe the same machine.
    if (spec::writeSystemSpecYaml(machine) != spec::writeSystemSpecYaml(spec_)) {
      fail(ACL_ERROR_REPEAT_INITIALIZE,
           "this process already simulates another machine; "
           "run a new process for a different ASCENDSIM_CONFIG");
    }
  } else {
    spec_ = std::move(machine);
    system_ = std::make_unique<models::SimulatedSystem>(spec_);
    std::vector<Device*> raw;
    for (size_t i = 0; i < spec_.devices.size(); ++i) {
      auto d = std::make_unique<Device>();
      d->id = static_cast<int>(i);
      d->spec = &spec_.devices[i];
      d->overflowMode =
          takesInfNan(d->spec->soc) ? ACL_RT_OVERFLOW_MODE_INFNAN : ACL_RT_OVERFLOW_MODE_SATURATION;
      d->scheduler = &system_->device(i);
      d->memory = std::make_unique<DeviceMemory>(d->spec->memory.capacity,
                                                 spec_.runMode == spec::RunMode::Device);
      raw.push_back(d.get());
      devices_.push_back(std::move(d));
    }
    memory_ = std::make_unique<MemoryManager>(raw);
    copyPlanner_ = std::make_unique<CopyPlanner>(spec_, *memory_, devices_);
    virtualMemory_ = std::make_unique<VirtualMemory>(devices_, *memory_);
    ipc_ = std::make_unique<IpcRegistry>(*memory_);
    hosts_ = std::make_unique<HostRegistry>(*memory_);
    // A model's replay queues its tasks from the ends of earlier ones, inside the simulation.
    modelRuns_ = std::make_unique<ModelRuns>(
        *memory_, [this](Stream& s, std::unique_ptr<models::Task> task, spec::Picoseconds when) {
          streams_.queueAt(s, std::move(task), when);
        });
    streams_.attach(*modelRuns_);
    events_ = std::make_unique<Events>(ServicePort(*this), *modelRuns_, *ipc_);
    deviceContexts_ = std::make_unique<DeviceContexts>(ServicePort(*this), devices_, streams_,
                                                       *memory_, *virtualMemory_, *ipc_);
    memory_->onUnwrittenRead = [this](const std::string& where) {
      warnings_.push_back({"unwritten-read",
                           "a copy or kernel read device memory at " + where +
                               " that was never written (it reads as zero)",
                           system_->now()});
    };
    outputs_.attach(spec_, *system_);
    if (dataMode() == DataMode::TimingOnly) {
      // Said once, in the report and the summary: a reader of the figures must know.
      warnings_.push_back({"timing-only",
                           "ASCENDSIM_DATA=timing-only: copies, memsets, reductions and operators "
                           "took their time but moved no byte; device memory holds what was "
                           "written by kernels only (zeros elsewhere)",
                           system_->now()});
    }
  }
  devices().openCopyStreams();
  static bool exitHooked = false;
  if (!exitHooked) {
    exitHooked = true;
    std::atexit(closeTraceAtExit);  // report and trace of programs that exit without aclFinalize
  }
  hookSignals();
  openTrace();
  initialized_ = true;
  everInitialized_ = true;
}

void Runtime::finalize(HostThread& t) {
  if (!initialized_) {
    fail(everInitialized_ ? ACL_ERROR_REPEAT_FINALIZE : ACL_ERROR_UNINITIALIZE,
         everInitialized_ ? "aclFinalize was already called" : "aclInit was never called");
  }
  refuseInsideCallback(t, nullptr, "aclFinalize");
  devices().releaseAll(t);  // every queued task ends first
  if (memory_->liveAllocations() > 0) {
    warn(t, "memory-not-freed",
         std::to_string(memory_->liveAllocations()) +
             " allocation(s) were not freed before aclFinalize");
  }
  virtualMemory().releaseAll();
  memory_->releaseAll();
  outputs_.writeReport(warnings_);
  events().clear();
  for (auto& d : devices_) d->events = 0;
  threads_.forEach([](HostThread& th) { th.current = nullptr; });
  initialized_ = false;
  // Failures of threads that made no call since: reported to the finalising thread.
  exceptions_.handOver(t);
}

// ---------------------------------------------------------------- trace

namespace {
void closeTraceAtExit() {
  Runtime::instance().endOfProcess();
}

// SIGINT, SIGTERM and SIGHUP (a closed terminal) end a simulated program as they end a real one,
// but its report and trace
// are finished first. A handler may do almost nothing, so it wakes a watcher thread through a
// pipe and waits; the watcher finishes the outputs under the runtime's lock, as at exit, and then
// lets the signal end the process. A process forked after aclInit has no watcher: its handler
// closes the trace with write(2) and rename(2) alone.
// The watcher blocks these signals: a signal sent to the process goes to any thread that does not
// block it, and one taken by the watcher left it in the handler, waiting for itself, so the
// program never ended (under load, while the thread running a kernel was off its CPU, the kernel
// often picked the watcher, asleep in read()).
int gWake[2] = {-1, -1};
pid_t gWatcherPid = 0;

void onSignal(int sig) {
  if (getpid() != gWatcherPid) {
    Runtime::instance().closeTraceFromSignal();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  const int saved = errno;
  while (::write(gWake[1], &sig, sizeof sig) < 0 && errno == EINTR) {
  }
  errno = saved;
  for (;;) pause();  // the watcher ends the process
}

void watchSignals() {
  int sig = 0;
  while (::read(gWake[0], &sig, sizeof sig) != static_cast<ssize_t>(sizeof sig)) {
  }
  Runtime::instance().finishOnSignal();
  std::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);  // raise() sends it to this thread
  std::raise(sig);
}

// The signals that end a simulated program (see above).
sigset_t endingSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}
}  // namespace

void Runtime::hookSignals() {
  static bool hooked = false;
  if (hooked || pipe2(gWake, O_CLOEXEC) != 0) return;
  hooked = true;
  gWatcherPid = getpid();
  // The watcher starts with the ending signals blocked (a thread takes its creator's mask).
  const sigset_t ending = endingSignals();
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &ending, &before);
  std::thread(watchSignals).detach();
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  threads_.addInternalThread();
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_DFL) std::signal(sig, onSignal);
  }
}

bool Runtime::finishOnSignal() {
  // A kernel that never returns holds the lock: it is stopped (the next calls wait for the end).
  sandbox::stopKernels();
  // The signal may have stopped a thread inside the runtime, holding the lock: give it 2 s (a
  // thread waiting in simulated time does not hold it), then fall back to the safe close-out.
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  for (int i = 0; i < 2000 && !lock.try_lock(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!lock.owns_lock()) {
    outputs_.closeTraceFromSignal();
    return false;
  }
  if (initialized_) outputs_.writeReport(warnings_);
  outputs_.closeTrace();
  return true;
}

void Runtime::openTrace() {
  outputs_.openTrace();
}

void Runtime::endOfProcess() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (initialized_) outputs_.writeReport(warnings_);  // the program never called aclFinalize
  outputs_.closeTrace();
  if (outputs_.failed()) {
    // An output the user asked for is missing (a full disk): the run must not look successful.
    std::fflush(nullptr);
    std::_Exit(1);
  }
}

void Runtime::closeTraceFromSignal() {
  outputs_.closeTraceFromSignal();
}

std::string Runtime::pointerName(const void* p) const {
  return memory_ ? memory_->stableName(p) : "?";
}

// ---------------------------------------------------------------- waiting

bool Runtime::waitFor(HostThread& t, const std::function<bool()>& done) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const HostThreads::WaitEnd end = threads_.waitFor(t, *system_, done);
    // A served program's thread that has not called yet has a callback to run, which the deadlock
    // check cannot see (the thread is in another process): it gets up to 10 s to come.
    if (end != HostThreads::WaitEnd::Deadlock || reportsForLaterThreads_.empty() ||
        std::chrono::steady_clock::now() - start > std::chrono::seconds(10))
      return end == HostThreads::WaitEnd::Done;
    threads_.runUnlocked(t, [] { std::this_thread::sleep_for(std::chrono::milliseconds(10)); });
  }
}

bool Runtime::waitUntilDeadline(HostThread& t, const std::function<bool()>& done,
                                spec::Picoseconds deadline) {
  // A timed wait ends in simulated time: it times out when nothing queued, and nothing another
  // thread may still do before the deadline, satisfies it. It simulates no further than the moment
  // it is satisfied, so work queued behind is not pulled forward.
  return threads_.waitFor(t, *system_, done, deadline) == HostThreads::WaitEnd::Done;
}

int32_t Runtime::callerPid(const HostThread& t) const {
  return t.remotePid ? static_cast<int32_t>(t.remotePid) : static_cast<int32_t>(getpid());
}

void Runtime::catchUp(HostThread& t) {
  system_->runTo(t.now);
}

void Runtime::refuseDuringCapture(HostThread& t, const char* what, aclError code) {
  if (modelRuns_ && !modelRuns_->unsafeCallAllowed(t.current, t.index)) {
    fail(
        code,
        std::string(what) +
            " is not allowed while a stream capture is active in this thread's capture mode "
            "(aclmdlRICaptureThreadExchangeMode with ACL_MODEL_RI_CAPTURE_MODE_RELAXED allows it)");
  }
}

void Runtime::warn(HostThread& t, std::string kind, std::string message) {
  warnings_.push_back({std::move(kind), std::move(message), t.now});
}

bool Runtime::exceptionInfoLive(const rtExceptionInfo* info) {
  std::lock_guard<std::mutex> lock(mutex_);
  return exceptions_.live(info);
}

}  // namespace ascendsim::runtime
