// Operator-API tensors and scalars (aclnn/acl_meta.h), aclDataTypeSize and the float16 conversions.

#include <algorithm>
#include <cstring>

#include "runtime/api/aclnn_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::runtime::ops::Scalar;
using ascendsim::runtime::ops::Tensor;

namespace {

const Tensor& tensorOf(const aclTensor* handle, const char* what = "tensor") {
  if (!handle) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(what) + " is NULL");
  const Tensor* t = objects().tensors.find(handle);
  if (!t)
    fail(ACLNN_ERR_PARAM_INVALID, std::string(what) + " " + describePointer(handle) +
                                      " is not a live aclTensor (destroyed already?)");
  return *t;
}

std::vector<int64_t> dims(const int64_t* values, uint64_t n, const char* what) {
  if (n > 0 && !values)
    fail(ACLNN_ERR_PARAM_NULLPTR,
         std::string(what) + " is NULL but its count is " + std::to_string(n));
  if (n > 64)
    fail(ACLNN_ERR_PARAM_INVALID, std::string(what) + " has " + std::to_string(n) + " entries");
  std::vector<int64_t> out(values, values + n);
  for (int64_t v : out) {
    if (v < 0)
      fail(ACLNN_ERR_PARAM_INVALID,
           std::string(what) + " has a negative entry " + std::to_string(v));
  }
  return out;
}

// Hands an array to the caller in memory it frees with delete[].
void giveArray(const std::vector<int64_t>& v, int64_t** out, uint64_t* count, const char* what) {
  needOpPointer(out, what);
  needOpPointer(count, "count");
  *out = new int64_t[v.size() ? v.size() : 1];
  std::copy(v.begin(), v.end(), *out);
  *count = v.size();
}

// Re-points one of a repeatable executor's tensors (and the aclTensor itself) at `addr`.
aclnnStatus setTensorAddr(const char* api, aclOpExecutor* executor, size_t index, aclTensor* tensor,
                          void* addr, bool input) {
  return runHostOp(api, [&](HostThread&) {
    if (!executor || !tensor)
      fail(ACLNN_ERR_INNER_NULLPTR, std::string(!executor ? "executor" : "tensor") + " is NULL");
    ops::Executor* e = objects().executors.find(executor);
    if (!e) fail(ACLNN_ERR_PARAM_INVALID, "executor " + describePointer(executor) + " is not live");
    ops::Tensor* t = objects().tensors.find(tensor);
    if (!t)
      fail(ACLNN_ERR_PARAM_INVALID,
           "tensor " + describePointer(tensor) + " is not a live aclTensor");
    ops::ElementwisePlan& p = e->plan;
    std::vector<ops::Tensor*> slots;
    if (input) {
      if (p.hasSelf) slots.push_back(&p.self);
      slots.push_back(&p.other);
    } else {
      slots.push_back(&p.out);
    }
    if (index >= slots.size()) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(input ? "input" : "output") + " index " +
                                        std::to_string(index) + " is out of range: " + p.name +
                                        " has " + std::to_string(slots.size()));
    }
    t->data = addr;
    slots[index]->data = addr;
    // In place, self and out are one tensor.
    if (p.inplace && (slots[index] == &p.self || slots[index] == &p.out))
      p.self.data = p.out.data = addr;
  });
}

aclnnStatus createTensor(const int64_t* viewDims, uint64_t viewDimsNum, int32_t dataType,
                         const int64_t* stride, int64_t offset, int32_t format,
                         const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData,
                         aclTensor*& handle);
aclnnStatus createScalar(void* value, int32_t dataType, aclScalar*& handle);

}  // namespace

