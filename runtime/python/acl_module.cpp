// pyACL-compatible Python module `acl`, over the same libascendcl.so C programs use.
// Handles and pointers are Python ints; calls return `ret` or `(value, ret)`; the default stream
// is 0. The module remembers every memory region it handed out (acl.rt.malloc, malloc_host,
// acl.media.dvpp_malloc, acl.util.bytes_to_ptr, numpy_to_ptr), so a pointer the program never got
// is refused rather than dereferenced.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "ascendsim/compute.h"

namespace py = pybind11;

namespace {

struct Region {
  enum class Kind { Device, Host, Borrowed } kind;
  uint64_t size;
  py::object owner;  // keeps borrowed Python memory alive
};

// The regions this module handed out, by start address.
class Regions {
 public:
  void add(uint64_t p, uint64_t size, Region::Kind kind, py::object owner = py::none()) {
    regions_[p] = Region{kind, size, std::move(owner)};
  }
  void remove(uint64_t p) { regions_.erase(p); }
  // The region holding [p, p + n), or nullptr.
  const Region* find(uint64_t p, uint64_t n) const {
    auto it = regions_.upper_bound(p);
    if (it == regions_.begin()) return nullptr;
    --it;
    if (p < it->first || p + n > it->first + std::max<uint64_t>(it->second.size, 1)) return nullptr;
    return &it->second;
  }

 private:
  std::map<uint64_t, Region> regions_;
};

Regions& regions() {
  static Regions* r = new Regions();  // outlives interpreter shutdown order
  return *r;
}

std::string& moduleError() {
  static std::string* e = new std::string();
  return *e;
}

void* ptr(uint64_t p) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(p));
}
uint64_t num(const void* p) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}

// A refused pointer: the call is not made, the C API's code for a bad argument is returned.
int refuse(const std::string& what) {
  moduleError() = what;
  return ACL_ERROR_INVALID_PARAM;
}

bool known(uint64_t p, uint64_t n) {
  return regions().find(p, n) != nullptr;
}

std::string hex(uint64_t p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(p));
  return buf;
}

// ---- hostile use (issue #34, docs/reliability.md)

// Memory of immutable Python objects (bytes_to_ptr): read, never written (CPython shares small
// bytes objects, b'\x01' among them: a write changed them for the whole interpreter).
std::map<uint64_t, uint64_t>& immutableRanges() {
  static auto* r = new std::map<uint64_t, uint64_t>();
  return *r;
}

int refuseImmutable(uint64_t dst, uint64_t n, const char* call) {
  if (n == 0) return ACL_SUCCESS;
  auto it = immutableRanges().upper_bound(dst);
  if (it == immutableRanges().begin()) return ACL_SUCCESS;
  --it;
  if (dst >= it->first + std::max<uint64_t>(it->second, 1)) return ACL_SUCCESS;
  return refuse(std::string(call) + ": dst " + hex(dst) +
                " is the memory of a bytes object, which is immutable (CPython shares small "
                "ones); write into memory from malloc_host or a numpy array");
}

// Pinned memory from malloc_host lives while a numpy view of it does (ptr_to_numpy): free_host
// then gives it back to the program at once (later calls given it are refused) and to the runtime
// when the last view goes. (A view read after free_host used to read freed memory.)
struct HostBlock {
  uint64_t p = 0;
  bool released = false;  // free_host was called while views held it
};

std::set<uint64_t>& releasedWithViews() {
  static auto* s = new std::set<uint64_t>();
  return *s;
}

std::map<uint64_t, py::object>& hostBlocks() {
  static auto* m = new std::map<uint64_t, py::object>();
  return *m;
}

py::object hostBlockOwner(uint64_t p) {
  py::capsule owner(new HostBlock{p, false}, [](void* raw) {
    auto* block = static_cast<HostBlock*>(raw);
    if (block->released) {
      aclrtFreeHost(reinterpret_cast<void*>(static_cast<uintptr_t>(block->p)));
      releasedWithViews().erase(block->p);
    }
    delete block;
  });
  hostBlocks()[p] = owner;
  return std::move(owner);
}

