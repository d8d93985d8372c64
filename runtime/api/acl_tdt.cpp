// Tensor data transfer channels (acl/acl_tdt.h). A channel is a queue in the device's memory:
// a send copies the dataset (a 64-byte control block per item, then the item's data, as CANN
// serialises it) host to device through the channel's DMA stream into an allocation of the
// device, a receive copies the oldest entry back into memory the dataset owns. Sends wait for
// room and receives for data in simulated time, up to the timeout, as CANN's memory queues do
// (hicann/runtime src/acl/acl_tdt_channel/tensor_data_transfer.cpp: the queue-backed path of
// acltdtCreateChannelWithCapacity; its codes ACL_ERROR_RT_QUEUE_FULL / _EMPTY).
// Data items and datasets are plain host objects and need no initialisation. A channel's name is
// its device's: a second live channel of the same name on the device is refused, as the queue
// under it would be (rtMemQueueCreate). A channel destroyed while a send or receive waits on it
// ends that call with ACL_ERROR_INVALID_PARAM, as a destroyed channel's handle is refused.
// On a machine served by `ascendsim exec --shared` (tdt_served.h) the channels are the server's,
// each the process's that made it; datasets and items stay in the program.

#include <algorithm>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "acl/acl_tdt.h"
#include "runtime/api/api_call.h"
#include "runtime/api/tdt_served.h"
#include "runtime/api/tdt_wait.h"
#include "runtime/core/copy_planner.h"
#include "runtime/core/service_port.h"
#include "runtime/remote/served_handlers.h"
#include "runtime/remote/shared_host_memory.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::models::MemoryPlace;
using ascendsim::models::Task;
using ascendsim::models::TaskKind;

struct acltdtDataItem {
  acltdtTensorType type = ACL_TENSOR_DATA_UNDEFINED;
  std::vector<int64_t> dims;
  aclDataType dataType = ACL_DT_UNDEFINED;
  void* data = nullptr;  // the program's memory, or the receiving dataset's
  size_t size = 0;
  size_t sliceNum = 0, sliceId = 0;
};

struct acltdtDataset {
  std::vector<acltdtDataItem*> items;
  std::string name;
  // Filled by acltdtReceiveTensor: the items and their bytes are the dataset's.
  bool ownsItems = false;
  std::vector<uint8_t> received;
  void dropOwned() {
    if (!ownsItems) return;
    for (acltdtDataItem* item : items) delete item;
    items.clear();
    received.clear();
    ownsItems = false;
  }
  ~acltdtDataset() { dropOwned(); }
};

namespace {

// CANN's limits: names of at most 127 characters (RT_MQ_MAX_NAME_LEN 128 with its NUL), queues
// of depth 2 at least (RT_MQ_DEPTH_MIN), tensors of at most 128 dimensions, and a 64-byte control
// block per item in the queued buffer.
constexpr size_t kMaxNameBytes = 128;
constexpr size_t kMinCapacity = 2;
constexpr size_t kMaxCapacity = 8192;  // acltdtCreateChannelWithCapacity: [2, 8192]
constexpr size_t kMaxDims = 128;
constexpr uint64_t kControlBytes = 64;

// One queued dataset: where its bytes wait on the device, and each item's description.
struct Entry {
  void* block = nullptr;  // device memory holding the serialised dataset
  uint64_t bytes = 0;
  std::vector<acltdtDataItem> items;  // data: offset into the block's bytes
  bool taken = false;                 // a receive is copying it out
};

}  // namespace

struct acltdtChannelHandle {
  int32_t device = 0;
  std::string name;
  size_t capacity = 0;  // 0: no limit (acltdtCreateChannel)
  bool queueBacked = true;
  Stream* stream = nullptr;  // the channel's DMA stream (the runtime's own)
  std::list<Entry> entries;  // a list: a receive keeps its entry while others come and go
  bool destroyed = false;    // by acltdtDestroyChannel, while `users` still use it
  int users = 0;             // calls that use it across a wait (the last deletes a destroyed one)
  bool full() const { return capacity > 0 && entries.size() >= capacity; }
  bool hasData() const {
    for (const Entry& e : entries) {
      if (!e.taken) return true;
    }
    return false;
  }
};

