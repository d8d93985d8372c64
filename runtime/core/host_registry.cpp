#include "runtime/core/host_registry.h"

#include <iterator>

#include "acl/acl_rt.h"
#include "runtime/core/errors.h"
#include "runtime/core/memory_manager.h"
#include "runtime/core/soc_cores.h"

namespace ascendsim::runtime {

void HostRegistry::registerRange(void* p, uint64_t size, uint32_t flags) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
  if (size == 0) fail(ACL_ERROR_INVALID_PARAM, "size is 0");
  const uint32_t known =
      ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED;
  if (flags & ~known)
    fail(ACL_ERROR_INVALID_PARAM,
         "flag bits " + std::to_string(flags & ~known) + " are not ACL_HOST_REG_*");
  if (flags & ACL_HOST_REG_IOMEMORY) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "ACL_HOST_REG_IOMEMORY maps device I/O memory, which the simulator has none of");
  }
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  if (size > UINT64_MAX - address)
    fail(ACL_ERROR_INVALID_PARAM, "ptr + size runs past the end of the address space");
  if (memory_.overlapsRegistered(address, size)) {
    fail(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
         describePointer(p) + " + " + std::to_string(size) +
             " bytes overlaps a range registered already");
  }
  const models::MemoryPlace place = memory_.resolve(p, 1, "ptr");
  if (place.kind == models::MemoryPlace::Kind::Device)
    fail(ACL_ERROR_INVALID_PARAM, "ptr is device memory, not host memory");
  memory_.registerHost(address, size);
  registrations_[address] = {size, flags};
}

void* HostRegistry::devicePointer(void* p, uint32_t flag) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "pHost is NULL");
  if (flag != 0) fail(ACL_ERROR_INVALID_PARAM, "flag must be 0");
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  auto it = registrations_.upper_bound(address);
  if (it == registrations_.begin() ||
      address - std::prev(it)->first >= std::prev(it)->second.first) {
    fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
         describePointer(p) + " lies in no registered host range");
  }
  --it;
  if (!(it->second.second & ACL_HOST_REG_MAPPED)) {
    fail(ACL_ERROR_INVALID_PARAM,
         "the range was registered without ACL_HOST_REG_MAPPED: it has no device address");
  }
  return p;  // kernels run on the host: the device reaches the memory at its host address
}

void HostRegistry::unregisterRange(void* p) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  if (!registrations_.erase(address) || !memory_.unregisterHost(address)) {
    fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
         describePointer(p) + " is not the start of a registered host range");
  }
}

std::vector<std::pair<uint64_t, uint64_t>> HostRegistry::rangesForKernels() const {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto& [address, registration] : registrations_) {
    if (registration.second & ACL_HOST_REG_MAPPED) ranges.push_back({address, registration.first});
  }
  for (const auto& range : managed_.ranges()) ranges.push_back(range);
  return ranges;
}

void HostRegistry::checkManagedRequest(uint64_t size, uint32_t flag) {
  if (size == 0) fail(ACL_ERROR_INVALID_PARAM, "size is 0");
  if (flag != ACL_RT_MEM_ATTACH_GLOBAL)
    fail(ACL_ERROR_INVALID_PARAM, "flag must be ACL_RT_MEM_ATTACH_GLOBAL");
}

void* HostRegistry::allocateManaged(uint64_t size, const std::string& soc) {
  if (!isA2OrA3(soc)) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "managed (UVM) memory needs an A2/A3 SoC; this machine's is " + soc);
  }
  // Whole pages, so that every page of it can be watched and migrate.
  void* p = memory_.allocatePinnedHost(size, ManagedMemory::kPage);
  managed_.add(reinterpret_cast<uint64_t>(p), size);
  return p;
}

}  // namespace ascendsim::runtime
