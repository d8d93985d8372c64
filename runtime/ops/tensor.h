#pragma once
// The objects behind the operator API's handles: a tensor (a strided view over device memory,
// as aclCreateTensor describes it) and a scalar (a host value).

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "runtime/ops/data_type.h"

namespace ascendsim::runtime::ops {

constexpr size_t kMaxDims = 8;  // CANN's operators take at most 8 dimensions

struct Tensor {
  std::vector<int64_t> shape;    // view dimensions
  std::vector<int64_t> strides;  // in elements, one per view dimension
  int64_t offset = 0;            // in elements, from `data`
  aclDataType type = ACL_FLOAT;
  int32_t format = ACL_FORMAT_ND;  // as the caller passed it: any value may arrive from C
  std::vector<int64_t> storageShape;
  void* data = nullptr;  // device address of the storage

  uint64_t elements() const;
  // Elements of storage from `data` that the view can touch: offset + the furthest element + 1
  // (0 for an empty view).
  uint64_t extentElements() const;
  uint64_t extentBytes() const { return extentElements() * elementSize(type); }
  bool contiguous() const;
  std::string describe() const;  // "FLOAT[4,2]"
};

struct Scalar {
  aclDataType type = ACL_FLOAT;
  Value value;
};

std::string shapeText(const std::vector<int64_t>& shape);

}  // namespace ascendsim::runtime::ops
