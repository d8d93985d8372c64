// Data queues (acl/acl_tdt_queue.h), as a program on the host sees CANN's: a queue is a FIFO of
// buffers in a device's memory, at most `depth` of them. acltdtEnqueueData copies the program's
// data (and its user data) host to device through the queue's DMA stream into an allocation of
// the device, acltdtDequeueData copies the oldest buffer back; both wait in simulated time for
// room or data up to the timeout, then give ACL_ERROR_RT_QUEUE_FULL / _EMPTY. A bound route is
// the device's queue scheduler moving each buffer of its source queue on to its destination (a
// buffer changes queues, its bytes stay where they are), as soon as every destination of the
// source has room. Facts from hicann/runtime: src/acl/acl_tdt_queue/queue.cpp (attribute and
// route objects and their codes), queue_process.cpp (default depth 8, EnqueueData/DequeueData,
// destroy refused while routes are bound), queue_process_host.cpp (the host refuses the mbuf
// functions with ACL_ERROR_FEATURE_UNSUPPORTED), src/runtime/driver/npu_driver_queue.cc (depth
// at least RT_MQ_DEPTH_MIN 2) and docs/zh/api_ref/17-02_shared_queue_management.md.
// A queue destroyed while an enqueue or dequeue waits on it ends that call with
// ACL_ERROR_RT_PARAM_INVALID, as a queue that does not exist is refused. On a machine served by
// `ascendsim exec --shared` (tdt_served.h) the queues are the server's, by device and id: any
// process on the device may use one (CANN's host side has no acltdtGrantQueue / AttachQueue, and
// leaves passing queue ids between processes to the program); attributes and routes stay in the
// program.

#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "acl/acl_tdt_queue.h"
#include "runtime/api/api_call.h"
#include "runtime/api/tdt_served.h"
#include "runtime/api/tdt_wait.h"
#include "runtime/core/copy_planner.h"
#include "runtime/core/service_port.h"
#include "runtime/remote/served_handlers.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::models::MemoryPlace;

namespace {

constexpr size_t kMaxNameBytes = 128;  // RT_MQ_MAX_NAME_LEN, with the NUL
constexpr uint32_t kDefaultDepth = 8;  // RT_MQ_DEPTH_DEFAULT
constexpr uint32_t kMinDepth = 2;      // RT_MQ_DEPTH_MIN
constexpr size_t kMaxUserData = 96;    // a buffer's user data (acltdtEnqueueData's reference)

}  // namespace

struct tagMemQueueAttr {
  char name[kMaxNameBytes] = {};
  uint32_t depth = kDefaultDepth;
};

struct acltdtQueueRoute {
  uint32_t srcId = 0;
  uint32_t dstId = 0;
  int32_t status = ACL_TDT_QUEUE_ROUTE_UNBIND;
};

struct acltdtQueueRouteList {
  std::vector<acltdtQueueRoute> routes;
};

struct acltdtQueueRouteQueryInfo {
  int32_t mode = 0;
  uint32_t srcId = 0;
  uint32_t dstId = 0;
  bool modeSet = false, srcSet = false, dstSet = false;
};

namespace {

// How often the device's memory was released (a reset frees it all, the queues' buffers too).
uint64_t memoryReleases(ServicePort& port, int32_t device) {
  return deviceById(port.devices(), device).memory->releases();
}

// A buffer's bytes on the device; shared by the queues a route has copied it into.
struct Block {
  int32_t device = 0;
  void* address = nullptr;
  uint64_t releases = 0;  // of the device's memory when it was allocated
  uint64_t dataBytes = 0;
  std::vector<uint8_t> userData;  // travels in the buffer's head with it
  // Whether its memory is still its own (no device reset since).
  bool alive(ServicePort& port) const { return memoryReleases(port, device) == releases; }
  ~Block() {
    ServicePort port(rt());
    if (address && alive(port)) port.release(address);
  }
};

struct Entry {
  std::shared_ptr<Block> block;
  bool taken = false;  // a dequeue is copying it out
};

struct Queue {
  int32_t device = 0;
  uint32_t id = 0;
  std::string name;
  uint32_t depth = kDefaultDepth;
  Stream* stream = nullptr;  // the queue's DMA stream (the runtime's own)
  std::list<Entry> entries;
  uint32_t incoming = 0;  // enqueues copying into it: their places are taken
  bool full() const { return entries.size() + incoming >= depth; }
  bool hasData() const { return !entries.empty() && !entries.front().taken; }
};

// Queues and bound routes, per device; touched under the runtime's lock.
struct DeviceQueues {
  uint32_t nextId = 0;
  std::map<uint32_t, std::unique_ptr<Queue>> queues;
  std::set<std::pair<uint32_t, uint32_t>> routes;  // (src, dst), bound
};

// (Never destroyed: a buffer's memory is released only by a call, never at the process's exit.)
std::map<int32_t, DeviceQueues>& devices() {
  static auto* all = new std::map<int32_t, DeviceQueues>;
  return *all;
}

// Objects the program made and not yet destroyed, so a stale pointer is refused.
template <class T>
std::set<const T*>& live() {
  static std::set<const T*> all;
  return all;
}
std::mutex& objectsLock() {
  static std::mutex m;
  return m;
}
template <class T>
T* made(T* object) {
  const std::lock_guard<std::mutex> lock(objectsLock());
  live<T>().insert(object);
  return object;
}
template <class T>
bool known(const T* object) {
  const std::lock_guard<std::mutex> lock(objectsLock());
  return object && live<T>().count(object) > 0;
}
template <class T>
aclError destroy(const T* object) {
  {
    const std::lock_guard<std::mutex> lock(objectsLock());
    if (!object || live<T>().erase(object) == 0) return ACL_ERROR_INVALID_PARAM;
  }
  delete object;
  return ACL_SUCCESS;
}

// The queues that exist, by device and id, as a process that made one may ask without the
// runtime's lock (discardQueue: a call traced only for a queue that is there).
std::mutex& liveQueuesLock() {
  static std::mutex m;
  return m;
}
std::set<std::pair<int32_t, uint32_t>>& liveQueues() {
  static auto* all = new std::set<std::pair<int32_t, uint32_t>>;
  return *all;
}
void queueLives(int32_t device, uint32_t qid, bool lives) {
  const std::lock_guard<std::mutex> lock(liveQueuesLock());
  if (lives) {
    liveQueues().insert({device, qid});
  } else {
    liveQueues().erase({device, qid});
  }
}

// The device's queues. Queues whose stream the runtime has released (the device was reset, or
// AscendCL finalised: their memory went with it) are gone, and their routes with them.
DeviceQueues& queuesOf(ServicePort& port, int32_t device) {
  DeviceQueues& d = devices()[device];
  // A device reset freed the buffers' memory: what the queues held is gone (the queues stay).
  for (auto& [id, q] : d.queues) {
    for (auto e = q->entries.begin(); e != q->entries.end();) {
      e = (!e->taken && !e->block->alive(port)) ? q->entries.erase(e) : std::next(e);
    }
  }
  for (auto it = d.queues.begin(); it != d.queues.end();) {
    if (port.streamAlive(it->second->stream)) {
      ++it;
      continue;
    }
    const uint32_t gone = it->first;
    for (auto r = d.routes.begin(); r != d.routes.end();) {
      r = (r->first == gone || r->second == gone) ? d.routes.erase(r) : std::next(r);
    }
    queueLives(device, gone, false);
    it = d.queues.erase(it);
  }
  return d;
}

Queue& queueOf(ServicePort& port, int32_t device, uint32_t qid) {
  DeviceQueues& d = queuesOf(port, device);
  auto it = d.queues.find(qid);
  if (it == d.queues.end()) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "queue " + std::to_string(qid) + " does not exist on device " + std::to_string(device));
  }
  return *it->second;
}