namespace {

// Channels alive, so that a stale or made-up handle is refused; touched under the runtime's lock.
std::set<const acltdtChannelHandle*>& channels() {
  static std::set<const acltdtChannelHandle*> all;
  return all;
}

acltdtChannelHandle& channelOf(const acltdtChannelHandle* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
  if (!channels().count(handle)) {
    fail(ACL_ERROR_INVALID_PARAM, "handle is not a channel that acltdtCreateChannel* made");
  }
  return *const_cast<acltdtChannelHandle*>(handle);
}

// A call using a channel across a wait: the channel stays in memory if another thread destroys it
// meanwhile, and the last user deletes it.
class ChannelUse {
 public:
  explicit ChannelUse(acltdtChannelHandle& channel) : channel_(channel) { ++channel_.users; }
  ~ChannelUse() {
    if (--channel_.users == 0 && channel_.destroyed) delete &channel_;
  }
  ChannelUse(const ChannelUse&) = delete;
  ChannelUse& operator=(const ChannelUse&) = delete;

 private:
  acltdtChannelHandle& channel_;
};

void refuseIfDestroyed(const acltdtChannelHandle& channel) {
  if (channel.destroyed) {
    fail(ACL_ERROR_INVALID_PARAM,
         "channel " + channel.name + " was destroyed (acltdtDestroyChannel) while the call waited");
  }
}

// Which SoCs have which channels (CANN's API reference, 17-01 Tensor data transfer): queue-backed
// channels on the 910 generations and 950, not on the 310P and 310B inference parts; channels
// without a queue only on the first 910 generation (Atlas training products).
void checkSoc(const std::string& soc, bool queueBacked) {
  const bool inference = soc.rfind("Ascend310", 0) == 0;
  const bool first910 = soc.rfind("Ascend910", 0) == 0 && soc.rfind("Ascend910B", 0) != 0 &&
                        soc.rfind("Ascend910_93", 0) != 0;
  if (queueBacked ? inference : !first910) {
    fail(
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        soc + (queueBacked ? " has no queue-backed channels" : " has no channels without a queue"));
  }
}

acltdtChannelHandle* createChannel(uint32_t deviceId, const char* name, size_t capacity,
                                   bool queueBacked) {
  acltdtChannelHandle* made = nullptr;
  const aclError code = ascendsimTdtCreateChannel(deviceId, name, capacity, queueBacked, &made);
  return code == ACL_SUCCESS ? made : nullptr;
}

void makeChannel(uint32_t deviceId, const char* name, size_t capacity, bool queueBacked,
                 acltdtChannelHandle** handle) {
  needPointer(handle, "handle");
  needPointer(name, "name");
  if (strnlen(name, kMaxNameBytes) + 1 > kMaxNameBytes) {
    fail(ACL_ERROR_INVALID_PARAM, "name is longer than 127 characters");
  }
  ServicePort port(rt());
  if (deviceId >= port.deviceCount()) {
    fail(ACL_ERROR_INVALID_PARAM, "device " + std::to_string(deviceId) + " does not exist");
  }
  if (queueBacked && (capacity < kMinCapacity || capacity > kMaxCapacity)) {
    fail(ACL_ERROR_INVALID_PARAM, "capacity " + std::to_string(capacity) + " is outside [2, 8192]");
  }
  checkSoc(port.deviceSpec(static_cast<int32_t>(deviceId)).soc, queueBacked);
  for (const acltdtChannelHandle* other : channels()) {
    if (other->device == static_cast<int32_t>(deviceId) && other->name == name) {
      fail(ACL_ERROR_INVALID_PARAM, "a channel named " + std::string(name) +
                                        " already exists on device " + std::to_string(deviceId));
    }
  }
  auto channel = std::make_unique<acltdtChannelHandle>();
  channel->device = static_cast<int32_t>(deviceId);
  channel->name = name;
  channel->capacity = capacity;
  channel->queueBacked = queueBacked;
  channel->stream = &port.createStream(channel->device);
  *handle = channel.release();
  channels().insert(*handle);
}

void checkTimeout(const acltdtChannelHandle& channel, int32_t timeout) {
  if (timeout < -1) fail(ACL_ERROR_INVALID_PARAM, "timeout must be -1, 0 or positive (ms)");
  // A channel without a queue (acltdtCreateChannel) waits without limit only, as in CANN.
  if (!channel.queueBacked && timeout != -1) {
    fail(ACL_ERROR_INVALID_PARAM,
         "a channel made by acltdtCreateChannel only waits without limit: timeout must be -1");
  }
}

void send(HostThread& t, const acltdtChannelHandle* handle, const acltdtDataset* dataset,
          int32_t timeout) {
  acltdtChannelHandle& channel = channelOf(handle);
  needPointer(dataset, "dataset");
  checkTimeout(channel, timeout);
  if (dataset->items.empty()) fail(ACL_ERROR_INVALID_PARAM, "the dataset has no items");
  ServicePort port(rt());
  // The serialised dataset: a control block per item, then its data.
  Entry entry;
  std::vector<uint8_t> image;
  for (const acltdtDataItem* item : dataset->items) {
    if (item->size > 0 && !item->data) fail(ACL_ERROR_INVALID_PARAM, "an item's data is NULL");
    if (item->size > 0 && isDevice(port.place(item->data, item->size, "item data"))) {
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "items holding device memory are not simulated: give host memory");
    }
    acltdtDataItem queued = *item;
    image.resize(image.size() + kControlBytes);
    queued.data = reinterpret_cast<void*>(image.size());  // offset of its data in the block
    if (item->size > 0) {
      const uint8_t* from = static_cast<const uint8_t*>(item->data);
      image.insert(image.end(), from, from + item->size);
    }
    entry.items.push_back(queued);
  }
  entry.bytes = image.size();
  const ChannelUse use(channel);
  if (!tdtWaitFor(port, t, timeout, [&channel] { return channel.destroyed || !channel.full(); })) {
    fail(ACL_ERROR_RT_QUEUE_FULL, "channel " + channel.name + " is full (capacity " +
                                      std::to_string(channel.capacity) + ")");
  }
  refuseIfDestroyed(channel);
  entry.block = port.allocate(channel.device, entry.bytes);
  if (!entry.block) fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "the device has no room for the dataset");
  const MemoryPlace dst = port.place(entry.block, entry.bytes, "channel entry");
  const MemoryPlace src{MemoryPlace::Kind::HostPageable, -1,
                        reinterpret_cast<uint64_t>(dataset->items.front()->data)};
  MemoryManager* mm = &port.memory();
  auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(image));
  tdtCopyAndWait(port, t, *channel.stream, dst, src, entry.bytes,
                 [mm, dst, bytes] { mm->writeDevice(dst, *bytes); });
  if (channel.destroyed) port.release(entry.block);
  refuseIfDestroyed(channel);
  channel.entries.push_back(std::move(entry));
  port.changed();
}

