// Runtime lifecycle, host threads, waiting, devices and contexts.

#include "runtime/core/runtime.h"

#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <signal.h>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/core/errors.h"
#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::runtime {

// Tells the runtime when a host thread ends, so a thread waiting on it is not left hanging.
struct ThreadExitGuard {
  std::thread::id id = std::this_thread::get_id();
  ~ThreadExitGuard() { Runtime::instance().threadExited(id); }
};

Runtime& Runtime::instance() {
  // Never destroyed: host threads may still call in while the process exits.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

HostThread& Runtime::thread() {
  const std::thread::id id = std::this_thread::get_id();
  auto it = threads_.find(id);
  if (it != threads_.end()) return it->second;
  thread_local ThreadExitGuard guard;
  HostThread& t = threads_[id];
  t.id = id;
  t.pthreadId = static_cast<uint64_t>(pthread_self());
  t.index = static_cast<uint32_t>(threads_.size() - 1);
  t.now = system_ ? system_->now() : 0;
  return t;
}

void Runtime::threadExited(std::thread::id id) {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.erase(id);
  changed_.notify_all();
}

namespace {
thread_local std::unique_lock<std::mutex>* tActiveLock = nullptr;
void closeTraceAtExit();
}

aclError Runtime::call(const char* api, spec::Picoseconds spec::ApiOverheads::*overhead, bool needsInit,
                       const std::function<void(HostThread&)>& body) {
  std::unique_lock<std::mutex> lock(mutex_);
  tActiveLock = &lock;
  HostThread& t = thread();
  aclError code = ACL_SUCCESS;
  const spec::Picoseconds start = t.now;
  t.callArgs.clear();
  t.callTasks.clear();
  try {
    if (needsInit && !initialized_) fail(ACL_ERROR_UNINITIALIZE, "AscendCL is not initialised: call aclInit first");
    t.now += spec_.host.apiOverhead.*overhead;
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
  trace_.apiCall(t.index, api, start, t.now, code, t.callArgs, t.callTasks);
  changed_.notify_all();
  tActiveLock = nullptr;
  return code;
}

const char* Runtime::takeRecentError() {
  std::lock_guard<std::mutex> lock(mutex_);
  HostThread& t = thread();
  if (t.error.empty()) return nullptr;
  t.returned = std::move(t.error);
  t.error.clear();
  return t.returned.c_str();
}

const spec::ApiOverheads& Runtime::overheads() const { return spec_.host.apiOverhead; }

spec::Picoseconds Runtime::simulatedNow() const { return system_ ? system_->now() : 0; }

// ---------------------------------------------------------------- init

namespace {
void checkAclJson(const char* configPath) {
  if (!configPath || !*configPath) return;
  std::ifstream in(configPath);
  if (!in) fail(ACL_ERROR_INVALID_FILE, std::string("cannot open the config file '") + configPath + "'");
  std::stringstream text;
  text << in.rdbuf();
  const std::string body = text.str();
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return;  // empty: no options
  if (!nlohmann::json::accept(body)) {
    fail(ACL_ERROR_PARSE_FILE, std::string("'") + configPath + "' is not valid JSON");
  }
}

spec::SystemSpec loadMachine() {
  const char* ref = std::getenv("ASCENDSIM_CONFIG");
  try {
    return ref && *ref ? spec::loadSystemSpec(ref) : spec::defaultSystemSpec();
  } catch (const spec::ConfigError& e) {
    std::cerr << "ascendsim: invalid machine configuration:\n" << e.what() << "\n";
    fail(ACL_ERROR_INVALID_FILE, std::string("invalid machine configuration ASCENDSIM_CONFIG=") +
                                     (ref ? ref : "") + ":\n" + e.what());
  }
}
}  // namespace

void Runtime::init(const char* configPath) {
  if (initialized_) fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit was already called");
  checkAclJson(configPath);
  spec::SystemSpec machine = loadMachine();
  if (system_) {
    // SystemC elaborates once per process: a later aclInit must describe the same machine.
    if (spec::writeSystemSpecYaml(machine) != spec::writeSystemSpecYaml(spec_)) {
      fail(ACL_ERROR_REPEAT_INITIALIZE, "this process already simulates another machine; "
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
      d->scheduler = &system_->device(i);
      d->memory = std::make_unique<DeviceMemory>(d->spec->memory.capacity, spec_.runMode == spec::RunMode::Device);
      raw.push_back(d.get());
      devices_.push_back(std::move(d));
    }
    memory_ = std::make_unique<MemoryManager>(raw);
    memory_->onUnwrittenRead = [this](const std::string& where) {
      warnings_.push_back({"unwritten-read", "a copy or kernel read device memory at " + where +
                                                 " that was never written (it reads as zero)", system_->now()});
    };
    report_ = std::make_unique<RunReport>(spec_);
    system_->addListener(report_.get());
    // DRAM statistics replay every memory access through the DRAM models: asked for in the
    // machine's `trace.dram_stats` or by ASCENDSIM_DRAM_STATS (1 or 0 overrides the machine).
    const char* dram = std::getenv("ASCENDSIM_DRAM_STATS");
    if (dram && *dram ? std::string(dram) != "0" : spec_.trace.dramStats) {
      memoryStats_ = std::make_unique<models::MemoryStatistics>(spec_);
      system_->setTrafficObserver(memoryStats_.get());
      report_->setMemoryStatistics(memoryStats_.get());
    }
  }
  for (auto& d : devices_) d->copyStream = &newStream(*d, nullptr, false);
  static bool exitHooked = false;
  if (!exitHooked) {
    exitHooked = true;
    std::atexit(closeTraceAtExit);  // report and trace of programs that exit without aclFinalize
  }
  openTrace();
  initialized_ = true;
  everInitialized_ = true;
}

void Runtime::finalize(HostThread& t) {
  if (!initialized_) {
    fail(everInitialized_ ? ACL_ERROR_REPEAT_FINALIZE : ACL_ERROR_UNINITIALIZE,
         everInitialized_ ? "aclFinalize was already called" : "aclInit was never called");
  }
  // Let every queued task finish, then release what the program left behind.
  std::vector<Context*> contexts;
  for (auto& [h, ctx] : contexts_) contexts.push_back(ctx.get());
  for (Context* ctx : contexts) releaseContext(t, *ctx);
  for (auto& d : devices_) {
    waitStream(t, *d->copyStream, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
    deleteStream(*d->copyStream);
    d->copyStream = nullptr;
    d->defaultContext = nullptr;
    d->explicitContexts = 0;
    d->setBy.clear();
    d->peersEnabled.clear();
  }
  if (memory_->liveAllocations() > 0) {
    warn(t, "memory-not-freed", std::to_string(memory_->liveAllocations()) + " allocation(s) were not freed before aclFinalize");
  }
  memory_->releaseAll();
  writeReport();
  events_.clear();
  for (auto& d : devices_) d->events = 0;
  for (auto& [id, th] : threads_) th.current = nullptr;
  initialized_ = false;
}

// ---------------------------------------------------------------- trace

namespace {
void closeTraceAtExit() { Runtime::instance().endOfProcess(); }

void closeTraceOnSignal(int sig) {
  Runtime::instance().closeTraceFromSignal();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

void Runtime::openTrace() {
  const char* env = std::getenv("ASCENDSIM_TRACE");
  const std::string path = env && *env ? env : spec_.trace.path;
  if (trace_.active() || path.empty()) return;
  std::string why;
  if (!trace_.open(path, spec_, why, spec_.trace.maxFileSize)) fail(ACL_ERROR_INVALID_FILE, why);
  system_->addListener(&trace_);
  spec::Picoseconds interval = spec_.trace.counterInterval;
  if (const char* text = std::getenv("ASCENDSIM_TRACE_INTERVAL"); text && *text) {
    auto parsed = spec::parseDuration(text, why);
    if (!parsed || *parsed <= 0) fail(ACL_ERROR_INVALID_FILE, "ASCENDSIM_TRACE_INTERVAL: " + (parsed ? "must be more than 0" : why));
    interval = *parsed;
  }
  trace_.attachFabric(&system_->graph().resources(), interval);
  if (memoryStats_) memoryStats_->setBinWidth(interval);
  // The trace must end well-formed however the program ends: at exit, or on SIGINT / SIGTERM.
  static bool hooked = false;
  if (!hooked) {
    hooked = true;
    for (int sig : {SIGINT, SIGTERM}) {
      struct sigaction old {};
      sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_DFL) std::signal(sig, closeTraceOnSignal);
    }
  }
}

void Runtime::closeTrace() {
  std::lock_guard<std::mutex> lock(mutex_);
  traceMemoryStatistics();
  trace_.close();
}

void Runtime::endOfProcess() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (initialized_) writeReport();  // the program never called aclFinalize
  traceMemoryStatistics();
  trace_.close();
}

// Once, as the trace ends, with the figures of the whole process (a program may initialise and
// finalise more than once).
void Runtime::traceMemoryStatistics() {
  if (!memoryStats_ || !trace_.active()) return;
  memoryStats_->finish();
  const spec::Picoseconds end = system_->now();
  for (const auto& m : report_->memoryStatisticsArgs()) {
    trace_.memoryStatistics(m.index, m.name, end, m.args);
    const auto& memory = memoryStats_->memories()[static_cast<size_t>(m.index)];
    trace_.memoryCounters(m.index, m.name, memory.bins, memoryStats_->binWidth());
  }
}

const models::ResourceTable& Runtime::fabricResources() const {
  static const models::ResourceTable none;
  return system_ ? system_->graph().resources() : none;
}

// The JSON report to ASCENDSIM_REPORT, and the table to stderr (ASCENDSIM_SUMMARY=0 silences it,
// any other value is a file to write it to).
void Runtime::writeReport() {
  if (!report_) return;
  if (memoryStats_) memoryStats_->finish();
  const char* env = std::getenv("ASCENDSIM_REPORT");
  const std::string path = env && *env ? env : spec_.trace.report;
  if (!path.empty()) {
    std::ofstream out(path);
    out << report_->json(warnings_, fabricResources());
  }
  const char* summary = std::getenv("ASCENDSIM_SUMMARY");
  const std::string table = report_->table(warnings_, fabricResources());
  if (!summary || !*summary) {
    std::fputs(table.c_str(), stderr);
  } else if (std::string(summary) != "0") {
    std::ofstream(summary) << table;
  }
}

// Only write(2) inside: the lock may be held by the interrupted thread.
void Runtime::closeTraceFromSignal() { trace_.closeFromSignal(); }

std::string Runtime::pointerName(const void* p) const { return memory_ ? memory_->stableName(p) : "?"; }

// ---------------------------------------------------------------- waiting

bool Runtime::othersMayAct(const HostThread& t) const {
  return std::any_of(threads_.begin(), threads_.end(), [&](const auto& kv) {
    const HostThread& other = kv.second;
    if (kv.first == t.id) return false;
    // A blocked thread whose condition has come true is about to act.
    return !other.blocked || (other.waitingOn && (*other.waitingOn)());
  });
}

bool Runtime::waitFor(HostThread& t, const std::function<bool()>& done, const std::string& what) {
  (void)what;
  for (;;) {
    if (system_->runUntil(done)) return true;
    if (!othersMayAct(t)) return false;
    t.blocked = true;
    t.waitingOn = &done;
    changed_.notify_all();
    std::unique_lock<std::mutex>* lock = tActiveLock;
    changed_.wait(*lock);
    tActiveLock = lock;
    t.blocked = false;
    t.waitingOn = nullptr;
  }
}

bool Runtime::waitUntilDeadline(HostThread&, const std::function<bool()>& done, spec::Picoseconds deadline) {
  // A timed wait ends in simulated time alone: when nothing queued can satisfy it before the
  // deadline, it times out, whatever other host threads might submit later.
  system_->runTo(deadline);
  return done();
}

void Runtime::waitStream(HostThread& t, Stream& s, aclError deadlockCode) {
  if (!waitFor(t, [&s] { return s.queue.idle(); }, "stream")) {
    fail(deadlockCode, "deadlock: stream " + std::to_string(s.queue.id()) + " of device " +
                           std::to_string(s.device->id) + " still has " + std::to_string(s.queue.pending()) +
                           " task(s) that can never run (its head waits for an event that no stream "
                           "will record, or for a callback no thread will process)");
  }
  t.now = std::max(t.now, s.queue.lastCompletion());
}

void Runtime::catchUp(HostThread& t) { system_->runTo(t.now); }

void Runtime::runUnlocked(const std::function<void()>& fn) {
  std::unique_lock<std::mutex>* lock = tActiveLock;
  lock->unlock();
  try {
    fn();
  } catch (...) {
    lock->lock();
    tActiveLock = lock;
    throw;
  }
  lock->lock();
  tActiveLock = lock;
}

void Runtime::submit(HostThread& t, Stream& s, std::unique_ptr<models::Task> task) {
  if (s.queue.full()) {
    fail(ACL_ERROR_RT_STREAM_TASK_FULL, "stream " + std::to_string(s.queue.id()) + " already holds " +
                                            std::to_string(s.queue.pending()) + " pending tasks (queue_depth " +
                                            std::to_string(s.device->spec->scheduler.queueDepth) + ")");
  }
  task->id = nextTaskId_++;
  task->submitTime = std::max(t.now, system_->now());
  task->hostThread = static_cast<int>(t.index);
  t.callTasks.push_back(task->id);
  s.device->scheduler->submit(s.queue, std::move(task));
}

void Runtime::warn(HostThread& t, std::string kind, std::string message) {
  warnings_.push_back({std::move(kind), std::move(message), t.now});
}

// ---------------------------------------------------------------- devices

Device& Runtime::device(int32_t id) {
  if (id < 0 || static_cast<size_t>(id) >= devices_.size()) {
    fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id " + std::to_string(id) + " is out of range; this machine has " +
                                            std::to_string(devices_.size()) + " device(s), 0 to " +
                                            std::to_string(static_cast<int>(devices_.size()) - 1));
  }
  return *devices_[static_cast<size_t>(id)];
}

Stream& Runtime::newStream(Device& d, Context* ctx, bool isDefault) {
  if (d.streams >= d.spec->scheduler.maxStreams) {
    fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "device " + std::to_string(d.id) + " has no stream left (max_streams " +
                                              std::to_string(d.spec->scheduler.maxStreams) + ")");
  }
  auto s = std::make_unique<Stream>(d.nextStreamId++, d.spec->scheduler.queueDepth);
  s->device = &d;
  s->context = ctx;
  s->isDefault = isDefault;
  Stream& ref = *s;
  d.scheduler->attach(ref.queue);
  d.streams++;
  if (ctx) ctx->streams.push_back(&ref);
  streams_[&ref] = std::move(s);
  return ref;
}

void Runtime::deleteStream(Stream& s) {
  s.device->scheduler->detach(s.queue);
  s.device->streams--;
  if (s.context) {
    auto& v = s.context->streams;
    v.erase(std::remove(v.begin(), v.end(), &s), v.end());
  }
  streams_.erase(&s);
}

void Runtime::releaseContext(HostThread& t, Context& ctx) {
  const std::vector<Stream*> streams = ctx.streams;
  for (Stream* s : streams) {
    if (!waitFor(t, [s] { return s->queue.idle(); }, "stream")) {
      warn(t, "tasks-dropped", std::to_string(s->queue.pending()) + " task(s) of stream " +
                                   std::to_string(s->queue.id()) + " could never run and were dropped");
      while (!s->queue.idle()) s->queue.popHead(system_->now());
    }
    t.now = std::max(t.now, s->queue.lastCompletion());
    deleteStream(*s);
  }
  for (auto& [id, th] : threads_) {
    if (th.current == &ctx) th.current = nullptr;
  }
  Device& d = *ctx.device;
  if (d.defaultContext == &ctx) d.defaultContext = nullptr;
  contexts_.erase(&ctx);
}

void Runtime::releaseDeviceIfUnused(Device& d) {
  if (d.defaultContext || d.explicitContexts > 0) return;
  if (d.memory->allocationCount() > 0) {
    warn(thread(), "memory-not-freed", std::to_string(d.memory->allocationCount()) +
                                          " allocation(s) on device " + std::to_string(d.id) +
                                          " were released by aclrtResetDevice without aclrtFree");
  }
  memory_->releaseDevice(d);
  d.peersEnabled.clear();
}

void Runtime::setDevice(HostThread& t, int32_t id) {
  Device& d = device(id);
  if (!d.defaultContext) {
    auto ctx = std::make_unique<Context>();
    ctx->device = &d;
    ctx->isDefault = true;
    Context& ref = *ctx;
    contexts_[&ref] = std::move(ctx);
    ref.defaultStream = &newStream(d, &ref, true);
    d.defaultContext = &ref;
  }
  d.setBy.insert(t.id);
  t.current = d.defaultContext;
}

void Runtime::resetDevice(HostThread& t, int32_t id) {
  Device& d = device(id);
  d.setBy.erase(t.id);
  if (!d.setBy.empty() || !d.defaultContext) return;
  releaseContext(t, *d.defaultContext);
  releaseDeviceIfUnused(d);
}

Context& Runtime::requireContext(HostThread& t) {
  if (!t.current) fail(ACL_ERROR_RT_CONTEXT_NULL, "this thread has no current context: call aclrtSetDevice or aclrtSetCurrentContext first");
  return *t.current;
}

int32_t Runtime::currentDevice(HostThread& t) { return requireContext(t).device->id; }

void Runtime::synchronizeDevice(HostThread& t) {
  Device& d = *requireContext(t).device;
  for (auto& [h, s] : streams_) {
    if (s->device == &d) waitStream(t, *s, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  }
  t.now += overheads().synchronize;
}

aclrtRunMode Runtime::runMode() const {
  return spec_.runMode == spec::RunMode::Host ? ACL_HOST : ACL_DEVICE;
}

bool Runtime::canAccessPeer(int32_t dev, int32_t peer) {
  Device& a = device(dev);
  Device& b = device(peer);
  if (dev == peer) fail(ACL_ERROR_INVALID_PARAM, "a device is not its own peer (deviceId == peerDeviceId)");
  (void)a;
  (void)b;
  return system_->router().peersAllowed(dev, peer);
}

uint64_t Runtime::devicesTopology(int32_t dev, int32_t other) {
  device(dev);
  device(other);
  if (dev == other) fail(ACL_ERROR_INVALID_PARAM, "deviceId and otherDeviceId are the same device");
  return static_cast<uint64_t>(system_->router().topology(dev, other));
}

void Runtime::enablePeerAccess(HostThread& t, int32_t peer, uint32_t flags) {
  if (flags != 0) fail(ACL_ERROR_FEATURE_UNSUPPORTED, "flags must be 0");
  Device& d = *requireContext(t).device;
  Device& p = device(peer);
  if (&d == &p) fail(ACL_ERROR_INVALID_PARAM, "peerDeviceId is the current device");
  std::string why;
  if (!system_->router().peersAllowed(d.id, peer, &why)) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "devices " + std::to_string(d.id) + " and " + std::to_string(p.id) +
                                               " cannot be peers: " + why);
  }
  d.peersEnabled.insert(peer);
}

void Runtime::disablePeerAccess(HostThread& t, int32_t peer) {
  Device& d = *requireContext(t).device;
  device(peer);
  if (!d.peersEnabled.erase(peer)) {
    fail(ACL_ERROR_INVALID_PARAM, "peer access from device " + std::to_string(d.id) + " to device " +
                                      std::to_string(peer) + " was not enabled");
  }
}

void Runtime::memInfo(HostThread& t, int32_t attr, size_t* free, size_t* total) {
  Device& d = *requireContext(t).device;
  const bool hbmAttr = attr == ACL_HBM_MEM || attr == ACL_HBM_MEM_HUGE || attr == ACL_HBM_MEM_NORMAL ||
                       attr == ACL_HBM_MEM_P2P_HUGE || attr == ACL_HBM_MEM_P2P_NORMAL;
  const bool ddrAttr = attr == ACL_DDR_MEM || attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL ||
                       attr == ACL_DDR_MEM_P2P_HUGE || attr == ACL_DDR_MEM_P2P_NORMAL;
  if (!hbmAttr && !ddrAttr) fail(ACL_ERROR_INVALID_PARAM, "unknown aclrtMemAttr " + std::to_string(attr));
  const spec::DramStandard std = d.spec->memory.standard;
  const bool isHbm = std == spec::DramStandard::HBM2 || std == spec::DramStandard::HBM2E || std == spec::DramStandard::HBM3;
  if (hbmAttr == isHbm) {
    *total = d.memory->capacity();
    *free = d.memory->capacity() - d.memory->used();
  } else {
    *total = 0;  // the device has no memory of that kind
    *free = 0;
  }
}

// ---------------------------------------------------------------- contexts

Context* Runtime::lookupContext(aclrtContext ctx) const {
  auto it = contexts_.find(ctx);
  return it == contexts_.end() ? nullptr : it->second.get();
}

Context* Runtime::createContext(HostThread& t, int32_t deviceId) {
  Device& d = device(deviceId);
  auto ctx = std::make_unique<Context>();
  ctx->device = &d;
  Context& ref = *ctx;
  contexts_[&ref] = std::move(ctx);
  try {
    ref.defaultStream = &newStream(d, &ref, true);
  } catch (...) {
    contexts_.erase(&ref);
    throw;
  }
  d.explicitContexts++;
  t.current = &ref;
  return &ref;
}

void Runtime::destroyContext(HostThread& t, aclrtContext handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
  Context* ctx = lookupContext(handle);
  if (!ctx) fail(ACL_ERROR_RT_INVALID_HANDLE, "context " + describePointer(handle) + " does not exist (destroyed already?)");
  if (ctx->isDefault) fail(ACL_ERROR_INVALID_PARAM, "the default context of a device is released by aclrtResetDevice, not aclrtDestroyContext");
  Device& d = *ctx->device;
  releaseContext(t, *ctx);
  d.explicitContexts--;
  releaseDeviceIfUnused(d);
}

void Runtime::setCurrentContext(HostThread& t, aclrtContext handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
  Context* ctx = lookupContext(handle);
  if (!ctx) fail(ACL_ERROR_RT_INVALID_HANDLE, "context " + describePointer(handle) + " does not exist (destroyed already?)");
  t.current = ctx;
}

Context* Runtime::currentContext(HostThread& t) { return &requireContext(t); }

}  // namespace ascendsim::runtime