void checkTimeout(int32_t timeout) {
  if (timeout < -1) fail(ACL_ERROR_INVALID_PARAM, "timeout must be -1, 0 or positive (ms)");
}

// The queue scheduler: moves buffers of source queues on to their routes' destinations while
// every destination of a source has room. A buffer moves whole: its bytes stay in place.
void forward(DeviceQueues& d) {
  bool moved = true;
  while (moved) {
    moved = false;
    for (auto& [srcId, src] : d.queues) {
      std::vector<Queue*> dsts;
      for (const auto& [s, dst] : d.routes) {
        if (s == srcId) dsts.push_back(d.queues.at(dst).get());
      }
      if (dsts.empty()) continue;
      while (src->hasData()) {
        bool room = true;
        for (const Queue* q : dsts) room = room && !q->full();
        if (!room) break;
        std::shared_ptr<Block> block = src->entries.front().block;
        src->entries.pop_front();
        for (Queue* q : dsts) q->entries.push_back(Entry{block, false});
        moved = true;
      }
    }
  }
}

// Whether `to` reaches `from` over bound routes (binding from -> to would close a cycle).
bool reaches(const DeviceQueues& d, uint32_t to, uint32_t from) {
  std::set<uint32_t> seen;
  std::vector<uint32_t> next = {to};
  while (!next.empty()) {
    const uint32_t at = next.back();
    next.pop_back();
    if (at == from) return true;
    if (!seen.insert(at).second) continue;
    for (const auto& [s, dst] : d.routes) {
      if (s == at) next.push_back(dst);
    }
  }
  return false;
}

// CANN's CopyParam: a parameter of `srcLen` bytes into a field of `dstLen` (srcLen > dstLen:
// ACL_ERROR_INVALID_PARAM).
aclError copyParam(const void* src, size_t srcLen, void* dst, size_t dstLen,
                   size_t* copied = nullptr) {
  if (!src || !dst || srcLen > dstLen) return ACL_ERROR_INVALID_PARAM;
  std::memcpy(dst, src, srcLen);
  if (copied) *copied = srcLen;
  return ACL_SUCCESS;
}

aclError unsupportedOnHost(const char* call) {
  if (ascendsim::remote::clientActive()) {
    ascendsim::remote::WireWriter w;
    w.text(call);
    std::vector<uint8_t> results;
    return tdtServe(kTdtUnsupportedCall, w, results);
  }
  return run(call, &ascendsim::spec::ApiOverheads::defaultCall, [&](HostThread&) {
    fail(ACL_ERROR_FEATURE_UNSUPPORTED,
         std::string(call) +
             " is not supported: CANN's host side refuses the message-buffer functions (and "
             "AscendSim does not simulate them on the device either); use acltdtEnqueueData / "
             "acltdtDequeueData");
  });
}

// The checks enqueue and dequeue share: a buffer, user data that fits the buffer's head (96 bytes
// at most, CANN's reference) and a timeout.
void checkTransfer(const void* data, size_t dataSize, const void* userData, size_t userDataSize,
                   int32_t timeout) {
  needPointer(data, "data");
  if (dataSize == 0) fail(ACL_ERROR_INVALID_PARAM, "dataSize must be positive");
  if (userDataSize > 0 && !userData) fail(ACL_ERROR_INVALID_PARAM, "userData is NULL");
  if (userDataSize > kMaxUserData) {
    fail(ACL_ERROR_RT_PARAM_INVALID, "userDataSize " + std::to_string(userDataSize) +
                                         " exceeds 96 bytes, the most a buffer's head holds");
  }
  checkTimeout(timeout);
}