void receive(HostThread& t, const acltdtChannelHandle* handle, acltdtDataset* dataset,
             int32_t timeout) {
  acltdtChannelHandle& channel = channelOf(handle);
  needPointer(dataset, "dataset");
  checkTimeout(channel, timeout);
  if (!dataset->items.empty() && !dataset->ownsItems) {
    fail(ACL_ERROR_INVALID_PARAM, "the dataset must be empty or filled by a receive");
  }
  ServicePort port(rt());
  const ChannelUse use(channel);
  if (!tdtWaitFor(port, t, timeout,
                  [&channel] { return channel.destroyed || channel.hasData(); })) {
    fail(ACL_ERROR_RT_QUEUE_EMPTY, "channel " + channel.name + " is empty");
  }
  refuseIfDestroyed(channel);
  auto at = channel.entries.begin();
  while (at->taken) ++at;
  at->taken = true;
  Entry* entry = &*at;
  dataset->dropOwned();
  dataset->received.assign(entry->bytes, 0);
  const MemoryPlace src = port.place(entry->block, entry->bytes, "channel entry");
  const MemoryPlace dst{MemoryPlace::Kind::HostPageable, -1,
                        reinterpret_cast<uint64_t>(dataset->received.data())};
  MemoryManager* mm = &port.memory();
  std::vector<uint8_t>* out = &dataset->received;
  const uint64_t n = entry->bytes;
  tdtCopyAndWait(port, t, *channel.stream, dst, src, n, [mm, src, out, n] {
    const std::vector<uint8_t> bytes = mm->readDevice(src, n, false);
    std::memcpy(out->data(), bytes.data(), n);
  });
  for (const acltdtDataItem& queued : entry->items) {
    auto* item = new acltdtDataItem(queued);
    const size_t offset = reinterpret_cast<size_t>(queued.data);
    item->data = item->size > 0 ? dataset->received.data() + offset : nullptr;
    dataset->items.push_back(item);
  }
  dataset->ownsItems = true;
  port.release(entry->block);
  for (auto it = channel.entries.begin(); it != channel.entries.end(); ++it) {
    if (&*it == entry) {
      channel.entries.erase(it);
      break;
    }
  }
  port.changed();
}

