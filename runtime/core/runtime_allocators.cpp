// The program's own allocators registered on streams (acl/acl_rt_allocator.h).

#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime {

AllocatorDesc* Runtime::createAllocatorDesc() {
  return &allocatorDescs_.add(std::make_unique<AllocatorDesc>());
}

void Runtime::refuseAllocatorDesc(aclrtAllocatorDesc handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc is NULL");
  fail(ACL_ERROR_INVALID_PARAM,
       "allocatorDesc was not made by aclrtAllocatorCreateDesc (destroyed already?)");
}

AllocatorDesc& Runtime::allocatorDesc(aclrtAllocatorDesc handle) {
  AllocatorDesc* desc = handle ? allocatorDescs_.find(handle) : nullptr;
  if (!desc) refuseAllocatorDesc(handle);
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
  allocatorStream(t, handle);
  registerAllocatorCopy(t, handle, descHandle, &allocatorDesc(descHandle));
}

void Runtime::registerAllocatorCopy(HostThread& t, aclrtStream handle,
                                    aclrtAllocatorDesc descHandle, const AllocatorDesc* copy) {
  Stream& s = allocatorStream(t, handle);
  if (!copy) refuseAllocatorDesc(descHandle);
  const AllocatorDesc& desc = *copy;
  if (!desc.object)
    fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->obj is NULL (aclrtAllocatorSetObjToDesc)");
  if (!desc.alloc) fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->allocFunc is NULL");
  if (!desc.free) fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->freeFunc is NULL");
  if (!desc.addressOf) fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->getAddrFromBlockFunc is NULL");
  s.allocators[t.remotePid] = Stream::Allocator{descHandle, desc};
}

Stream::Allocator* Runtime::registeredAllocator(HostThread& t, aclrtStream handle) {
  Stream& s = allocatorStream(t, handle);
  auto it = s.allocators.find(t.remotePid);
  return it == s.allocators.end() ? nullptr : &it->second;
}

}  // namespace ascendsim::runtime