extern "C" {

float aclFloat16ToFloat(aclFloat16 value) {
  return ops::halfToFloat(value);
}

aclFloat16 aclFloatToFloat16(float value) {
  return ops::floatToHalf(value);
}

size_t aclDataTypeSize(aclDataType dataType) {
  const int32_t raw = rawEnum(dataType);
  return ops::isDataType(raw) ? ops::elementSize(static_cast<aclDataType>(raw)) : 0;
}

aclnnStatus ascendsimCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, int32_t dataType,
                                  const int64_t* stride, int64_t offset, int32_t format,
                                  const int64_t* storageDims, uint64_t storageDimsNum,
                                  void* tensorData, aclTensor** tensor) {
  ASCENDSIM_FORWARD_OP(ascendsimCreateTensor, viewDims, viewDimsNum, dataType, stride, offset,
                       format, storageDims, storageDimsNum, tensorData, tensor);
  if (!tensor) return ACLNN_ERR_PARAM_NULLPTR;
  return createTensor(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                      storageDimsNum, tensorData, *tensor);
}

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  aclTensor* handle = nullptr;
  if (ascendsim::remote::clientActive()) {
    ascendsimCreateTensor(viewDims, viewDimsNum, rawEnum(dataType), stride, offset, rawEnum(format),
                          storageDims, storageDimsNum, tensorData, &handle);
    return handle;
  }
  createTensor(viewDims, viewDimsNum, rawEnum(dataType), stride, offset, rawEnum(format),
               storageDims, storageDimsNum, tensorData, handle);
  return handle;
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  aclScalar* handle = nullptr;
  if (ascendsim::remote::clientActive()) {
    // The value's bytes, as many as its type takes (none for a type that has no size: refused
    // there).
    const int32_t type = rawEnum(dataType);
    const size_t bytes =
        ops::isDataType(type) ? ops::elementSize(static_cast<aclDataType>(type)) : 0;
    ascendsimCreateScalar(value, bytes, type, &handle);
    return handle;
  }
  createScalar(value, rawEnum(dataType), handle);
  return handle;
}

aclnnStatus ascendsimCreateScalar(void* value, uint64_t valueBytes, int32_t dataType,
                                  aclScalar** scalar) {
  ASCENDSIM_FORWARD_OP(ascendsimCreateScalar, value, valueBytes, dataType, scalar);
  // (Called by a served program's library: the value is read as its type, so it must hold that
  // many bytes.)
  if (!scalar) return ACLNN_ERR_PARAM_NULLPTR;
  const int32_t type = dataType;
  if (value && ops::isDataType(type) &&
      valueBytes < ops::elementSize(static_cast<aclDataType>(type))) {
    return ACLNN_ERR_PARAM_INVALID;
  }
  return createScalar(value, type, *scalar);
}

aclnnStatus ascendsimTensorDims(const aclTensor* tensor, int32_t which, int32_t pointers,
                                AscendsimDims* dims) {
  ASCENDSIM_FORWARD_OP(ascendsimTensorDims, tensor, which, pointers, dims);
  int64_t* values = nullptr;
  uint64_t count = 0;
  int64_t** valuesAt = (pointers & 1) ? &values : nullptr;
  uint64_t* countAt = (pointers & 2) ? &count : nullptr;
  const aclnnStatus status = which == 0   ? aclGetViewShape(tensor, valuesAt, countAt)
                             : which == 1 ? aclGetViewStrides(tensor, valuesAt, countAt)
                                          : aclGetStorageShape(tensor, valuesAt, countAt);
  if (status == ACLNN_SUCCESS && dims) {
    dims->count = std::min<uint64_t>(count, 64);
    std::copy(values, values + dims->count, dims->values);
  }
  delete[] values;
  return status;
}

}  // extern "C"

