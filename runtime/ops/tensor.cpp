#include "runtime/ops/tensor.h"

namespace ascendsim::runtime::ops {

uint64_t Tensor::elements() const {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

uint64_t Tensor::extentElements() const {
  if (elements() == 0) return 0;
  uint64_t last = static_cast<uint64_t>(offset);
  for (size_t k = 0; k < shape.size(); ++k)
    last += static_cast<uint64_t>(shape[k] - 1) * static_cast<uint64_t>(strides[k]);
  return last + 1;
}

bool Tensor::contiguous() const {
  int64_t expected = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] != 1 && strides[k] != expected) return false;
    expected *= shape[k];
  }
  return true;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? "," : "") + std::to_string(shape[k]);
  return s + "]";
}

std::string Tensor::describe() const {
  return std::string(typeName(type)) + shapeText(shape);
}

}  // namespace ascendsim::runtime::ops