// free_host of a block a view still holds: true (and `ret` 0, or 207002 for a second time).
bool releaseHeldBlock(uint64_t p, int& ret) {
  if (releasedWithViews().count(p)) {
    moduleError() = "free_host: " + hex(p) +
                    " was freed already (a numpy view of it keeps the memory until it goes)";
    ret = ACL_ERROR_RT_MEMORY_FREE;
    return true;
  }
  auto it = hostBlocks().find(p);
  if (it == hostBlocks().end()) return false;
  // Held by the region list and this map, and by each view.
  if (it->second.ref_count() <= 2) {
    hostBlocks().erase(it);  // (freed now by the caller)
    return false;
  }
  static_cast<HostBlock*>(py::reinterpret_borrow<py::capsule>(it->second).get_pointer())->released =
      true;
  releasedWithViews().insert(p);
  regions().remove(p);
  hostBlocks().erase(it);
  ret = ACL_SUCCESS;
  return true;
}

// numpy element types ptr_to_numpy may lay over raw memory: numbers only (NPY_OBJECT, 17, made
// numpy read the bytes as object pointers; strings, void and datetimes are not raw numbers).
void requireNumericType(int npyType) {
  const bool numeric = (npyType >= 0 && npyType <= 16) || npyType == 23;
  if (!numeric) {
    throw py::value_error("ptr_to_numpy: npy_type " + std::to_string(npyType) +
                          " is not a numeric type (0..16: bool, integers, floats, complex; 23: "
                          "float16)");
  }
}

// ---- acl.util

uint64_t bytesToPtr(const py::bytes& b) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  PyBytes_AsStringAndSize(b.ptr(), &data, &size);
  const uint64_t p = num(data);
  regions().add(p, static_cast<uint64_t>(size), Region::Kind::Borrowed, b);
  immutableRanges()[p] = static_cast<uint64_t>(size);
  return p;
}

uint64_t numpyToPtr(const py::array& a) {
  if (!(a.flags() & py::array::c_style))
    throw py::value_error("numpy_to_ptr needs a C-contiguous array");
  const uint64_t p = num(a.data());
  regions().add(p, static_cast<uint64_t>(a.nbytes()), Region::Kind::Borrowed, a);
  return p;
}

const Region& hostRegion(uint64_t p, uint64_t n, const char* call) {
  const Region* r = regions().find(p, n);
  if (!r)
    throw py::value_error(std::string(call) + ": " + hex(p) + " (+" + std::to_string(n) +
                          " bytes) is not memory this program got from acl (malloc_host, "
                          "bytes_to_ptr, numpy_to_ptr)");
  if (r->kind == Region::Kind::Device) {
    throw py::value_error(std::string(call) + ": " + hex(p) +
                          " is device memory; copy it to host memory first");
  }
  return *r;
}

py::bytes ptrToBytes(uint64_t p, uint64_t size) {
  hostRegion(p, size, "ptr_to_bytes");
  return py::bytes(static_cast<const char*>(ptr(p)), size);
}

py::array ptrToNumpy(uint64_t p, const std::vector<py::ssize_t>& shape, int npyType) {
  requireNumericType(npyType);
  py::dtype dt(npyType);
  uint64_t count = 1;
  for (py::ssize_t d : shape) {
    if (d < 0) throw py::value_error("ptr_to_numpy: negative dimension");
    count *= static_cast<uint64_t>(d);
  }
  const Region& r = hostRegion(p, count * static_cast<uint64_t>(dt.itemsize()), "ptr_to_numpy");
  // A view of the memory, as pyACL gives: it lives as long as the memory it was made from.
  return py::array(dt, shape, ptr(p),
                   r.owner.is_none() ? py::capsule(ptr(p), [](void*) {}) : r.owner);
}

// ---- acl.rt memory

std::tuple<uint64_t, int> rtMalloc(uint64_t size, int policy) {
  void* p = nullptr;
  const int ret = aclrtMalloc(&p, size, static_cast<aclrtMemMallocPolicy>(policy));
  if (ret == ACL_SUCCESS) regions().add(num(p), size, Region::Kind::Device);
  return {num(p), ret};
}

std::tuple<uint64_t, int> rtMallocHost(uint64_t size) {
  void* p = nullptr;
  const int ret = aclrtMallocHost(&p, size);
  if (ret == ACL_SUCCESS) regions().add(num(p), size, Region::Kind::Host, hostBlockOwner(num(p)));
  return {num(p), ret};
}