// Where the program's data is: its host memory (pageable, as the runtime sees it), or memory of
// the queue's device (CANN takes either); another device's memory is refused.
MemoryPlace dataPlace(ServicePort& port, const void* data, size_t bytes, int32_t device) {
  const MemoryPlace place = port.place(data, bytes, "data");
  if (!isDevice(place)) {
    return MemoryPlace{MemoryPlace::Kind::HostPageable, -1, reinterpret_cast<uint64_t>(data)};
  }
  if (place.device != device) {
    fail(ACL_ERROR_RT_PARAM_INVALID, "data is memory of device " + std::to_string(place.device) +
                                         ", not of the queue's device " + std::to_string(device));
  }
  return place;
}

std::string routeName(uint32_t src, uint32_t dst) {
  return std::to_string(src) + " -> " + std::to_string(dst);
}

// The queue an enqueue or dequeue found before its wait, after it: refused if it went meanwhile.
Queue& queueAfterWait(ServicePort& port, int32_t device, uint32_t qid) {
  DeviceQueues& d = queuesOf(port, device);
  auto it = d.queues.find(qid);
  if (it == d.queues.end()) {
    fail(ACL_ERROR_RT_PARAM_INVALID, "queue " + std::to_string(qid) + " of device " +
                                         std::to_string(device) +
                                         " was destroyed while the call waited");
  }
  return *it->second;
}

// acltdtCreateQueue: a queue on the thread's device, of `attr`'s name and depth (nullptr: CANN's
// defaults; `attrKnown` false: not one acltdtCreateQueueAttr made). `device`: where it was made.
void createQueue(HostThread& t, const tagMemQueueAttr* attr, bool attrKnown, uint32_t* qid,
                 int32_t* madeOn) {
  needPointer(qid, "qid");
  if (attr && !attrKnown)
    fail(ACL_ERROR_INVALID_PARAM, "attr is not one acltdtCreateQueueAttr made");
  ServicePort port(rt());
  const int32_t device = port.currentDevice(t);
  const tagMemQueueAttr defaults;
  const tagMemQueueAttr& a = attr ? *attr : defaults;
  if (a.depth < kMinDepth) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "depth " + std::to_string(a.depth) + " is below 2, the least a queue holds");
  }
  DeviceQueues& d = queuesOf(port, device);
  std::string name(a.name, strnlen(a.name, kMaxNameBytes));
  for (const auto& [id, q] : d.queues) {
    if (!name.empty() && q->name == name) {
      fail(ACL_ERROR_INVALID_PARAM,
           "a queue named " + name + " already exists (queue " + std::to_string(id) + ")");
    }
  }
  auto q = std::make_unique<Queue>();
  q->device = device;
  q->id = d.nextId++;
  q->name = name.empty() ? "queue_" + std::to_string(q->id) : name;
  q->depth = a.depth;
  q->stream = &port.createStream(device);
  *qid = q->id;
  if (madeOn) *madeOn = device;
  queueLives(device, q->id, true);
  d.queues[q->id] = std::move(q);
}

// acltdtDequeueData; `userCopied`: how many bytes of user data it wrote.
void dequeue(HostThread& t, uint32_t qid, void* data, size_t dataSize, size_t* retDataSize,
             void* userData, size_t userDataSize, int32_t timeout, size_t* userCopied) {
  t.callArgs = {arg("qid", qid), ptrArg("data", data), arg("dataSize", dataSize),
                arg("userDataSize", userDataSize)};
  needPointer(retDataSize, "retDataSize");
  checkTransfer(data, dataSize, userData, userDataSize, timeout);
  ServicePort port(rt());
  const int32_t device = port.currentDevice(t);
  queueOf(port, device, qid);
  const MemoryPlace to = dataPlace(port, data, dataSize, device);
  if (!tdtWaitFor(port, t, timeout, [device, qid] {
        auto& qs = devices()[device].queues;
        auto it = qs.find(qid);
        return it == qs.end() || it->second->hasData();
      })) {
    fail(ACL_ERROR_RT_QUEUE_EMPTY, "queue " + std::to_string(qid) + " is empty");
  }
  Queue* q = &queueAfterWait(port, device, qid);
  Entry& head = q->entries.front();
  const std::shared_ptr<Block> block = head.block;
  *retDataSize = block->dataBytes;  // (CANN peeks the size first)
  if (dataSize < block->dataBytes) {
    fail(ACL_ERROR_RT_PARAM_INVALID, "dataSize " + std::to_string(dataSize) +
                                         " is smaller than the buffer's " +
                                         std::to_string(block->dataBytes) + " bytes");
  }
  const uint64_t user = std::min<uint64_t>(userDataSize, block->userData.size());
  const uint64_t bytes = block->dataBytes + block->userData.size();
  const MemoryPlace src = port.place(block->address, bytes, "queue buffer");
  head.taken = true;
  MemoryManager* mm = &port.memory();
  const uint64_t n = block->dataBytes;
  const bool onDevice = isDevice(to);
  tdtCopyAndWait(port, t, *q->stream, to, src, bytes, [mm, src, to, onDevice, data, n] {
    std::vector<uint8_t> got = mm->readDevice(src, n, false);
    if (onDevice) return mm->writeDevice(to, got);
    std::memcpy(data, got.data(), n);
  });
  if (user > 0) std::memcpy(userData, block->userData.data(), user);
  if (userCopied) *userCopied = user;
  q->entries.pop_front();
  forward(devices()[device]);
  port.changed();
}

