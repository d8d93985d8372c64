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

}  // namespace

extern "C" {

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  aclDataBuffer* handle = nullptr;
  rt().call("aclCreateDataBuffer", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    auto b = std::make_unique<DataBuffer>();
    b->data = data;
    b->size = size;
    handle = reinterpret_cast<aclDataBuffer*>(&rt().dataBuffers().add(std::move(b)));
  });
  return handle;
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  return rt().call("aclDestroyDataBuffer", &ApiOverheads::defaultCall, false,
                   [&](HostThread&) { rt().dataBuffers().remove(live(dataBuffer)); });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  return rt().call("aclUpdateDataBuffer", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    DataBuffer* b = live(dataBuffer);
    b->data = data;
    b->size = size;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  void* data = nullptr;
  rt().call("aclGetDataBufferAddr", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { data = live(dataBuffer)->data; });
  return data;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  size_t size = 0;
  rt().call("aclGetDataBufferSizeV2", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { size = live(dataBuffer)->size; });
  return size;
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  size_t size = 0;
  rt().call("aclGetDataBufferSize", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { size = live(dataBuffer)->size; });
  return size > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                     : static_cast<uint32_t>(size);
}

}  // extern "C"