int rtFree(uint64_t p) {
  const int ret = aclrtFree(ptr(p));
  if (ret == ACL_SUCCESS) regions().remove(p);
  return ret;
}

int rtFreeHost(uint64_t p) {
  if (int held = 0; releaseHeldBlock(p, held)) return held;
  const int ret = aclrtFreeHost(ptr(p));
  if (ret == ACL_SUCCESS) regions().remove(p);
  return ret;
}

int checkCopy(uint64_t dst, uint64_t destMax, uint64_t src, uint64_t count) {
  if (count == 0) return ACL_SUCCESS;
  if (int bad = refuseImmutable(dst, std::min(count, destMax), "memcpy")) return bad;
  if (!known(dst, std::min(count, destMax)))
    return refuse("memcpy: dst " + hex(dst) + " is not memory this program got from acl");
  if (!known(src, count))
    return refuse("memcpy: src " + hex(src) + " is not memory this program got from acl");
  return ACL_SUCCESS;
}

int rtMemcpy(uint64_t dst, uint64_t destMax, uint64_t src, uint64_t count, int kind) {
  if (int bad = checkCopy(dst, destMax, src, count)) return bad;
  return aclrtMemcpy(ptr(dst), destMax, ptr(src), count, static_cast<aclrtMemcpyKind>(kind));
}

int rtMemcpyAsync(uint64_t dst, uint64_t destMax, uint64_t src, uint64_t count, int kind,
                  uint64_t stream) {
  if (int bad = checkCopy(dst, destMax, src, count)) return bad;
  return aclrtMemcpyAsync(ptr(dst), destMax, ptr(src), count, static_cast<aclrtMemcpyKind>(kind),
                          ptr(stream));
}

// acl.rt.reduce_async(dst, src, count, kind, type, stream, reserve): reserve must be 0 (NULL).
int rtReduceAsync(uint64_t dst, uint64_t src, uint64_t count, int kind, int type, uint64_t stream,
                  uint64_t reserve) {
  if (int bad = refuseImmutable(dst, count, "reduce_async")) return bad;
  if (count > 0 && dst && !known(dst, count))
    return refuse("reduce_async: dst " + hex(dst) + " is not memory this program got from acl");
  if (count > 0 && src && !known(src, count))
    return refuse("reduce_async: src " + hex(src) + " is not memory this program got from acl");
  return aclrtReduceAsync(ptr(dst), ptr(src), count, static_cast<aclrtReduceKind>(kind),
                          static_cast<aclDataType>(type), ptr(stream), ptr(reserve));
}

int rtMemset(uint64_t p, uint64_t maxCount, int value, uint64_t count) {
  if (int bad = refuseImmutable(p, std::min(count, maxCount), "memset")) return bad;
  if (count > 0 && !known(p, std::min(count, maxCount)))
    return refuse("memset: " + hex(p) + " is not memory this program got from acl");
  return aclrtMemset(ptr(p), maxCount, value, count);
}

int rtMemsetAsync(uint64_t p, uint64_t maxCount, int value, uint64_t count, uint64_t stream) {
  if (count > 0 && !known(p, std::min(count, maxCount)))
    return refuse("memset_async: " + hex(p) + " is not memory this program got from acl");
  return aclrtMemsetAsync(ptr(p), maxCount, value, count, ptr(stream));
}

// free, total, ret = acl.rt.get_mem_info(attr)
std::tuple<uint64_t, uint64_t, int> rtGetMemInfo(int attr) {
  size_t free = 0, total = 0;
  const int ret = aclrtGetMemInfo(static_cast<aclrtMemAttr>(attr), &free, &total);
  return {free, total, ret};
}

// ---- acl.media: DVPP buffers (device memory with DVPP's alignment)

std::tuple<uint64_t, int> dvppMalloc(uint64_t size) {
  void* p = nullptr;
  const int ret = acldvppMalloc(&p, size);
  if (ret == ACL_SUCCESS) regions().add(num(p), size, Region::Kind::Device);
  return {num(p), ret};
}

int dvppFree(uint64_t p) {
  const int ret = acldvppFree(ptr(p));
  if (ret == ACL_SUCCESS) regions().remove(p);
  return ret;
}

template <class T>
std::tuple<uint64_t, int> create(aclError (*fn)(T*)) {
  T handle = nullptr;
  const int ret = fn(&handle);
  return {num(handle), ret};
}

}  // namespace

