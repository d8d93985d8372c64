/*
 * kernel_operator_list_tensor_intf.h for Ascend C kernels compiled for the host: ListTensorDesc
 * and TensorDesc, which read a list of tensors (a dynamic input) laid out in global memory as the
 * Ascend C API reference describes it, in 64-bit words:
 *   word 0: ptr_offset, the byte offset from the start to the data pointers;
 *   then, for each tensor, a word with its dimension count in the low 32 bits and its index in the
 *   high 32 bits, followed by its shape (one word per dimension);
 *   at ptr_offset: the tensors' data pointers, one word each, in index order.
 * A layout that does not hold together (a shape running past ptr_offset, an index past the list,
 * a length or pointer count that does not match the one given) stops the kernel (a trap).
 */
#ifndef ASCENDSIM_KERNEL_OPERATOR_LIST_TENSOR_INTF_H_
#define ASCENDSIM_KERNEL_OPERATOR_LIST_TENSOR_INTF_H_

#include "kernel_operator.h"

namespace AscendC {

class ListTensorDesc;

template <class T>
class TensorDesc {
 public:
  TensorDesc() = default;
  ~TensorDesc() = default;
  // Where GetDesc writes the tensor's shape (one word per dimension).
  void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
  uint64_t GetDim() { return dim_; }
  uint64_t GetIndex() { return index_; }
  uint64_t GetShape(uint32_t offset) { return shape_ && offset < dim_ ? shape_[offset] : 0; }
  __gm__ T* GetDataPtr() { return data_; }
  // The data as a GlobalTensor of the shape's element count.
  GlobalTensor<T> GetDataObj() {
    uint64_t count = 1;
    for (uint64_t d = 0; d < dim_; ++d) count *= GetShape(static_cast<uint32_t>(d));
    GlobalTensor<T> g;
    g.SetGlobalBuffer(data_, count);
    return g;
  }

 private:
  friend class ListTensorDesc;
  uint64_t* shape_ = nullptr;
  uint64_t dim_ = 0;
  uint64_t index_ = 0;
  __gm__ T* data_ = nullptr;
};

class ListTensorDesc {
 public:
  ListTensorDesc() = default;
  ~ListTensorDesc() = default;
  ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    Init(data, length, shapeSize);
  }
  // Reads the layout at `data`; `length` (its bytes) and `shapeSize` (its pointer count) are only
  // checked, when given.
  void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    words_ = static_cast<__gm__ uint64_t*>(data);
    if (!words_) trap();
    const uint64_t ptrOffset = words_[0];
    if (ptrOffset % 8 != 0 || ptrOffset < 8) trap();
    pointersAt_ = ptrOffset / 8;
    count_ = 0;
    for (uint64_t w = 1; w < pointersAt_; w += 1 + (words_[w] & 0xffffffffu)) ++count_;
    if (walkTo(count_) != pointersAt_) trap();  // the last shape ran past ptr_offset
    if (shapeSize != 0xffffffffu && shapeSize != count_) trap();
    if (length != 0xffffffffu && length != ptrOffset + 8 * count_) trap();
  }
  // The description of the tensor at `index`: its dimensions (into the desc's shape address),
  // index and data pointer.
  template <class T>
  void GetDesc(TensorDesc<T>& desc, uint32_t index) {
    if (!words_ || index >= count_ || !desc.shape_) trap();
    const uint64_t at = walkTo(index);
    desc.dim_ = words_[at] & 0xffffffffu;
    desc.index_ = words_[at] >> 32;
    for (uint64_t d = 0; d < desc.dim_; ++d) desc.shape_[d] = words_[at + 1 + d];
    desc.data_ = GetDataPtr<T>(index);
  }
  template <class T>
  __gm__ T* GetDataPtr(uint32_t index) {
    if (!words_ || index >= count_) trap();
    return reinterpret_cast<__gm__ T*>(static_cast<uintptr_t>(words_[pointersAt_ + index]));
  }
  // How many data pointers the list holds.
  uint32_t GetSize() { return count_; }

 private:
  // The word where tensor `index`'s description starts (pointersAt_ for index == count_ when the
  // descriptions fill the space before the pointers exactly).
  uint64_t walkTo(uint32_t index) const {
    uint64_t w = 1;
    for (uint32_t i = 0; i < index; ++i) w += 1 + (words_[w] & 0xffffffffu);
    return w;
  }
  __gm__ uint64_t* words_ = nullptr;
  uint64_t pointersAt_ = 0;
  uint32_t count_ = 0;
};

}  // namespace AscendC

#endif