// ---------------------------------------------------------------- on a served machine
// A send's items travel as their descriptions; their bytes, when they are the program's own
// memory, one after another in the calling thread's staging buffer (shared memory the server
// reads), else as the address they are (device or the job's shared memory, as in-process). A
// receive's image comes back in the job's shared memory: the program copies it into the dataset
// and tells the server (without waiting) that it may go.

using ascendsim::remote::bitsOf;
using ascendsim::remote::fromBits;
using ascendsim::remote::WireReader;
using ascendsim::remote::WireWriter;

constexpr uint64_t kMostItems = 1u << 20;

void writeItem(WireWriter& w, const acltdtDataItem& item, uint64_t data) {
  w.i32(rawEnum(item.type));
  w.i32(rawEnum(item.dataType));
  w.blob(item.dims.data(), item.dims.size() * sizeof(int64_t));
  w.u64(item.size);
  w.u64(item.sliceNum);
  w.u64(item.sliceId);
  w.u64(data);
}

// An item as writeItem wrote it; `data`: what its last word says.
std::unique_ptr<acltdtDataItem> readItem(WireReader& r, uint64_t& data) {
  auto item = std::make_unique<acltdtDataItem>();
  item->type = static_cast<acltdtTensorType>(r.i32());
  item->dataType = static_cast<aclDataType>(r.i32());
  const std::vector<uint8_t> dims = r.blob(kMaxDims * sizeof(int64_t));
  item->dims.resize(dims.size() / sizeof(int64_t));
  if (!item->dims.empty()) std::memcpy(item->dims.data(), dims.data(), dims.size());
  item->size = r.u64();
  item->sliceNum = r.u64();
  item->sliceId = r.u64();
  data = r.u64();
  return item;
}

aclError stagingRefused(const char* name) {
  ascendsim::remote::setServedError(std::string(name) +
                                    ": no shared memory left to stage the program's data");
  return ACL_ERROR_RT_MEMORY_ALLOCATION;
}

aclError servedSend(const acltdtChannelHandle* handle, const acltdtDataset* dataset,
                    int32_t timeout) {
  WireWriter w;
  w.u64(bitsOf(handle));
  w.i32(timeout);
  w.u8(dataset != nullptr);
  if (dataset) {
    auto staged = [](const acltdtDataItem* item) {
      return item->size > 0 && item->data &&
             ascendsim::remote::programMemory(item->data, item->size);
    };
    uint64_t bytes = 0;
    for (const acltdtDataItem* item : dataset->items) bytes += staged(item) ? item->size : 0;
    uint8_t* buffer = nullptr;
    if (bytes > 0) {
      buffer = static_cast<uint8_t*>(ascendsim::remote::stagingBuffer(0, bytes));
      if (!buffer) return stagingRefused("acltdtSendTensor");
    }
    w.u64(dataset->items.size());
    uint64_t at = 0;
    for (const acltdtDataItem* item : dataset->items) {
      if (!staged(item)) {
        writeItem(w, *item, bitsOf(item->data));
        continue;
      }
      std::memcpy(buffer + at, item->data, item->size);
      writeItem(w, *item, bitsOf(buffer + at));
      at += item->size;
    }
  }
  std::vector<uint8_t> results;
  return tdtServe(kTdtSendCall, w, results);
}

