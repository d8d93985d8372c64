// Stream memory operations: aclrtValueWrite and aclrtValueWait, tasks the task scheduler runs
// itself (no DMA channel): a write of 8 bytes, and a wait until 8 bytes of device memory meet a
// condition.

#include <cstring>

#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {
namespace {

constexpr uint64_t kValueBytes = 8;

bool conditionHolds(uint32_t flag, uint64_t current, uint64_t value) {
  switch (flag) {
    // CANN's STARS condition program branches with a signed compare (BGE).
    case ACL_STREAM_WAIT_VALUE_GEQ:
      return static_cast<int64_t>(current) >= static_cast<int64_t>(value);
    case ACL_STREAM_WAIT_VALUE_EQ: return current == value;
    case ACL_STREAM_WAIT_VALUE_AND: return (current & value) != 0;
    default: return ~(current | value) != 0;  // ACL_STREAM_WAIT_VALUE_NOR
  }
}

}  // namespace

// Both take 8 bytes of device memory inside one allocation (CANN: device memory only).
static models::MemoryPlace valuePlace(MemoryManager& mm, void* devAddr) {
  if (!devAddr) fail(ACL_ERROR_INVALID_PARAM, "devAddr is NULL");
  const models::MemoryPlace place = mm.resolve(devAddr, kValueBytes, "devAddr");
  if (place.kind != models::MemoryPlace::Kind::Device) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "devAddr must be device memory (aclrtMalloc), not host memory");
  }
  return place;
}

void Runtime::valueWrite(HostThread& t, void* devAddr, uint64_t value, uint32_t flag,
                         aclrtStream sh) {
  const models::MemoryPlace place = valuePlace(*memory_, devAddr);
  if (flag != 0)
    fail(ACL_ERROR_RT_PARAM_INVALID, "flag " + std::to_string(flag) + " must be 0 (reserved)");
  MemoryManager* mm = memory_.get();
  auto task = std::make_unique<models::Task>();
  task->kind = models::TaskKind::ValueWrite;
  task->effect = [mm, place, value] {
    std::vector<uint8_t> bytes(kValueBytes);
    std::memcpy(bytes.data(), &value, kValueBytes);  // little-endian, as the device stores it
    mm->writeDevice(place, bytes);
  };
  submitValueTask(t, streams_.stream(t, sh), place, std::move(task));
}

void Runtime::valueWait(HostThread& t, void* devAddr, uint64_t value, uint32_t flag,
                        aclrtStream sh) {
  const models::MemoryPlace place = valuePlace(*memory_, devAddr);
  if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "flag " + std::to_string(flag) + " is not an ACL_STREAM_WAIT_VALUE_* mode (0..3)");
  }
  MemoryManager* mm = memory_.get();
  auto task = std::make_unique<models::Task>();
  task->kind = models::TaskKind::ValueWait;
  task->condition = [mm, place, value, flag] {
    const std::vector<uint8_t> bytes = mm->readDevice(place, kValueBytes, false);
    uint64_t current = 0;
    std::memcpy(&current, bytes.data(), kValueBytes);
    return conditionHolds(flag, current, value);
  };
  submitValueTask(t, streams_.stream(t, sh), place, std::move(task));
}

// Both keep the allocation holding the 8 bytes alive while they are queued.
void Runtime::submitValueTask(HostThread& t, Stream& s, const models::MemoryPlace& place,
                              std::unique_ptr<models::Task> task) {
  MemoryManager* mm = memory_.get();
  auto held = std::make_shared<uint64_t>(0);
  task->dst = place;
  task->release = [mm, held] { mm->drop(*held); };
  streams_.submit(t, s, std::move(task));
  *held = mm->hold(place);
}

}  // namespace ascendsim::runtime