void bindRoutes(HostThread& t, std::vector<acltdtQueueRoute>& routes) {
  ServicePort port(rt());
  const int32_t device = port.currentDevice(t);
  DeviceQueues& d = queuesOf(port, device);
  std::string failed;
  for (acltdtQueueRoute& r : routes) {
    std::string why;
    if (!d.queues.count(r.srcId)) {
      why = "queue " + std::to_string(r.srcId) + " does not exist";
    } else if (!d.queues.count(r.dstId)) {
      why = "queue " + std::to_string(r.dstId) + " does not exist";
    } else if (r.srcId == r.dstId) {
      why = "a queue cannot route to itself";
    } else if (d.routes.count({r.srcId, r.dstId})) {
      why = "already bound";
    } else if (reaches(d, r.dstId, r.srcId)) {
      why = "it would close a cycle";
    }
    if (why.empty()) {
      d.routes.insert({r.srcId, r.dstId});
      r.status = ACL_TDT_QUEUE_ROUTE_BIND;
    } else {
      r.status = ACL_TDT_QUEUE_ROUTE_UNBIND;
      failed += (failed.empty() ? "" : "; ") + routeName(r.srcId, r.dstId) + ": " + why;
    }
  }
  forward(d);
  port.changed();
  if (!failed.empty()) fail(ACL_ERROR_FAILURE, "routes not bound: " + failed);
}

void unbindRoutes(HostThread& t, std::vector<acltdtQueueRoute>& routes) {
  ServicePort port(rt());
  DeviceQueues& d = queuesOf(port, port.currentDevice(t));
  std::string failed;
  for (acltdtQueueRoute& r : routes) {
    if (d.routes.erase({r.srcId, r.dstId}) > 0) {
      r.status = ACL_TDT_QUEUE_ROUTE_UNBIND;
    } else {
      failed += (failed.empty() ? "" : "; ") + routeName(r.srcId, r.dstId);
    }
  }
  if (!failed.empty()) fail(ACL_ERROR_FAILURE, "routes not bound: " + failed);
}

// The bound routes a query of `mode` (checked) matches.
void queryRoutes(HostThread& t, int32_t mode, uint32_t srcId, uint32_t dstId,
                 std::vector<acltdtQueueRoute>& found) {
  ServicePort port(rt());
  const DeviceQueues& d = queuesOf(port, port.currentDevice(t));
  if (mode == ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL) return;  // a bound route stays normal
  for (const auto& [s, dst] : d.routes) {
    const bool srcMatches = s == srcId, dstMatches = dst == dstId;
    const bool match = mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC   ? srcMatches
                       : mode == ACL_TDT_QUEUE_ROUTE_QUERY_DST ? dstMatches
                                                               : srcMatches && dstMatches;
    if (match) found.push_back({s, dst, ACL_TDT_QUEUE_ROUTE_BIND});
  }
}

// A queue its creating process left behind when it went (on a served machine): its routes are
// unbound, the copies into and out of it end, and it goes; one already destroyed is left alone.
void discardQueue(int32_t device, uint32_t qid) {
  {
    const std::lock_guard<std::mutex> lock(liveQueuesLock());
    if (!liveQueues().count({device, qid})) return;  // destroyed already: nothing to trace
  }
  rt().call("acltdtDestroyQueue", &ascendsim::spec::ApiOverheads::defaultCall, true,
            [&](HostThread& t) {
              t.callArgs = {arg("qid", qid)};
              ServicePort port(rt());
              auto present = [device, qid] { return devices()[device].queues.count(qid) > 0; };
              if (!present()) return;
              port.waitUntil(t, [device, qid] {
                auto& qs = devices()[device].queues;
                auto it = qs.find(qid);
                return it == qs.end() ||
                       (it->second->incoming == 0 &&
                        (it->second->entries.empty() || !it->second->entries.front().taken));
              });
              DeviceQueues& d = queuesOf(port, device);
              auto it = d.queues.find(qid);
              if (it == d.queues.end()) return;
              for (auto r = d.routes.begin(); r != d.routes.end();) {
                r = (r->first == qid || r->second == qid) ? d.routes.erase(r) : std::next(r);
              }
              Stream* stream = it->second->stream;
              d.queues.erase(it);
              queueLives(device, qid, false);
              port.changed();
              port.releaseStream(t, stream);
            });
}

// ---------------------------------------------------------------- on a served machine
using ascendsim::remote::bitsOf;
using ascendsim::remote::WireReader;
using ascendsim::remote::WireWriter;

// Reads the results a served call wrote (also on failure); false when there are none.
template <class Read>
bool readResults(const std::vector<uint8_t>& results, Read&& read) {
  if (results.empty()) return false;
  try {
    WireReader r(results);
    read(r);
    return true;
  } catch (const ascendsim::remote::WireError&) {
    return false;
  }
}

aclError servedCreateQueue(const acltdtQueueAttr* attr, uint32_t* qid) {
  WireWriter w;
  w.u8(qid != nullptr);
  // 0: no attribute (CANN's defaults); 1: one acltdtCreateQueueAttr made; 2: another pointer.
  w.u8(!attr ? 0 : known(attr) ? 1 : 2);
  if (attr && known(attr)) {
    w.blob(attr->name, kMaxNameBytes);
    w.u32(attr->depth);
  }
  std::vector<uint8_t> results;
  const aclError code = tdtServe(kTdtCreateQueueCall, w, results);
  if (code == ACL_SUCCESS) readResults(results, [&](WireReader& r) { *qid = r.u32(); });
  return code;
}

