// The program's own allocators registered on streams (acl/acl_rt_allocator.h).

#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

AllocatorDesc* Runtime::createAllocatorDesc() {
  return &allocatorDescs_.add(std::make_unique<AllocatorDesc>());
}

AllocatorDesc& Runtime::allocatorDesc(aclrtAllocatorDesc handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc is NULL");
  AllocatorDesc* desc = allocatorDescs_.find(handle);
  if (!desc)
    fail(ACL_ERROR_INVALID_PARAM,
         "allocatorDesc was not made by aclrtAllocatorCreateDesc (destroyed already?)");
  return *desc;
}

void Runtime::destroyAllocatorDesc(aclrtAllocatorDesc handle) {
  allocatorDesc(handle);
  allocatorDescs_.remove(handle);  // streams keep the copy they registered
}

Stream& Runtime::allocatorStream(HostThread& t, aclrtStream handle) {
  if (!handle)
    fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (allocators are registered on a created stream)");
  return streams_.stream(t, handle);
}

void Runtime::registerAllocator(HostThread& t, aclrtStream handle, aclrtAllocatorDesc descHandle) {
  Stream& s = allocatorStream(t, handle);
  const AllocatorDesc& desc = allocatorDesc(descHandle);
  if (!desc.object)
    fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->obj is NULL (aclrtAllocatorSetObjToDesc)");
  if (!desc.alloc) fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->allocFunc is NULL");
  if (!desc.free) fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->freeFunc is NULL");
  if (!desc.addressOf) fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->getAddrFromBlockFunc is NULL");
  s.allocatorHandle = descHandle;
  s.allocator = desc;
}

}  // namespace ascendsim::runtime