namespace {

aclnnStatus createTensor(const int64_t* viewDims, uint64_t viewDimsNum, int32_t dataType,
                         const int64_t* stride, int64_t offset, int32_t format,
                         const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData,
                         aclTensor*& handle) {
  return runHostOp("aclCreateTensor", [&](HostThread&) {
    auto t = std::make_unique<Tensor>();
    t->shape = dims(viewDims, viewDimsNum, "viewDims");
    // Sizes no device memory could hold are refused before they overflow the arithmetic below.
    long double elements = 1;
    for (int64_t d : t->shape) elements *= static_cast<long double>(d);
    if (elements > 0x1p56L) fail(ACLNN_ERR_PARAM_INVALID, "the view has more than 2^56 elements");
    // A NULL stride means a contiguous view.
    if (stride) {
      t->strides = dims(stride, viewDimsNum, "stride");
    } else {
      t->strides.assign(viewDimsNum, 1);
      for (size_t k = viewDimsNum; k-- > 1;)
        t->strides[k - 1] = t->strides[k] * std::max<int64_t>(t->shape[k], 1);
    }
    if (offset < 0)
      fail(ACLNN_ERR_PARAM_INVALID, "offset " + std::to_string(offset) + " is negative");
    t->offset = offset;
    long double extent = static_cast<long double>(offset);
    for (size_t k = 0; k < t->shape.size(); ++k) {
      extent += static_cast<long double>(std::max<int64_t>(t->shape[k] - 1, 0)) *
                static_cast<long double>(t->strides[k]);
    }
    if (extent > 0x1p56L)
      fail(ACLNN_ERR_PARAM_INVALID, "the view reaches past element 2^56 of its storage");
    const int32_t type = dataType;
    if (!ops::isDataType(type) || ops::elementSize(static_cast<aclDataType>(type)) == 0) {
      fail(ACLNN_ERR_PARAM_INVALID, "unknown aclDataType " + std::to_string(type));
    }
    t->type = static_cast<aclDataType>(type);
    t->format = format;
    t->storageShape = dims(storageDims, storageDimsNum, "storageDims");
    long double storage = 1;
    for (int64_t d : t->storageShape) storage *= static_cast<long double>(d);
    if (!t->storageShape.empty() && static_cast<long double>(t->extentElements()) > storage) {
      fail(ACLNN_ERR_PARAM_INVALID,
           "the view " + ops::shapeText(t->shape) + " with strides " + ops::shapeText(t->strides) +
               " and offset " + std::to_string(offset) + " reaches element " +
               std::to_string(t->extentElements() - 1) + ", past the storage of " +
               std::to_string(static_cast<uint64_t>(std::min(storage, 0x1p63L))) + " elements");
    }
    t->data = tensorData;
    handle = reinterpret_cast<aclTensor*>(&objects().tensors.add(std::move(t)));
  });
}

aclnnStatus createScalar(void* value, int32_t dataType, aclScalar*& handle) {
  return runHostOp("aclCreateScalar", [&](HostThread&) {
    if (!value) fail(ACLNN_ERR_PARAM_NULLPTR, "value is NULL");
    auto s = std::make_unique<Scalar>();
    const int32_t type = dataType;
    if (!ops::isDataType(type) || !ops::supported(static_cast<aclDataType>(type))) {
      fail(ACLNN_ERR_PARAM_INVALID,
           "scalars of aclDataType " + std::to_string(type) + " are not supported");
    }
    s->type = static_cast<aclDataType>(type);
    s->value = ops::load(s->type, static_cast<const uint8_t*>(value));
    handle = reinterpret_cast<aclScalar*>(&objects().scalars.add(std::move(s)));
  });
}

// A served program's aclGetViewShape, aclGetViewStrides or aclGetStorageShape (`which` 0, 1, 2):
// the values come back and are handed over in memory the caller frees with delete[].
aclnnStatus servedDims(int32_t which, const aclTensor* tensor, int64_t** out, uint64_t* count) {
  AscendsimDims dims{};
  const aclnnStatus status =
      ascendsimTensorDims(tensor, which, (out ? 1 : 0) | (count ? 2 : 0), &dims);
  if (status != ACLNN_SUCCESS) return status;
  *out = new int64_t[dims.count ? dims.count : 1];
  std::copy(dims.values, dims.values + dims.count, *out);
  *count = dims.count;
  return status;
}

}  // namespace

