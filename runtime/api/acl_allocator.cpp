// The program's own allocators (acl/acl_rt_allocator.h).

#include <map>
#include <memory>
#include <mutex>

#include "acl/acl_rt_allocator.h"
#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
// In a program sharing a machine (ascendsim exec --shared) descriptions live in the program, as
// the object and functions they hold do: their calls run here, with the same checks and codes,
// and aclrtAllocatorRegister sends the machine a copy (which it keeps and hands back, and never
// calls: docs/runtime.md, "Custom allocators").
class ProgramDescs {
 public:
  aclrtAllocatorDesc make() {
    std::lock_guard<std::mutex> lock(mutex_);
    auto desc = std::make_unique<AllocatorDesc>();
    aclrtAllocatorDesc handle = desc.get();
    descs_.emplace(handle, std::move(desc));
    return handle;
  }
  template <class Change>
  void change(aclrtAllocatorDesc handle, Change change) {
    std::lock_guard<std::mutex> lock(mutex_);
    change(find(handle));
  }
  void destroy(aclrtAllocatorDesc handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    find(handle);
    descs_.erase(handle);  // streams keep the copy they registered
  }
  // A copy of the description `handle` names (false: none of the program's).
  bool copy(aclrtAllocatorDesc handle, AllocatorDesc& out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = descs_.find(handle);
    if (!handle || it == descs_.end()) return false;
    out = *it->second;
    return true;
  }

 private:
  AllocatorDesc& find(aclrtAllocatorDesc handle) {
    auto it = handle ? descs_.find(handle) : descs_.end();
    if (it == descs_.end()) Runtime::refuseAllocatorDesc(handle);
    return *it->second;
  }
  std::mutex mutex_;
  std::map<const void*, std::unique_ptr<AllocatorDesc>> descs_;
};

ProgramDescs& programDescs() {
  static ProgramDescs* descs = new ProgramDescs;  // (used until the program's last call)
  return *descs;
}

// Sets one member of a description; descriptions are made and filled before aclInit too.
template <class Setter>
aclError setInDesc(const char* api, aclrtAllocatorDesc desc, const void* value, const char* what,
                   Setter set) {
  if (ascendsim::remote::clientActive()) {
    return inProgram(api, [&] {
      programDescs().change(desc, [&](AllocatorDesc& d) {
        needPointer(value, what);
        set(d);
      });
    });
  }
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
  if (ascendsim::remote::clientActive()) {
    inProgram("aclrtAllocatorCreateDesc", [&] { desc = programDescs().make(); });
    return desc;
  }
  rt().call("aclrtAllocatorCreateDesc", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { desc = rt().createAllocatorDesc(); });
  return desc;
}

aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc) {
  if (ascendsim::remote::clientActive()) {
    return inProgram("aclrtAllocatorDestroyDesc", [&] { programDescs().destroy(allocatorDesc); });
  }
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
  if (ascendsim::remote::clientActive()) {
    AllocatorDesc copy;
    const bool known = programDescs().copy(allocatorDesc, copy);
    return ascendsimAllocatorRegister(stream, allocatorDesc, known ? &copy : nullptr);
  }
  return run("aclrtAllocatorRegister", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().registerAllocator(t, stream, allocatorDesc); });
}

aclError ascendsimAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc,
                                    const AllocatorDesc* copy) {
  ASCENDSIM_FORWARD(ascendsimAllocatorRegister, stream, allocatorDesc, copy);
  return run("aclrtAllocatorRegister", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().registerAllocatorCopy(t, stream, allocatorDesc, copy); });
}

aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc* allocatorDesc,
                                   aclrtAllocator* allocator, aclrtAllocatorAllocFunc* allocFunc,
                                   aclrtAllocatorFreeFunc* freeFunc,
                                   aclrtAllocatorAllocAdviseFunc* allocAdviseFunc,
                                   aclrtAllocatorGetAddrFromBlockFunc* getAddrFromBlockFunc) {
  ASCENDSIM_FORWARD(aclrtAllocatorGetByStream, stream, allocatorDesc, allocator, allocFunc,
                    freeFunc, allocAdviseFunc, getAddrFromBlockFunc);
  return run("aclrtAllocatorGetByStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(allocatorDesc, "allocatorDesc");
    const Stream::Allocator* registered = rt().registeredAllocator(t, stream);
    if (!registered)
      fail(ACL_ERROR_INVALID_PARAM, "the stream is not registered with any allocator");
    const AllocatorDesc& d = registered->desc;
    *allocatorDesc = registered->handle;
    if (allocator) *allocator = d.object;
    if (allocFunc) *allocFunc = d.alloc;
    if (freeFunc) *freeFunc = d.free;
    if (allocAdviseFunc) *allocAdviseFunc = d.allocAdvise;
    if (getAddrFromBlockFunc) *getAddrFromBlockFunc = d.addressOf;
  });
}

aclError aclrtAllocatorUnregister(aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtAllocatorUnregister, stream);
  return run("aclrtAllocatorUnregister", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().allocatorStream(t, stream).allocators.erase(t.remotePid); });
}

}  // extern "C"