aclError servedReceive(const acltdtChannelHandle* handle, acltdtDataset* dataset, int32_t timeout) {
  WireWriter w;
  w.u64(bitsOf(handle));
  w.i32(timeout);
  // 0: no dataset; 1: empty or filled by a receive; 2: holding the program's items (refused).
  w.u8(!dataset ? 0 : !dataset->items.empty() && !dataset->ownsItems ? 2 : 1);
  std::vector<uint8_t> results;
  const aclError code = tdtServe(kTdtReceiveCall, w, results);
  if (code != ACL_SUCCESS) return code;
  uint64_t image = 0;
  try {
    WireReader r(results);
    image = r.u64();
    const uint64_t bytes = r.u64();
    const uint64_t n = r.u64();
    if (n > kMostItems) throw ascendsim::remote::WireError("too many items");
    dataset->dropOwned();
    const auto* from = fromBits<const uint8_t*>(image);
    dataset->received.assign(from, from + bytes);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t offset = 0;
      std::unique_ptr<acltdtDataItem> item = readItem(r, offset);
      item->data = item->size > 0 ? dataset->received.data() + offset : nullptr;
      dataset->items.push_back(item.release());
    }
    dataset->ownsItems = true;
  } catch (const ascendsim::remote::WireError&) {
    ascendsim::remote::setServedError("acltdtReceiveTensor: the server's reply was cut short");
    return ACL_ERROR_RT_INTERNAL_ERROR;
  }
  if (image) {
    WireWriter taken;
    taken.u64(image);
    ascendsim::remote::callServer(kTdtReceivedCall, taken, false);
  }
  return ACL_SUCCESS;
}

// Drops a channel's entries and gives their memory back, but for those a receive is copying out
// (the receive releases them); the waiting sends and receives look again.
void releaseUntakenEntries(acltdtChannelHandle& channel) {
  ServicePort port(rt());
  for (auto it = channel.entries.begin(); it != channel.entries.end();) {
    if (it->taken) {
      ++it;
      continue;
    }
    port.release(it->block);
    it = channel.entries.erase(it);
  }
  port.changed();
}
}  // namespace

namespace ascendsim::runtime::api {

aclError tdtServe(const char* name, const remote::WireWriter& arguments,
                  std::vector<uint8_t>& results) {
  remote::CallReply reply = remote::callServer(name, arguments, true);
  remote::runServedExceptionCallbacks();
  if (reply.code != ACL_SUCCESS) remote::discardLocalError();
  results = std::move(reply.results);
  return reply.code;
}

}  // namespace ascendsim::runtime::api

extern "C" {

acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem* dataItem) {
  return dataItem ? dataItem->type : ACL_TENSOR_DATA_UNDEFINED;
}

aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem* dataItem) {
  return dataItem ? dataItem->dataType : ACL_DT_UNDEFINED;
}

void* acltdtGetDataAddrFromItem(const acltdtDataItem* dataItem) {
  return dataItem ? dataItem->data : nullptr;
}

size_t acltdtGetDataSizeFromItem(const acltdtDataItem* dataItem) {
  return dataItem ? dataItem->size : 0;
}

size_t acltdtGetDimNumFromItem(const acltdtDataItem* dataItem) {
  return dataItem ? dataItem->dims.size() : 0;
}

aclError acltdtGetSliceInfoFromItem(const acltdtDataItem* dataItem, size_t* sliceNum,
                                    size_t* sliceId) {
  if (!dataItem || !sliceNum || !sliceId) return ACL_ERROR_INVALID_PARAM;
  *sliceNum = dataItem->sliceNum;
  *sliceId = dataItem->sliceId;
  return ACL_SUCCESS;
}

aclError acltdtGetDimsFromItem(const acltdtDataItem* dataItem, int64_t* dims, size_t dimNum) {
  if (!dataItem) return ACL_ERROR_INVALID_PARAM;
  if ((dims == nullptr) != (dimNum == 0)) return ACL_ERROR_INVALID_PARAM;
  if (dimNum < dataItem->dims.size()) return ACL_ERROR_INVALID_PARAM;
  for (size_t i = 0; i < dataItem->dims.size(); ++i) dims[i] = dataItem->dims[i];
  return ACL_SUCCESS;
}