aclError servedDequeue(uint32_t qid, void* data, size_t dataSize, size_t* retDataSize,
                       void* userData, size_t userDataSize, int32_t timeout) {
  // The data lands in the thread's staging buffer when it is the program's own memory; user data
  // (96 bytes at most) comes back with the reply.
  const bool staged = data && dataSize > 0 && ascendsim::remote::programMemory(data, dataSize);
  void* into = data;
  if (staged) {
    into = ascendsim::remote::stagingBuffer(1, dataSize);
    if (!into) {
      ascendsim::remote::setServedError(
          "acltdtDequeueData: no shared memory left to stage the program's data");
      return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
  }
  WireWriter w;
  w.u32(qid);
  w.u64(bitsOf(into));
  w.u64(dataSize);
  w.u8(retDataSize != nullptr);
  w.u8(userData != nullptr);
  w.u64(userDataSize);
  w.i32(timeout);
  std::vector<uint8_t> results;
  const aclError code = tdtServe(kTdtDequeueCall, w, results);
  readResults(results, [&](WireReader& r) {
    const bool sized = r.u8() != 0;
    const uint64_t size = r.u64();
    std::vector<uint8_t> user = r.blob(kMaxUserData);
    if (sized && retDataSize) *retDataSize = size;
    if (code != ACL_SUCCESS) return;
    if (staged) std::memcpy(data, into, std::min<uint64_t>(size, dataSize));
    if (!user.empty()) std::memcpy(userData, user.data(), user.size());
  });
  return code;
}

// Bind (0), unbind (1) or query (2) routes; a list's statuses or a query's routes come back.
aclError servedRoutes(uint8_t op, acltdtQueueRouteList* list,
                      const acltdtQueueRouteQueryInfo* query) {
  WireWriter w;
  w.u8(op);
  const bool listKnown = known(list);
  w.u8(listKnown);
  if (op == 2) {
    w.i32(query->mode);
    w.u32(query->srcId);
    w.u32(query->dstId);
  } else if (listKnown) {
    w.blob(list->routes.data(), list->routes.size() * sizeof(acltdtQueueRoute));
  }
  std::vector<uint8_t> results;
  const aclError code = tdtServe(kTdtRoutesCall, w, results);
  readResults(results, [&](WireReader& r) {
    const std::vector<uint8_t> bytes = r.blob();
    std::vector<acltdtQueueRoute> routes(bytes.size() / sizeof(acltdtQueueRoute));
    if (!routes.empty()) std::memcpy(routes.data(), bytes.data(), bytes.size());
    if (!listKnown) return;
    if (op == 2 && code == ACL_SUCCESS) list->routes = routes;
    if (op != 2 && routes.size() == list->routes.size()) list->routes = routes;
  });
  return code;
}

}  // namespace

extern "C" {

acltdtQueueAttr* acltdtCreateQueueAttr() {
  return made(new tagMemQueueAttr);
}

aclError acltdtDestroyQueueAttr(const acltdtQueueAttr* attr) {
  return destroy(attr);
}

aclError acltdtSetQueueAttr(acltdtQueueAttr* attr, acltdtQueueAttrType type, size_t len,
                            const void* param) {
  if (!known(attr) || !param) return ACL_ERROR_INVALID_PARAM;
  switch (rawEnum(type)) {
    case ACL_TDT_QUEUE_NAME_PTR: {
      const char* name = nullptr;
      if (copyParam(param, len, &name, sizeof name) != ACL_SUCCESS || !name) {
        return ACL_ERROR_INVALID_PARAM;
      }
      const size_t n = strnlen(name, kMaxNameBytes);
      if (n + 1 > kMaxNameBytes) return ACL_ERROR_INVALID_PARAM;  // over 127 characters
      std::memset(attr->name, 0, kMaxNameBytes);
      std::memcpy(attr->name, name, n);
      return ACL_SUCCESS;
    }
    case ACL_TDT_QUEUE_DEPTH_UINT32: return copyParam(param, len, &attr->depth, sizeof attr->depth);
    default: return ACL_ERROR_INVALID_PARAM;
  }
}

aclError acltdtGetQueueAttr(const acltdtQueueAttr* attr, acltdtQueueAttrType type, size_t len,
                            size_t* paramRetSize, void* param) {
  if (!known(attr) || !param || !paramRetSize) return ACL_ERROR_INVALID_PARAM;
  switch (rawEnum(type)) {
    case ACL_TDT_QUEUE_NAME_PTR: {
      const char* name = attr->name;
      return copyParam(&name, sizeof name, param, len, paramRetSize);
    }
    case ACL_TDT_QUEUE_DEPTH_UINT32:
      return copyParam(&attr->depth, sizeof attr->depth, param, len, paramRetSize);
    default: return ACL_ERROR_INVALID_PARAM;
  }
}

aclError acltdtCreateQueue(const acltdtQueueAttr* attr, uint32_t* qid) {
  if (ascendsim::remote::clientActive()) return servedCreateQueue(attr, qid);
  return run("acltdtCreateQueue", &ascendsim::spec::ApiOverheads::defaultCall,
             [&](HostThread& t) { createQueue(t, attr, known(attr), qid, nullptr); });
}

aclError acltdtDestroyQueue(uint32_t qid) {
  ASCENDSIM_FORWARD(acltdtDestroyQueue, qid);
  return run("acltdtDestroyQueue", &ascendsim::spec::ApiOverheads::defaultCall, [&](HostThread& t) {
    ServicePort port(rt());
    const int32_t device = port.currentDevice(t);
    DeviceQueues& d = queuesOf(port, device);
    Queue& q = queueOf(port, device, qid);
    for (const auto& [s, dst] : d.routes) {
      if (s == qid || dst == qid) {
        fail(ACL_ERROR_FAILURE, "queue " + std::to_string(qid) + " is on the bound route " +
                                    routeName(s, dst) + ": unbind it first");
      }
    }
    if (q.incoming > 0 || (!q.entries.empty() && q.entries.front().taken)) {
      fail(ACL_ERROR_FAILURE, "queue " + std::to_string(qid) + " is being copied into or out of");
    }
    Stream* stream = q.stream;
    d.queues.erase(qid);  // its buffers' memory goes with the last queue holding them
    queueLives(device, qid, false);
    port.releaseStream(t, stream);
    port.changed();
  });
}

aclError acltdtEnqueueData(uint32_t qid, const void* data, size_t dataSize, const void* userData,
                           size_t userDataSize, int32_t timeout, uint32_t rsv) {
  ASCENDSIM_FORWARD(acltdtEnqueueData, qid, data, dataSize, userData, userDataSize, timeout, rsv);
  (void)rsv;  // reserved (CANN ignores it)
  return run("acltdtEnqueueData", &ascendsim::spec::ApiOverheads::memcpy, [&](HostThread& t) {
    t.callArgs = {arg("qid", qid), ptrArg("data", data), arg("dataSize", dataSize),
                  arg("userDataSize", userDataSize)};
    checkTransfer(data, dataSize, userData, userDataSize, timeout);
    ServicePort port(rt());
    const int32_t device = port.currentDevice(t);
    Queue* q = &queueOf(port, device, qid);
    const MemoryPlace from = dataPlace(port, data, dataSize, device);
    if (!tdtWaitFor(port, t, timeout, [device, qid] {
          auto& qs = devices()[device].queues;
          auto it = qs.find(qid);
          return it == qs.end() || !it->second->full();
        })) {
      fail(ACL_ERROR_RT_QUEUE_FULL,
           "queue " + std::to_string(qid) + " is full (depth " + std::to_string(q->depth) + ")");
    }
    q = &queueAfterWait(port, device, qid);
    auto block = std::make_shared<Block>();
    block->device = device;
    block->dataBytes = dataSize;
    if (userDataSize > 0) {
      const uint8_t* u = static_cast<const uint8_t*>(userData);
      block->userData.assign(u, u + userDataSize);
    }
    const uint64_t bytes = dataSize + userDataSize;
    block->releases = memoryReleases(port, device);
    block->address = port.allocate(device, bytes);
    if (!block->address)
      fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "the device has no room for the data");
    // The data and the user data go in one copy (the buffer and its head): from the program's
    // host memory (pageable) or from the device's own memory.
    const bool onDevice = isDevice(from);
    std::vector<uint8_t> image;
    if (!onDevice) {
      image.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + dataSize);
    }
    image.insert(image.end(), block->userData.begin(), block->userData.end());
    const MemoryPlace dst = port.place(block->address, bytes, "queue buffer");
    MemoryManager* mm = &port.memory();
    auto copied = std::make_shared<std::vector<uint8_t>>(std::move(image));
    ++q->incoming;
    tdtCopyAndWait(port, t, *q->stream, dst, from, bytes,
                   [mm, dst, from, onDevice, copied, dataSize] {
                     if (!onDevice) return mm->writeDevice(dst, *copied);
                     std::vector<uint8_t> all = mm->readDevice(from, dataSize, false);
                     all.insert(all.end(), copied->begin(), copied->end());
                     mm->writeDevice(dst, all);
                   });
    --q->incoming;
    q->entries.push_back(Entry{block, false});
    forward(devices()[device]);
    port.changed();
  });
}