extern "C" {

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  ASCENDSIM_FORWARD_OP(aclDestroyTensor, tensor);
  return runHostOp("aclDestroyTensor", [&](HostThread&) {
    // Destroying NULL is allowed and does nothing, as free(NULL) does.
    if (tensor && !objects().tensors.remove(tensor)) {
      fail(ACLNN_ERR_PARAM_INVALID,
           "tensor " + describePointer(tensor) + " is not a live aclTensor (destroyed twice?)");
    }
  });
}

aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  ASCENDSIM_FORWARD_OP(aclDestroyScalar, scalar);
  return runHostOp("aclDestroyScalar", [&](HostThread&) {
    if (scalar && !objects().scalars.remove(scalar)) {
      fail(ACLNN_ERR_PARAM_INVALID,
           "scalar " + describePointer(scalar) + " is not a live aclScalar (destroyed twice?)");
    }
  });
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  ASCENDSIM_FORWARD_OP(aclDestroyAclOpExecutor, executor);
  return runHostOp("aclDestroyAclOpExecutor", [&](HostThread&) {
    if (executor && !objects().executors.remove(executor)) {
      fail(ACLNN_ERR_PARAM_INVALID,
           "executor " + describePointer(executor) + " is not a live aclOpExecutor (already run?)");
    }
  });
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  ASCENDSIM_FORWARD_OP(aclSetAclOpExecutorRepeatable, executor);
  return runHostOp("aclSetAclOpExecutorRepeatable", [&](HostThread&) {
    if (!executor) fail(ACLNN_ERR_INNER_NULLPTR, "executor is NULL");
    ops::Executor* e = objects().executors.find(executor);
    if (!e)
      fail(ACLNN_ERR_PARAM_INVALID,
           "executor " + describePointer(executor) + " is not live (already run?)");
    e->repeatable = true;
  });
}

aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr) {
  ASCENDSIM_FORWARD_OP(aclSetInputTensorAddr, executor, index, tensor, addr);
  return setTensorAddr("aclSetInputTensorAddr", executor, index, tensor, addr, true);
}

aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  ASCENDSIM_FORWARD_OP(aclSetOutputTensorAddr, executor, index, tensor, addr);
  return setTensorAddr("aclSetOutputTensorAddr", executor, index, tensor, addr, false);
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  if (ascendsim::remote::clientActive()) return servedDims(0, tensor, viewDims, viewDimsNum);
  return runHostOp("aclGetViewShape", [&](HostThread&) {
    giveArray(tensorOf(tensor).shape, viewDims, viewDimsNum, "viewDims");
  });
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  if (ascendsim::remote::clientActive()) return servedDims(1, tensor, stridesValue, stridesNum);
  return runHostOp("aclGetViewStrides", [&](HostThread&) {
    giveArray(tensorOf(tensor).strides, stridesValue, stridesNum, "stridesValue");
  });
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  if (ascendsim::remote::clientActive()) return servedDims(2, tensor, storageDims, storageDimsNum);
  return runHostOp("aclGetStorageShape", [&](HostThread&) {
    giveArray(tensorOf(tensor).storageShape, storageDims, storageDimsNum, "storageDims");
  });
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  ASCENDSIM_FORWARD_OP(aclGetViewOffset, tensor, offset);
  return runHostOp("aclGetViewOffset", [&](HostThread&) {
    needOpPointer(offset, "offset");
    *offset = tensorOf(tensor).offset;
  });
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  ASCENDSIM_FORWARD_OP(aclGetFormat, tensor, format);
  return runHostOp("aclGetFormat", [&](HostThread&) {
    needOpPointer(format, "format");
    const int32_t raw = tensorOf(tensor).format;
    std::memcpy(format, &raw, sizeof raw);  // whatever the caller created it with, unchanged
  });
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  ASCENDSIM_FORWARD_OP(aclGetDataType, tensor, dataType);
  return runHostOp("aclGetDataType", [&](HostThread&) {
    needOpPointer(dataType, "dataType");
    *dataType = tensorOf(tensor).type;
  });
}

}  // extern "C"