acltdtDataItem* acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t* dims, size_t dimNum,
                                     aclDataType dataType, void* data, size_t size) {
  if ((dims == nullptr) != (dimNum == 0) || dimNum > kMaxDims) return nullptr;
  auto* item = new acltdtDataItem;
  item->type = tdtType;
  if (tdtType != ACL_TENSOR_DATA_TENSOR) {
    // Markers (end of sequence, abnormal ...) carry no shape and no data.
    if (dims) {
      delete item;
      return nullptr;
    }
    return item;
  }
  item->dims.assign(dims, dims + dimNum);
  item->dataType = dataType;
  item->data = data;
  item->size = size;
  return item;
}

aclError acltdtDestroyDataItem(acltdtDataItem* dataItem) {
  if (!dataItem) return ACL_ERROR_INVALID_PARAM;
  delete dataItem;
  return ACL_SUCCESS;
}

acltdtDataset* acltdtCreateDataset() {
  return new acltdtDataset;
}

aclError acltdtDestroyDataset(acltdtDataset* dataset) {
  if (!dataset) return ACL_ERROR_INVALID_PARAM;
  delete dataset;
  return ACL_SUCCESS;
}

acltdtDataItem* acltdtGetDataItem(const acltdtDataset* dataset, size_t index) {
  if (!dataset || index >= dataset->items.size()) return nullptr;
  return dataset->items[index];
}

aclError acltdtAddDataItem(acltdtDataset* dataset, acltdtDataItem* dataItem) {
  if (!dataset || !dataItem) return ACL_ERROR_INVALID_PARAM;
  if (dataset->ownsItems) return ACL_ERROR_FEATURE_UNSUPPORTED;  // a received dataset
  dataset->items.push_back(dataItem);
  return ACL_SUCCESS;
}

size_t acltdtGetDatasetSize(const acltdtDataset* dataset) {
  return dataset ? dataset->items.size() : 0;
}

const char* acltdtGetDatasetName(const acltdtDataset* dataset) {
  return dataset ? dataset->name.c_str() : nullptr;
}

aclError ascendsimTdtCreateChannel(uint32_t deviceId, const char* name, uint64_t capacity,
                                   uint32_t queueBacked, acltdtChannelHandle** handle) {
  ASCENDSIM_FORWARD(ascendsimTdtCreateChannel, deviceId, name, capacity, queueBacked, handle);
  return run("acltdtCreateChannel", &ascendsim::spec::ApiOverheads::defaultCall,
             [&](HostThread&) { makeChannel(deviceId, name, capacity, queueBacked != 0, handle); });
}

acltdtChannelHandle* acltdtCreateChannel(uint32_t deviceId, const char* name) {
  return createChannel(deviceId, name, 0, false);
}

acltdtChannelHandle* acltdtCreateChannelWithCapacity(uint32_t deviceId, const char* name,
                                                     size_t capacity) {
  return createChannel(deviceId, name, capacity, true);
}

aclError acltdtStopChannel(acltdtChannelHandle* handle) {
  ASCENDSIM_FORWARD(acltdtStopChannel, handle);
  // A queue-backed channel has nothing to stop (CANN: "stop channel is no use").
  return run("acltdtStopChannel", &ascendsim::spec::ApiOverheads::defaultCall,
             [&](HostThread&) { channelOf(handle); });
}

aclError acltdtCleanChannel(acltdtChannelHandle* handle) {
  ASCENDSIM_FORWARD(acltdtCleanChannel, handle);
  return run("acltdtCleanChannel", &ascendsim::spec::ApiOverheads::defaultCall, [&](HostThread&) {
    acltdtChannelHandle& channel = channelOf(handle);
    if (!channel.queueBacked) {
      fail(ACL_ERROR_FEATURE_UNSUPPORTED, "a channel without a queue cannot be cleaned");
    }
    releaseUntakenEntries(channel);
  });
}

aclError acltdtDestroyChannel(acltdtChannelHandle* handle) {
  ASCENDSIM_FORWARD(acltdtDestroyChannel, handle);
  return run("acltdtDestroyChannel", &ascendsim::spec::ApiOverheads::defaultCall,
             [&](HostThread& t) {
               acltdtChannelHandle& channel = channelOf(handle);
               const ChannelUse use(channel);  // (deleted by the last of it and its users)
               channels().erase(handle);
               channel.destroyed = true;
               releaseUntakenEntries(channel);  // (waiting sends and receives end)
               ServicePort(rt()).releaseStream(t, channel.stream);
             });
}