aclError acltdtDequeueData(uint32_t qid, void* data, size_t dataSize, size_t* retDataSize,
                           void* userData, size_t userDataSize, int32_t timeout) {
  if (ascendsim::remote::clientActive()) {
    return servedDequeue(qid, data, dataSize, retDataSize, userData, userDataSize, timeout);
  }
  return run("acltdtDequeueData", &ascendsim::spec::ApiOverheads::memcpy, [&](HostThread& t) {
    dequeue(t, qid, data, dataSize, retDataSize, userData, userDataSize, timeout, nullptr);
  });
}

aclError acltdtEnqueue(uint32_t, acltdtBuf, int32_t) {
  return unsupportedOnHost("acltdtEnqueue");
}

aclError acltdtDequeue(uint32_t, acltdtBuf*, int32_t) {
  return unsupportedOnHost("acltdtDequeue");
}

aclError acltdtGrantQueue(uint32_t, int32_t, uint32_t, int32_t) {
  return unsupportedOnHost("acltdtGrantQueue");
}

aclError acltdtAttachQueue(uint32_t, int32_t, uint32_t*) {
  return unsupportedOnHost("acltdtAttachQueue");
}

aclError acltdtAllocBuf(size_t, uint32_t type, acltdtBuf* buf) {
  // CANN checks the type and the output before asking the (host's) processor.
  if (type != ACL_TDT_NORMAL_MEM && type != ACL_TDT_DVPP_MEM) return ACL_ERROR_INVALID_PARAM;
  if (!buf) return ACL_ERROR_INVALID_PARAM;
  return unsupportedOnHost("acltdtAllocBuf");
}

aclError acltdtFreeBuf(acltdtBuf) {
  return unsupportedOnHost("acltdtFreeBuf");
}

aclError acltdtGetBufData(const acltdtBuf, void**, size_t*) {
  return unsupportedOnHost("acltdtGetBufData");
}

aclError acltdtSetBufDataLen(acltdtBuf, size_t) {
  return unsupportedOnHost("acltdtSetBufDataLen");
}

aclError acltdtGetBufDataLen(acltdtBuf, size_t*) {
  return unsupportedOnHost("acltdtGetBufDataLen");
}

aclError acltdtAppendBufChain(acltdtBuf, acltdtBuf) {
  return unsupportedOnHost("acltdtAppendBufChain");
}

aclError acltdtGetBufChainNum(acltdtBuf, uint32_t*) {
  return unsupportedOnHost("acltdtGetBufChainNum");
}

aclError acltdtGetBufFromChain(acltdtBuf, uint32_t, acltdtBuf*) {
  return unsupportedOnHost("acltdtGetBufFromChain");
}

aclError acltdtGetBufUserData(const acltdtBuf, void*, size_t, size_t) {
  return unsupportedOnHost("acltdtGetBufUserData");
}