PYBIND11_MODULE(acl, m) {
  m.doc() = "AscendSim: pyACL-compatible AscendCL for Python, running on the simulator";
  m.def(
      "init",
      [](const std::string& config) {
        return static_cast<int>(aclInit(config.empty() ? nullptr : config.c_str()));
      },
      py::arg("config_path") = "");
  m.def("finalize", [] { return static_cast<int>(aclFinalize()); });
  m.def("get_recent_err_msg", [] {
    std::string msg = moduleError();
    moduleError().clear();
    if (const char* rt = aclGetRecentErrMsg()) msg = msg.empty() ? rt : msg + "; " + rt;
    return msg;
  });

  py::module_ rt = m.def_submodule("rt", "runtime: devices, contexts, streams, events, memory");
  rt.def("set_device", [](int id) { return static_cast<int>(aclrtSetDevice(id)); });
  rt.def("reset_device", [](int id) { return static_cast<int>(aclrtResetDevice(id)); });
  rt.def("get_device", [] {
    int32_t id = -1;
    const int ret = aclrtGetDevice(&id);
    return std::make_tuple(id, ret);
  });
  rt.def("get_device_count", [] {
    uint32_t n = 0;
    const int ret = aclrtGetDeviceCount(&n);
    return std::make_tuple(n, ret);
  });
  rt.def("get_run_mode", [] {
    aclrtRunMode mode = ACL_HOST;
    const int ret = aclrtGetRunMode(&mode);
    return std::make_tuple(static_cast<int>(mode), ret);
  });
  rt.def("synchronize_device", [] { return static_cast<int>(aclrtSynchronizeDevice()); });
  rt.def("create_context", [](int id) {
    aclrtContext ctx = nullptr;
    const int ret = aclrtCreateContext(&ctx, id);
    return std::make_tuple(num(ctx), ret);
  });
  rt.def("destroy_context",
         [](uint64_t ctx) { return static_cast<int>(aclrtDestroyContext(ptr(ctx))); });
  rt.def("set_context",
         [](uint64_t ctx) { return static_cast<int>(aclrtSetCurrentContext(ptr(ctx))); });
  rt.def("get_context", [] { return create<aclrtContext>(aclrtGetCurrentContext); });
  rt.def("create_stream", [] { return create<aclrtStream>(aclrtCreateStream); });
  rt.def("destroy_stream", [](uint64_t s) { return static_cast<int>(aclrtDestroyStream(ptr(s))); });
  rt.def("synchronize_stream",
         [](uint64_t s) { return static_cast<int>(aclrtSynchronizeStream(ptr(s))); });
  rt.def("create_event", [] { return create<aclrtEvent>(aclrtCreateEvent); });
  rt.def("destroy_event", [](uint64_t e) { return static_cast<int>(aclrtDestroyEvent(ptr(e))); });
  rt.def("record_event",
         [](uint64_t e, uint64_t s) { return static_cast<int>(aclrtRecordEvent(ptr(e), ptr(s))); });
  rt.def("synchronize_event",
         [](uint64_t e) { return static_cast<int>(aclrtSynchronizeEvent(ptr(e))); });
  rt.def("event_elapsed_time", [](uint64_t start, uint64_t end) {
    float ms = 0;
    const int ret = aclrtEventElapsedTime(&ms, ptr(start), ptr(end));
    return std::make_tuple(ms, ret);
  });
  rt.def("malloc", &rtMalloc, py::arg("size"), py::arg("policy"));
  rt.def("malloc_host", &rtMallocHost, py::arg("size"));
  rt.def("free", &rtFree);
  rt.def("free_host", &rtFreeHost);
  rt.def("memset", &rtMemset, py::arg("dev_ptr"), py::arg("max_count"), py::arg("value"),
         py::arg("count"));
  rt.def("memset_async", &rtMemsetAsync, py::arg("dev_ptr"), py::arg("max_count"), py::arg("value"),
         py::arg("count"), py::arg("stream"));
  rt.def("get_mem_info", &rtGetMemInfo, py::arg("attr"));
  rt.def("memcpy", &rtMemcpy, py::arg("dst"), py::arg("dest_max"), py::arg("src"), py::arg("count"),
         py::arg("kind"));
  rt.def("memcpy_async", &rtMemcpyAsync, py::arg("dst"), py::arg("dest_max"), py::arg("src"),
         py::arg("count"), py::arg("kind"), py::arg("stream"));
  rt.def("reduce_async", &rtReduceAsync, py::arg("dst"), py::arg("src"), py::arg("count"),
         py::arg("kind"), py::arg("type"), py::arg("stream"), py::arg("reserve") = 0);

  py::module_ media = m.def_submodule("media", "media data processing: DVPP buffers");
  media.def("dvpp_malloc", &dvppMalloc, py::arg("size"));
  media.def("dvpp_free", &dvppFree, py::arg("dev_ptr"));

  py::module_ util = m.def_submodule("util", "conversions between Python memory and acl pointers");
  util.def("bytes_to_ptr", &bytesToPtr);
  util.def("ptr_to_bytes", &ptrToBytes, py::arg("ptr"), py::arg("size"));
  util.def("numpy_to_ptr", &numpyToPtr);
  util.def("ptr_to_numpy", &ptrToNumpy, py::arg("ptr"), py::arg("shape"), py::arg("npy_type"));

  // AscendSim's extension: a timing-only kernel on a stream (docs/compute.md).
  py::module_ sim = m.def_submodule("ascendsim", "AscendSim extensions: modelled compute tasks");
  sim.def(
      "launch_compute_task",
      [](const std::string& name, uint64_t bytesRead, uint64_t bytesWritten, uint64_t ops,
         uint32_t opBytes, uint64_t stream) {
        return static_cast<int>(ascendsimLaunchComputeTask(name.c_str(), bytesRead, bytesWritten,
                                                           ops, opBytes, ptr(stream)));
      },
      py::arg("name"), py::arg("bytes_read"), py::arg("bytes_written"), py::arg("ops"),
      py::arg("op_bytes") = 4, py::arg("stream") = 0);

  // Constants pyACL programs use.
  m.attr("ACL_SUCCESS") = ACL_SUCCESS;
  m.attr("ACL_DEVICE") = static_cast<int>(ACL_DEVICE);
  m.attr("ACL_HOST") = static_cast<int>(ACL_HOST);
  m.attr("ACL_MEM_MALLOC_HUGE_FIRST") = static_cast<int>(ACL_MEM_MALLOC_HUGE_FIRST);
  m.attr("ACL_MEM_MALLOC_HUGE_ONLY") = static_cast<int>(ACL_MEM_MALLOC_HUGE_ONLY);
  m.attr("ACL_MEM_MALLOC_NORMAL_ONLY") = static_cast<int>(ACL_MEM_MALLOC_NORMAL_ONLY);
  m.attr("ACL_MEMCPY_HOST_TO_HOST") = static_cast<int>(ACL_MEMCPY_HOST_TO_HOST);
  m.attr("ACL_MEMCPY_HOST_TO_DEVICE") = static_cast<int>(ACL_MEMCPY_HOST_TO_DEVICE);
  m.attr("ACL_MEMCPY_DEVICE_TO_HOST") = static_cast<int>(ACL_MEMCPY_DEVICE_TO_HOST);
  m.attr("ACL_MEMCPY_DEVICE_TO_DEVICE") = static_cast<int>(ACL_MEMCPY_DEVICE_TO_DEVICE);
  m.attr("ACL_ERROR_INVALID_PARAM") = ACL_ERROR_INVALID_PARAM;
  m.attr("ACL_DDR_MEM") = static_cast<int>(ACL_DDR_MEM);
  m.attr("ACL_HBM_MEM") = static_cast<int>(ACL_HBM_MEM);
  m.attr("ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM") = static_cast<int>(ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM);
  m.attr("ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX") = static_cast<int>(ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX);
  m.attr("ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN") = static_cast<int>(ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN);
  for (py::module_* sub : {&rt}) {
    sub->attr("ACL_MEMCPY_HOST_TO_DEVICE") = static_cast<int>(ACL_MEMCPY_HOST_TO_DEVICE);
    sub->attr("ACL_MEMCPY_DEVICE_TO_HOST") = static_cast<int>(ACL_MEMCPY_DEVICE_TO_HOST);
    sub->attr("ACL_MEM_MALLOC_HUGE_FIRST") = static_cast<int>(ACL_MEM_MALLOC_HUGE_FIRST);
  }
}
