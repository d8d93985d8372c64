// aclDataBuffer: a descriptor of a buffer the program owns (address and size).

#include <limits>
#include <memory>

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {

// The live buffer behind `handle`, or nullptr (with the call's message set).
DataBuffer* live(const aclDataBuffer* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "dataBuffer is NULL");
  DataBuffer* b = rt().dataBuffers().find(handle);
  if (!b)
    fail(ACL_ERROR_INVALID_PARAM,
         "dataBuffer " + describePointer(handle) + " is not a live aclDataBuffer");
  return b;
}

// What a served program's getters ask for (ascendsimDataBufferGet's `which`).
constexpr const char* kGetters[] = {"aclGetDataBufferAddr", "aclGetDataBufferSizeV2",
                                    "aclGetDataBufferSize"};

// A served program's getter: the value, or 0 (the message set) when the buffer is not live.
uint64_t servedGet(const aclDataBuffer* dataBuffer, uint32_t which) {
  uint64_t value = 0;
  return ascendsimDataBufferGet(dataBuffer, which, &value) == ACL_SUCCESS ? value : 0;
}

}  // namespace

extern "C" {

aclError ascendsimCreateDataBuffer(void* data, size_t size, aclDataBuffer** dataBuffer) {
  ASCENDSIM_FORWARD(ascendsimCreateDataBuffer, data, size, dataBuffer);
  return rt().call("aclCreateDataBuffer", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(dataBuffer, "dataBuffer");
    auto b = std::make_unique<DataBuffer>();
    b->data = data;
    b->size = size;
    *dataBuffer = reinterpret_cast<aclDataBuffer*>(&rt().dataBuffers().add(std::move(b)));
  });
}

aclError ascendsimDataBufferGet(const aclDataBuffer* dataBuffer, uint32_t which, uint64_t* value) {
  ASCENDSIM_FORWARD(ascendsimDataBufferGet, dataBuffer, which, value);
  return rt().call(kGetters[which < 3 ? which : 0], &ApiOverheads::defaultCall, false,
                   [&](HostThread&) {
                     if (which >= 3) fail(ACL_ERROR_INVALID_PARAM, "no such data buffer field");
                     needPointer(value, "value");
                     const DataBuffer* b = live(dataBuffer);
                     *value = which == 0 ? reinterpret_cast<uint64_t>(b->data) : b->size;
                   });
}

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  aclDataBuffer* handle = nullptr;
  ascendsimCreateDataBuffer(data, size, &handle);
  return handle;
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  ASCENDSIM_FORWARD(aclDestroyDataBuffer, dataBuffer);
  return rt().call("aclDestroyDataBuffer", &ApiOverheads::defaultCall, false,
                   [&](HostThread&) { rt().dataBuffers().remove(live(dataBuffer)); });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  ASCENDSIM_FORWARD(aclUpdateDataBuffer, dataBuffer, data, size);
  return rt().call("aclUpdateDataBuffer", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    DataBuffer* b = live(dataBuffer);
    b->data = data;
    b->size = size;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  if (ascendsim::remote::clientActive()) return reinterpret_cast<void*>(servedGet(dataBuffer, 0));
  void* data = nullptr;
  rt().call("aclGetDataBufferAddr", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { data = live(dataBuffer)->data; });
  return data;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  if (ascendsim::remote::clientActive()) return servedGet(dataBuffer, 1);
  size_t size = 0;
  rt().call("aclGetDataBufferSizeV2", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { size = live(dataBuffer)->size; });
  return size;
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  size_t size = 0;
  if (ascendsim::remote::clientActive()) {
    size = servedGet(dataBuffer, 2);
  } else {
    rt().call("aclGetDataBufferSize", &ApiOverheads::defaultCall, false,
              [&](HostThread&) { size = live(dataBuffer)->size; });
  }
  return size > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                     : static_cast<uint32_t>(size);
}

}  // extern "C"