aclError acltdtSetBufUserData(acltdtBuf, const void*, size_t, size_t) {
  return unsupportedOnHost("acltdtSetBufUserData");
}

aclError acltdtCopyBufRef(const acltdtBuf, acltdtBuf*) {
  return unsupportedOnHost("acltdtCopyBufRef");
}

aclError acltdtBindQueueRoutes(acltdtQueueRouteList* qRouteList) {
  if (ascendsim::remote::clientActive()) return servedRoutes(0, qRouteList, nullptr);
  return run("acltdtBindQueueRoutes", &ascendsim::spec::ApiOverheads::defaultCall,
             [&](HostThread& t) {
               if (!known(qRouteList))
                 fail(ACL_ERROR_INVALID_PARAM, "qRouteList is NULL or unknown");
               bindRoutes(t, qRouteList->routes);
             });
}

aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList* qRouteList) {
  if (ascendsim::remote::clientActive()) return servedRoutes(1, qRouteList, nullptr);
  return run("acltdtUnbindQueueRoutes", &ascendsim::spec::ApiOverheads::defaultCall,
             [&](HostThread& t) {
               if (!known(qRouteList))
                 fail(ACL_ERROR_INVALID_PARAM, "qRouteList is NULL or unknown");
               unbindRoutes(t, qRouteList->routes);
             });
}

aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo* queryInfo,
                                acltdtQueueRouteList* qRouteList) {
  // CANN clears the list and checks the query before it reaches the runtime.
  if (!known(qRouteList) || !known(queryInfo)) return ACL_ERROR_INVALID_PARAM;
  qRouteList->routes.clear();
  if (!queryInfo->modeSet) return ACL_ERROR_INVALID_PARAM;
  switch (queryInfo->mode) {
    case ACL_TDT_QUEUE_ROUTE_QUERY_SRC:
      if (!queryInfo->srcSet) return ACL_ERROR_INVALID_PARAM;
      break;
    case ACL_TDT_QUEUE_ROUTE_QUERY_DST:
      if (!queryInfo->dstSet) return ACL_ERROR_INVALID_PARAM;
      break;
    case ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST:
      if (!queryInfo->srcSet || !queryInfo->dstSet) return ACL_ERROR_INVALID_PARAM;
      break;
    case ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL: break;
    default: return ACL_ERROR_INVALID_PARAM;
  }
  if (ascendsim::remote::clientActive()) return servedRoutes(2, qRouteList, queryInfo);
  return run(
      "acltdtQueryQueueRoutes", &ascendsim::spec::ApiOverheads::defaultCall, [&](HostThread& t) {
        queryRoutes(t, queryInfo->mode, queryInfo->srcId, queryInfo->dstId, qRouteList->routes);
      });
}

acltdtQueueRoute* acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId) {
  auto* route = new acltdtQueueRoute;
  route->srcId = srcId;
  route->dstId = dstId;
  return made(route);
}

aclError acltdtDestroyQueueRoute(const acltdtQueueRoute* route) {
  return destroy(route);
}

aclError acltdtGetQueueRouteParam(const acltdtQueueRoute* route, acltdtQueueRouteParamType type,
                                  size_t len, size_t* paramRetSize, void* param) {
  if (!known(route) || !param || !paramRetSize) return ACL_ERROR_INVALID_PARAM;
  switch (rawEnum(type)) {
    case ACL_TDT_QUEUE_ROUTE_SRC_UINT32:
      return copyParam(&route->srcId, sizeof route->srcId, param, len, paramRetSize);
    case ACL_TDT_QUEUE_ROUTE_DST_UINT32:
      return copyParam(&route->dstId, sizeof route->dstId, param, len, paramRetSize);
    case ACL_TDT_QUEUE_ROUTE_STATUS_INT32:
      return copyParam(&route->status, sizeof route->status, param, len, paramRetSize);
    default: return ACL_ERROR_INVALID_PARAM;
  }
}

acltdtQueueRouteList* acltdtCreateQueueRouteList() {
  return made(new acltdtQueueRouteList);
}

aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList* routeList) {
  return destroy(routeList);
}

aclError acltdtAddQueueRoute(acltdtQueueRouteList* routeList, const acltdtQueueRoute* route) {
  if (!known(routeList) || !known(route)) return ACL_ERROR_INVALID_PARAM;
  routeList->routes.push_back(*route);
  return ACL_SUCCESS;
}

aclError acltdtGetQueueRoute(const acltdtQueueRouteList* routeList, size_t index,
                             acltdtQueueRoute* route) {
  if (!known(routeList) || !known(route)) return ACL_ERROR_INVALID_PARAM;
  if (index >= routeList->routes.size()) return ACL_ERROR_INVALID_PARAM;
  *route = routeList->routes[index];
  return ACL_SUCCESS;
}

size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList* routeList) {
  return known(routeList) ? routeList->routes.size() : 0;
}

acltdtQueueRouteQueryInfo* acltdtCreateQueueRouteQueryInfo() {
  return made(new acltdtQueueRouteQueryInfo);
}

aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo* info) {
  return destroy(info);
}

aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo* param,
                                      acltdtQueueRouteQueryInfoParamType type, size_t len,
                                      const void* value) {
  if (!known(param) || !value) return ACL_ERROR_INVALID_PARAM;
  aclError ret = ACL_ERROR_INVALID_PARAM;
  switch (rawEnum(type)) {
    case ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM:
      ret = copyParam(value, len, &param->mode, sizeof param->mode);
      if (ret == ACL_SUCCESS) param->modeSet = true;
      break;
    case ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32:
      ret = copyParam(value, len, &param->srcId, sizeof param->srcId);
      if (ret == ACL_SUCCESS) param->srcSet = true;
      break;
    case ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32:
      ret = copyParam(value, len, &param->dstId, sizeof param->dstId);
      if (ret == ACL_SUCCESS) param->dstSet = true;
      break;
    default: break;
  }
  return ret;
}

}  // extern "C"

