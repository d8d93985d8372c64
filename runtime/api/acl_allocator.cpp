// The program's own allocators (acl/acl_rt_allocator.h).

#include "acl/acl_rt_allocator.h"
#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
// Sets one member of a description; descriptions are made and filled before aclInit too.
template <class Setter>
aclError setInDesc(const char* api, aclrtAllocatorDesc desc, const void* value, const char* what,
                   Setter set) {
  return rt().call(api, &ApiOverheads::defaultCall, false, [&](HostThread&) {
    AllocatorDesc& d = rt().allocatorDesc(desc);
    needPointer(value, what);
    set(d);
  });
}
}  // namespace

extern "C" {

aclrtAllocatorDesc aclrtAllocatorCreateDesc(void) {
  aclrtAllocatorDesc desc = nullptr;
  rt().call("aclrtAllocatorCreateDesc", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { desc = rt().createAllocatorDesc(); });
  return desc;
}

aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc) {
  return rt().call("aclrtAllocatorDestroyDesc", &ApiOverheads::defaultCall, false,
                   [&](HostThread&) { rt().destroyAllocatorDesc(allocatorDesc); });
}

aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator) {
  return setInDesc("aclrtAllocatorSetObjToDesc", allocatorDesc, allocator, "allocator",
                   [&](AllocatorDesc& d) { d.object = allocator; });
}

aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                          aclrtAllocatorAllocFunc func) {
  return setInDesc("aclrtAllocatorSetAllocFuncToDesc", allocatorDesc,
                   reinterpret_cast<const void*>(func), "func",
                   [&](AllocatorDesc& d) { d.alloc = func; });
}

aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                         aclrtAllocatorFreeFunc func) {
  return setInDesc("aclrtAllocatorSetFreeFuncToDesc", allocatorDesc,
                   reinterpret_cast<const void*>(func), "func",
                   [&](AllocatorDesc& d) { d.free = func; });
}

aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                aclrtAllocatorAllocAdviseFunc func) {
  return setInDesc("aclrtAllocatorSetAllocAdviseFuncToDesc", allocatorDesc,
                   reinterpret_cast<const void*>(func), "func",
                   [&](AllocatorDesc& d) { d.allocAdvise = func; });
}

aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                     aclrtAllocatorGetAddrFromBlockFunc func) {
  return setInDesc("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", allocatorDesc,
                   reinterpret_cast<const void*>(func), "func",
                   [&](AllocatorDesc& d) { d.addressOf = func; });
}

aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc) {
  return run("aclrtAllocatorRegister", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().registerAllocator(t, stream, allocatorDesc); });
}

aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc* allocatorDesc,
                                   aclrtAllocator* allocator, aclrtAllocatorAllocFunc* allocFunc,
                                   aclrtAllocatorFreeFunc* freeFunc,
                                   aclrtAllocatorAllocAdviseFunc* allocAdviseFunc,
                                   aclrtAllocatorGetAddrFromBlockFunc* getAddrFromBlockFunc) {
  return run("aclrtAllocatorGetByStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(allocatorDesc, "allocatorDesc");
    const Stream& s = rt().allocatorStream(t, stream);
    if (!s.allocatorHandle)
      fail(ACL_ERROR_INVALID_PARAM, "the stream is not registered with any allocator");
    *allocatorDesc = s.allocatorHandle;
    if (allocator) *allocator = s.allocator.object;
    if (allocFunc) *allocFunc = s.allocator.alloc;
    if (freeFunc) *freeFunc = s.allocator.free;
    if (allocAdviseFunc) *allocAdviseFunc = s.allocator.allocAdvise;
    if (getAddrFromBlockFunc) *getAddrFromBlockFunc = s.allocator.addressOf;
  });
}

aclError aclrtAllocatorUnregister(aclrtStream stream) {
  return run("aclrtAllocatorUnregister", &ApiOverheads::defaultCall, [&](HostThread& t) {
    Stream& s = rt().allocatorStream(t, stream);
    s.allocatorHandle = nullptr;
    s.allocator = AllocatorDesc{};
  });
}

}  // extern "C"
