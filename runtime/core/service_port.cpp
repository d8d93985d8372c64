#include "runtime/core/service_port.h"

#include <algorithm>

#include "runtime/core/copy_planner.h"
#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

Stream& ServicePort::stream(HostThread& t, aclrtStream handle) {
  return rt_.streams_.stream(t, handle);
}

int32_t ServicePort::currentDevice(HostThread& t) {
  return requireContext(t).device->id;
}

uint32_t ServicePort::deviceCount() {
  return rt_.deviceCount();
}

const spec::DeviceSpec& ServicePort::deviceSpec(int32_t device) {
  return *rt_.device(device).spec;
}

uint64_t ServicePort::topology(int32_t a, int32_t b) {
  return static_cast<uint64_t>(rt_.system_->router().topology(a, b));
}

bool ServicePort::directPath(int32_t a, int32_t b, std::string* why) {
  return rt_.system_->router().peersAllowed(a, b, why);
}

bool ServicePort::networkPath(int32_t a, int32_t b) {
  return rt_.system_->router().overNetwork(a, b);
}

Stream& ServicePort::createStream(int32_t device) {
  return rt_.streams_.open(rt_.device(device), nullptr, false);
}

void ServicePort::releaseStream(HostThread& t, Stream* s) {
  rt_.streams_.release(t, s);
}

void* ServicePort::allocate(int32_t device, uint64_t bytes) {
  Device& d = rt_.device(device);
  try {
    return rt_.memory_->allocateDevice(d, bytes, (bytes + 31) / 32 * 32 + 32, 64,
                                       AllocationApi::Malloc);
  } catch (const AclFailure&) {
    return nullptr;
  }
}

void ServicePort::release(void* p) {
  try {
    rt_.memory_->free(p, AllocationApi::Malloc);
  } catch (const AclFailure&) {
    // Released already, with its device (aclrtResetDevice) or with everything (aclFinalize).
  }
}

models::MemoryPlace ServicePort::place(const void* p, uint64_t bytes, const char* role) {
  return rt_.memory_->resolve(p, bytes, role);
}

MemoryManager& ServicePort::memory() {
  return *rt_.memory_;
}

const Devices& ServicePort::devices() {
  return rt_.devices_;
}

bool ServicePort::streamAlive(const Stream* s) {
  return rt_.streams_.find(s) != nullptr;
}

std::vector<std::pair<uint64_t, uint64_t>> ServicePort::hostRangesForKernels() {
  return rt_.hosts().rangesForKernels();
}

ManagedMemory& ServicePort::managed() {
  return rt_.hosts().managed();
}

KernelLibrary& ServicePort::kernels() {
  return rt_.kernels();
}

ExceptionReports& ServicePort::exceptions() {
  return rt_.exceptions();
}

void ServicePort::queue(HostThread& t, Stream& s, std::unique_ptr<models::Task> task) {
  rt_.streams_.submit(t, s, std::move(task));
}

void ServicePort::submit(HostThread& t, Stream& s, std::unique_ptr<models::Task> task) {
  MemoryManager* mm = rt_.memory_.get();
  std::vector<models::MemoryPlace> sides;
  if (task->kind == models::TaskKind::Copy || task->kind == models::TaskKind::Memset) {
    for (const models::MemoryPlace* p : {&task->dst, &task->src}) {
      if (isDevice(*p)) sides.push_back(*p);
    }
    if (task->kind == models::TaskKind::Memset) sides.resize(std::min<size_t>(sides.size(), 1));
  } else if (task->kind == models::TaskKind::Kernel && isDevice(task->dst)) {
    sides.push_back(task->dst);
  }
  auto holds = std::make_shared<std::vector<uint64_t>>();
  if (!sides.empty()) {
    std::function<void()> before = std::move(task->release);
    task->release = [mm, holds, before] {
      if (before) before();
      for (uint64_t start : *holds) mm->drop(start);
    };
  }
  rt_.streams_.submit(t, s, std::move(task));
  // (Queued now; it ends no earlier than the next simulation step.)
  for (const models::MemoryPlace& p : sides) holds->push_back(mm->hold(p));
}

bool ServicePort::waitUntil(HostThread& t, const std::function<bool()>& done) {
  return rt_.waitFor(t, done);
}

bool ServicePort::waitUntilDeadline(HostThread& t, const std::function<bool()>& done,
                                    spec::Picoseconds deadline) {
  return rt_.waitUntilDeadline(t, done, deadline);
}

void ServicePort::catchUp(HostThread& t) {
  rt_.catchUp(t);
}

void ServicePort::leaveContext(const Context& ctx) {
  rt_.threads_.forEach([&](HostThread& th) {
    if (th.current == &ctx) th.current = nullptr;
  });
}

void ServicePort::warn(HostThread& t, std::string kind, std::string message) {
  rt_.warn(t, std::move(kind), std::move(message));
}

const models::ResourceTable& ServicePort::resources() {
  return rt_.outputs_.resources();
}

spec::Picoseconds ServicePort::simulatedNow() {
  return rt_.simulatedNow();
}

void ServicePort::runUnlocked(HostThread& t, const std::function<void()>& fn) {
  rt_.threads_.runUnlocked(t, fn);
}

Device& ServicePort::device(int32_t id) {
  return rt_.device(id);
}

const spec::ApiOverheads& ServicePort::overheads() {
  return rt_.overheads();
}

int32_t ServicePort::callerPid(const HostThread& t) {
  return rt_.callerPid(t);
}

void ServicePort::changed() {
  rt_.threads_.changed();
}

}  // namespace ascendsim::runtime