aclError acltdtSendTensor(const acltdtChannelHandle* handle, const acltdtDataset* dataset,
                          int32_t timeout) {
  if (ascendsim::remote::clientActive()) return servedSend(handle, dataset, timeout);
  return run("acltdtSendTensor", &ascendsim::spec::ApiOverheads::memcpy,
             [&](HostThread& t) { send(t, handle, dataset, timeout); });
}

aclError acltdtReceiveTensor(const acltdtChannelHandle* handle, acltdtDataset* dataset,
                             int32_t timeout) {
  if (ascendsim::remote::clientActive()) return servedReceive(handle, dataset, timeout);
  return run("acltdtReceiveTensor", &ascendsim::spec::ApiOverheads::memcpy,
             [&](HostThread& t) { receive(t, handle, dataset, timeout); });
}

aclError acltdtQueryChannelSize(const acltdtChannelHandle* handle, size_t* size) {
  ASCENDSIM_FORWARD(acltdtQueryChannelSize, handle, size);
  return run(
      "acltdtQueryChannelSize", &ascendsim::spec::ApiOverheads::defaultCall, [&](HostThread&) {
        acltdtChannelHandle& channel = channelOf(handle);
        needPointer(size, "size");
        if (!channel.queueBacked) {
          fail(ACL_ERROR_FEATURE_UNSUPPORTED, "a channel without a queue does not report its size");
        }
        *size = channel.entries.size();
      });
}

}  // extern "C"

// ---------------------------------------------------------------- the server's end
namespace ascendsim::remote {
namespace {

using ascendsim::spec::ApiOverheads;

// A channel's handle is its process's (an address in its memory, as on hardware): another
// process's, or one this process no longer has, is refused as a handle no acltdtCreateChannel*
// made is, through the runtime (traced, the thread's last error). False, with the code, then.
bool ownChannel(Session& s, uint64_t handle, const char* name, Overhead overhead, aclError& code) {
  if (handle == 0 || s.process().ownerOf(handle) != 0) return true;
  code = rt().call(name, overhead, true, [&](HostThread&) {
    fail(ACL_ERROR_INVALID_PARAM, "handle " + describePointer(fromBits<const void*>(handle)) +
                                      " is not a live channel of this process (a channel's "
                                      "handle is valid only in the process that made it)");
  });
  return false;
}

aclError serveCreateChannel(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&ascendsimTdtCreateChannel> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS && call.arg<4>()) {
    acltdtChannelHandle* handle = *call.arg<4>();
    s.process().own(bitsOf(handle), bitsOf(handle));
    s.process().holdUntilExit(bitsOf(handle), [handle] { acltdtDestroyChannel(handle); });
  }
  return call.code;
}

// Calls that take a channel (argument 0).
template <auto Fn>
aclError serveOnChannel(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  aclError code = ACL_SUCCESS;
  if (!ownChannel(s, bitsOf(call.template arg<0>()), Served<Fn>::name, &ApiOverheads::defaultCall,
                  code))
    return code;
  call.run();
  call.write(out);
  return call.code;
}

aclError serveDestroyChannel(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&acltdtDestroyChannel> call;
  call.read(in);
  const uint64_t handle = bitsOf(call.arg<0>());
  aclError code = ACL_SUCCESS;
  if (!ownChannel(s, handle, "acltdtDestroyChannel", &ApiOverheads::defaultCall, code)) return code;
  const uint64_t owned = s.process().ownedSoFar();  // (a channel made here meanwhile stays owned)
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) {
    s.process().drop(handle);
    s.process().disown(handle, owned);
  }
  return call.code;
}

aclError serveSend(Session& s, WireReader& in, WireWriter&) {
  const uint64_t handle = in.u64();
  const int32_t timeout = in.i32();
  std::unique_ptr<acltdtDataset> dataset;
  if (in.u8()) {
    dataset = std::make_unique<acltdtDataset>();
    dataset->ownsItems = true;  // (the server's copies: deleted with it)
    const uint64_t n = in.u64();
    if (n > kMostItems) throw WireError("too many items");
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t data = 0;
      std::unique_ptr<acltdtDataItem> item = readItem(in, data);
      item->data = fromBits<void*>(data);
      dataset->items.push_back(item.release());
    }
  }
  aclError code = ACL_SUCCESS;
  if (!ownChannel(s, handle, "acltdtSendTensor", &ApiOverheads::memcpy, code)) return code;
  return acltdtSendTensor(fromBits<const acltdtChannelHandle*>(handle), dataset.get(), timeout);
}