// ---------------------------------------------------------------- the server's end
namespace ascendsim::remote {
namespace {

using ascendsim::spec::ApiOverheads;

// The key a process holds a queue it made by (addresses lie below 2^47).
uint64_t queueKey(int32_t device, uint32_t qid) {
  return (1ull << 58) | (static_cast<uint64_t>(static_cast<uint32_t>(device)) << 32) | qid;
}

aclError serveCreateQueue(Session& s, WireReader& in, WireWriter& out) {
  const bool hasQid = in.u8() != 0;
  const uint8_t state = in.u8();
  tagMemQueueAttr attr;
  if (state == 1) {
    const std::vector<uint8_t> name = in.blob(kMaxNameBytes);
    std::memcpy(attr.name, name.data(), std::min(name.size(), kMaxNameBytes - 1));
    attr.depth = in.u32();
  }
  uint32_t qid = 0;
  int32_t device = 0;
  const aclError code =
      rt().call("acltdtCreateQueue", &ApiOverheads::defaultCall, true, [&](HostThread& t) {
        createQueue(t, state == 0 ? nullptr : &attr, state != 2, hasQid ? &qid : nullptr, &device);
      });
  if (code != ACL_SUCCESS) return code;
  out.u32(qid);
  // Left behind when the process goes, it goes too (not at aclFinalize: it outlives that).
  s.process().holdUntilExit(queueKey(device, qid), [device, qid] { discardQueue(device, qid); });
  return code;
}

aclError serveDequeue(Session&, WireReader& in, WireWriter& out) {
  const uint32_t qid = in.u32();
  void* data = fromBits<void*>(in.u64());
  const uint64_t dataSize = in.u64();
  const bool hasSize = in.u8() != 0;
  const bool hasUser = in.u8() != 0;
  const uint64_t userDataSize = in.u64();
  const int32_t timeout = in.i32();
  constexpr size_t kUnset = ~size_t{0};
  size_t size = kUnset, copied = 0;
  uint8_t user[kMaxUserData] = {};  // (more asked for is refused before it is written)
  const aclError code =
      rt().call("acltdtDequeueData", &ApiOverheads::memcpy, true, [&](HostThread& t) {
        dequeue(t, qid, data, dataSize, hasSize ? &size : nullptr, hasUser ? user : nullptr,
                userDataSize, timeout, &copied);
      });
  out.u8(size != kUnset);
  out.u64(size == kUnset ? 0 : size);
  out.blob(user, code == ACL_SUCCESS ? copied : 0);
  return code;
}

aclError serveRoutes(Session&, WireReader& in, WireWriter& out) {
  const uint8_t op = in.u8();
  const bool listKnown = in.u8() != 0;
  if (op > 2) throw WireError("no such route operation");
  int32_t mode = 0;
  uint32_t srcId = 0, dstId = 0;
  std::vector<acltdtQueueRoute> routes;
  if (op == 2) {
    mode = in.i32();
    srcId = in.u32();
    dstId = in.u32();
  } else if (listKnown) {
    const std::vector<uint8_t> bytes = in.blob(kMostArrayBytes);
    routes.resize(bytes.size() / sizeof(acltdtQueueRoute));
    if (!routes.empty()) std::memcpy(routes.data(), bytes.data(), bytes.size());
  }
  const char* names[] = {"acltdtBindQueueRoutes", "acltdtUnbindQueueRoutes",
                         "acltdtQueryQueueRoutes"};
  const aclError code = rt().call(names[op], &ApiOverheads::defaultCall, true, [&](HostThread& t) {
    if (op == 2) return queryRoutes(t, mode, srcId, dstId, routes);
    if (!listKnown) fail(ACL_ERROR_INVALID_PARAM, "qRouteList is NULL or unknown");
    if (op == 0) return bindRoutes(t, routes);
    unbindRoutes(t, routes);
  });
  out.blob(routes.data(), routes.size() * sizeof(acltdtQueueRoute));
  return code;
}

// The message-buffer and queue-sharing calls CANN's host side refuses (by name).
aclError serveUnsupported(Session&, WireReader& in, WireWriter&) {
  static const std::set<std::string, std::less<>> calls = {
      "acltdtEnqueue",        "acltdtDequeue",        "acltdtGrantQueue",
      "acltdtAttachQueue",    "acltdtAllocBuf",       "acltdtFreeBuf",
      "acltdtGetBufData",     "acltdtSetBufDataLen",  "acltdtGetBufDataLen",
      "acltdtAppendBufChain", "acltdtGetBufChainNum", "acltdtGetBufFromChain",
      "acltdtGetBufUserData", "acltdtSetBufUserData", "acltdtCopyBufRef"};
  const auto it = calls.find(in.textView());
  if (it == calls.end()) throw WireError("not a data queue call");
  return unsupportedOnHost(it->c_str());
}

const bool kRegistered = [] {
  registerServedCall(kTdtCreateQueueCall, &serveCreateQueue);
  addServed<&acltdtDestroyQueue>();  // (its creator's hold finds it gone: discardQueue)
  addServed<&acltdtEnqueueData>(&serveWatched<&serve<&acltdtEnqueueData>>);
  registerServedCall(kTdtDequeueCall, &serveWatched<&serveDequeue>);
  registerServedCall(kTdtRoutesCall, &serveRoutes);
  registerServedCall(kTdtUnsupportedCall, &serveUnsupported);
  return true;
}();

}  // namespace
}  // namespace ascendsim::remote
