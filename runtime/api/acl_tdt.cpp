// Tensor data transfer channels (acl/acl_tdt.h). A channel is a queue in the device's memory:
// a send copies the dataset (a 64-byte control block per item, then the item's data, as CANN
// serialises it) host to device through the channel's DMA stream into an allocation of the
// device, a receive copies the oldest entry back into memory the dataset owns. Sends wait for
// room and receives for data in simulated time, up to the timeout, as CANN's memory queues do
// (hicann/runtime src/acl/acl_tdt_channel/tensor_data_transfer.cpp: the queue-backed path of
// acltdtCreateChannelWithCapacity; its codes ACL_ERROR_RT_QUEUE_FULL / _EMPTY).
// Data items and datasets are plain host objects and need no initialisation.

#include <algorithm>
#include <cstring>
#include <list>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "acl/acl_tdt.h"
#include "runtime/api/api_call.h"
#include "runtime/api/tdt_wait.h"
#include "runtime/core/copy_planner.h"
#include "runtime/core/service_port.h"

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
  const aclError code =
      run("acltdtCreateChannel", &ascendsim::spec::ApiOverheads::defaultCall, [&](HostThread&) {
        needPointer(name, "name");
        if (strnlen(name, kMaxNameBytes) + 1 > kMaxNameBytes) {
          fail(ACL_ERROR_INVALID_PARAM, "name is longer than 127 characters");
        }
        ServicePort port(rt());
        if (deviceId >= port.deviceCount()) {
          fail(ACL_ERROR_INVALID_PARAM, "device " + std::to_string(deviceId) + " does not exist");
        }
        if (queueBacked && (capacity < kMinCapacity || capacity > kMaxCapacity)) {
          fail(ACL_ERROR_INVALID_PARAM,
               "capacity " + std::to_string(capacity) + " is outside [2, 8192]");
        }
        checkSoc(port.deviceSpec(static_cast<int32_t>(deviceId)).soc, queueBacked);
        auto channel = std::make_unique<acltdtChannelHandle>();
        channel->device = static_cast<int32_t>(deviceId);
        channel->name = name;
        channel->capacity = capacity;
        channel->queueBacked = queueBacked;
        channel->stream = &port.createStream(channel->device);
        made = channel.release();
        channels().insert(made);
      });
  return code == ACL_SUCCESS ? made : nullptr;
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
  if (!tdtWaitFor(port, t, timeout, [&channel] { return !channel.full(); })) {
    fail(ACL_ERROR_RT_QUEUE_FULL, "channel " + channel.name + " is full (capacity " +
                                      std::to_string(channel.capacity) + ")");
  }
  entry.block = port.allocate(channel.device, entry.bytes);
  if (!entry.block) fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "the device has no room for the dataset");
  const MemoryPlace dst = port.place(entry.block, entry.bytes, "channel entry");
  const MemoryPlace src{MemoryPlace::Kind::HostPageable, -1,
                        reinterpret_cast<uint64_t>(dataset->items.front()->data)};
  MemoryManager* mm = &port.memory();
  auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(image));
  tdtCopyAndWait(port, t, *channel.stream, dst, src, entry.bytes,
                 [mm, dst, bytes] { mm->writeDevice(dst, *bytes); });
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
  if (!tdtWaitFor(port, t, timeout, [&channel] { return channel.hasData(); })) {
    fail(ACL_ERROR_RT_QUEUE_EMPTY, "channel " + channel.name + " is empty");
  }
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

}  // namespace

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

acltdtChannelHandle* acltdtCreateChannel(uint32_t deviceId, const char* name) {
  return createChannel(deviceId, name, 0, false);
}

acltdtChannelHandle* acltdtCreateChannelWithCapacity(uint32_t deviceId, const char* name,
                                                     size_t capacity) {
  return createChannel(deviceId, name, capacity, true);
}

aclError acltdtStopChannel(acltdtChannelHandle* handle) {
  // A queue-backed channel has nothing to stop (CANN: "stop channel is no use").
  return run("acltdtStopChannel", &ascendsim::spec::ApiOverheads::defaultCall,
             [&](HostThread&) { channelOf(handle); });
}

aclError acltdtCleanChannel(acltdtChannelHandle* handle) {
  return run("acltdtCleanChannel", &ascendsim::spec::ApiOverheads::defaultCall, [&](HostThread&) {
    acltdtChannelHandle& channel = channelOf(handle);
    if (!channel.queueBacked) {
      fail(ACL_ERROR_FEATURE_UNSUPPORTED, "a channel without a queue cannot be cleaned");
    }
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
  });
}

aclError acltdtDestroyChannel(acltdtChannelHandle* handle) {
  return run("acltdtDestroyChannel", &ascendsim::spec::ApiOverheads::defaultCall,
             [&](HostThread& t) {
               acltdtChannelHandle& channel = channelOf(handle);
               ServicePort port(rt());
               for (Entry& e : channel.entries) port.release(e.block);
               port.releaseStream(t, channel.stream);
               channels().erase(handle);
               delete handle;
             });
}

aclError acltdtSendTensor(const acltdtChannelHandle* handle, const acltdtDataset* dataset,
                          int32_t timeout) {
  return run("acltdtSendTensor", &ascendsim::spec::ApiOverheads::memcpy,
             [&](HostThread& t) { send(t, handle, dataset, timeout); });
}

aclError acltdtReceiveTensor(const acltdtChannelHandle* handle, acltdtDataset* dataset,
                             int32_t timeout) {
  return run("acltdtReceiveTensor", &ascendsim::spec::ApiOverheads::memcpy,
             [&](HostThread& t) { receive(t, handle, dataset, timeout); });
}

aclError acltdtQueryChannelSize(const acltdtChannelHandle* handle, size_t* size) {
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