// Images of receives not yet taken by their programs, with the process each is for.
std::mutex imagesMutex;
std::map<uint64_t, const ServedProcess*>& images() {
  static std::map<uint64_t, const ServedProcess*> all;
  return all;
}

void releaseImage(uint64_t image) {
  {
    std::lock_guard<std::mutex> lock(imagesMutex);
    if (!images().erase(image)) return;
  }
  SharedHostMemory::instance()->release(fromBits<void*>(image));
}

aclError serveReceive(Session& s, WireReader& in, WireWriter& out) {
  const uint64_t handle = in.u64();
  const int32_t timeout = in.i32();
  const uint8_t state = in.u8();
  aclError code = ACL_SUCCESS;
  if (!ownChannel(s, handle, "acltdtReceiveTensor", &ApiOverheads::memcpy, code)) return code;
  std::unique_ptr<acltdtDataset> dataset;
  acltdtDataItem programs;  // stands for the items of a dataset the program filled itself
  if (state != 0) dataset = std::make_unique<acltdtDataset>();
  if (state == 2) dataset->items.push_back(&programs);
  code = acltdtReceiveTensor(fromBits<const acltdtChannelHandle*>(handle), dataset.get(), timeout);
  if (state == 2 && !dataset->ownsItems) dataset->items.clear();
  if (code != ACL_SUCCESS) return code;
  const std::vector<uint8_t>& bytes = dataset->received;
  uint64_t image = 0;
  if (!bytes.empty()) {
    void* at = SharedHostMemory::instance()->allocate(bytes.size(), 64);
    if (!at) {
      return rt().call("acltdtReceiveTensor", &ApiOverheads::defaultCall, true, [&](HostThread&) {
        fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
             "no shared memory left to hand the received dataset to the program (" +
                 std::to_string(bytes.size()) + " bytes; the dataset is lost)");
      });
    }
    std::memcpy(at, bytes.data(), bytes.size());
    image = bitsOf(at);
    {
      std::lock_guard<std::mutex> lock(imagesMutex);
      images()[image] = &s.process();
    }
    s.process().hold(image, [image] { releaseImage(image); });
  }
  out.u64(image);
  out.u64(bytes.size());
  out.u64(dataset->items.size());
  for (const acltdtDataItem* item : dataset->items) {
    const uint64_t offset =
        item->data ? static_cast<uint64_t>(static_cast<const uint8_t*>(item->data) - bytes.data())
                   : 0;
    writeItem(out, *item, offset);
  }
  return ACL_SUCCESS;
}

// The program has copied a receive's image: it goes (only its own process's).
aclError serveReceived(Session& s, WireReader& in, WireWriter&) {
  const uint64_t image = in.u64();
  {
    std::lock_guard<std::mutex> lock(imagesMutex);
    auto it = images().find(image);
    if (it == images().end() || it->second != &s.process()) return ACL_SUCCESS;
  }
  s.process().drop(image);
  releaseImage(image);
  return ACL_SUCCESS;
}

const bool kRegistered = [] {
  addServed<&ascendsimTdtCreateChannel>(&serveCreateChannel);
  addServed<&acltdtStopChannel>(&serveOnChannel<&acltdtStopChannel>);
  addServed<&acltdtCleanChannel>(&serveOnChannel<&acltdtCleanChannel>);
  addServed<&acltdtQueryChannelSize>(&serveOnChannel<&acltdtQueryChannelSize>);
  addServed<&acltdtDestroyChannel>(&serveDestroyChannel);
  registerServedCall(kTdtSendCall, &serveWatched<&serveSend>);
  registerServedCall(kTdtReceiveCall, &serveWatched<&serveReceive>);
  registerServedCall(kTdtReceivedCall, &serveReceived);
  return true;
}();

}  // namespace
}  // namespace ascendsim::remote
