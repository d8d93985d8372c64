#include "tools/collectives/collective_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/hccl/data_types.h"
#include "runtime/ops/data_type.h"

namespace ascendsim::tools {
namespace {

using Kind = Collective::Kind;

// Doubles hold every whole number up to 2^53 exactly; larger products are not checked.
constexpr double kExactInDouble = 9007199254740992.0;
constexpr uint64_t kCompareChunk = 1ull << 20;

// splitmix64's finaliser: neighbouring words get unrelated bits.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Bytes [offset, offset + n) of `rank`'s pattern, into `out`.
void fillPattern(uint32_t rank, uint64_t offset, uint64_t n, uint8_t* out) {
  const uint64_t seed = (uint64_t{rank} + 1) << 48;
  uint64_t i = 0;
  while (i < n) {
    const uint64_t at = offset + i;
    const uint64_t word = mix(seed ^ (at >> 3));
    if ((at & 7) == 0 && n - i >= 8 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
      std::memcpy(out + i, &word, 8);  // the same bytes as below, a word at a time
      i += 8;
      continue;
    }
    for (uint64_t b = at & 7; b < 8 && i < n; ++b, ++i)
      out[i] = static_cast<uint8_t>(word >> (8 * b));
  }
}

double reduceValues(double a, double b, HcclReduceOp op) {
  switch (op) {
    case HCCL_REDUCE_SUM: return a + b;
    case HCCL_REDUCE_PROD: return a * b;
    case HCCL_REDUCE_MAX: return std::max(a, b);
    case HCCL_REDUCE_MIN: return std::min(a, b);
    default: return a;
  }
}

template <class T>
void storeAs(T v, uint8_t* out) {
  std::memcpy(out, &v, sizeof v);
}

}  // namespace

CollectiveData::CollectiveData(const Collective& collective, const CollectiveLayout& layout,
                               HcclDataType dataType, HcclReduceOp op, uint32_t ranks,
                               uint32_t root)
    : collective_(collective),
      layout_(layout),
      dataType_(dataType),
      op_(op),
      ranks_(ranks),
      root_(root),
      elementSize_(runtime::hccl::elementSize(dataType)) {
  if (!collective_.reduces()) return;
  // Every element's values repeat with its index modulo 3: three to try, and three results.
  for (uint64_t residue = 0; residue < 3; ++residue) {
    for (uint32_t r = 0; r < ranks_; ++r)
      checkable_ = checkable_ && exactIn(inputValue(r, residue));
    checkable_ = checkable_ && exactIn(reducedValue(residue));
    encode(reducedValue(residue), reduced_[residue]);
  }
}

double CollectiveData::inputValue(uint32_t rank, uint64_t element) const {
  return static_cast<double>(rank + 1 + element % 3);
}

double CollectiveData::reducedValue(uint64_t element) const {
  double acc = inputValue(0, element);
  for (uint32_t r = 1; r < ranks_; ++r) acc = reduceValues(acc, inputValue(r, element), op_);
  return acc;
}

bool CollectiveData::exactIn(double v) const {
  if (std::fabs(v) > kExactInDouble) return false;
  switch (dataType_) {
    case HCCL_DATA_TYPE_INT8: return v >= -128 && v <= 127;
    case HCCL_DATA_TYPE_INT16: return v >= -32768 && v <= 32767;
    case HCCL_DATA_TYPE_INT32: return v >= -2147483648.0 && v <= 2147483647.0;
    case HCCL_DATA_TYPE_INT64: return true;
    case HCCL_DATA_TYPE_UINT64: return v >= 0;
    case HCCL_DATA_TYPE_FP32: return static_cast<double>(static_cast<float>(v)) == v;
    case HCCL_DATA_TYPE_FP64: return true;
    case HCCL_DATA_TYPE_FP16:
      return static_cast<double>(
                 runtime::ops::halfToFloat(runtime::ops::floatToHalf(static_cast<float>(v)))) == v;
    case HCCL_DATA_TYPE_BFP16:
      return static_cast<double>(
                 runtime::ops::bf16ToFloat(runtime::ops::floatToBf16(static_cast<float>(v)))) == v;
    default: return false;  // not a type reductions take
  }
}

void CollectiveData::encode(double v, uint8_t* out) const {
  switch (dataType_) {
    case HCCL_DATA_TYPE_INT8: storeAs(static_cast<int8_t>(v), out); break;
    case HCCL_DATA_TYPE_INT16: storeAs(static_cast<int16_t>(v), out); break;
    case HCCL_DATA_TYPE_INT32: storeAs(static_cast<int32_t>(v), out); break;
    case HCCL_DATA_TYPE_INT64: storeAs(static_cast<int64_t>(v), out); break;
    case HCCL_DATA_TYPE_UINT64: storeAs(static_cast<uint64_t>(v), out); break;
    case HCCL_DATA_TYPE_FP32: storeAs(static_cast<float>(v), out); break;
    case HCCL_DATA_TYPE_FP64: storeAs(v, out); break;
    case HCCL_DATA_TYPE_FP16: storeAs(runtime::ops::floatToHalf(static_cast<float>(v)), out); break;
    case HCCL_DATA_TYPE_BFP16:
      storeAs(runtime::ops::floatToBf16(static_cast<float>(v)), out);
      break;
    default: break;
  }
}

std::vector<uint8_t> CollectiveData::input(uint32_t rank) const {
  std::vector<uint8_t> bytes(layout_.sendBytes);
  if (!collective_.reduces()) {
    fillPattern(rank, 0, bytes.size(), bytes.data());
    return bytes;
  }
  uint8_t byResidue[3][8];
  for (uint64_t k = 0; k < 3; ++k) encode(inputValue(rank, k), byResidue[k]);
  for (uint64_t i = 0; i < bytes.size() / elementSize_; ++i)
    std::memcpy(&bytes[i * elementSize_], byResidue[i % 3], elementSize_);
  return bytes;
}

bool CollectiveData::checksRank(uint32_t rank) const {
  return collective_.kind() != Kind::Reduce || rank == root_;
}

void CollectiveData::expected(uint32_t rank, uint64_t offset, uint64_t n, uint8_t* out) const {
  const uint64_t block = layout_.blockBytes;
  if (collective_.reduces()) {
    // Element k of rank r's output reduces element (r x count + k) of every send buffer for
    // reduce_scatter, element k for the others.
    const uint64_t first = collective_.kind() == Kind::ReduceScatter ? rank * layout_.count : 0;
    for (uint64_t e = offset / elementSize_; e < (offset + n) / elementSize_; ++e)
      std::memcpy(out + (e * elementSize_ - offset), reduced_[(first + e) % 3], elementSize_);
    return;
  }
  for (uint64_t done = 0; done < n;) {
    const uint64_t at = offset + done, b = at / block, within = at % block;
    const uint64_t len = std::min(n - done, block - within);
    switch (collective_.kind()) {
      case Kind::AllGather: fillPattern(static_cast<uint32_t>(b), within, len, out + done); break;
      case Kind::AlltoAll:  // block b came from rank b, which sent it from its block `rank`
        fillPattern(static_cast<uint32_t>(b), rank * block + within, len, out + done);
        break;
      case Kind::Scatter: fillPattern(root_, rank * block + at, len, out + done); break;
      default: fillPattern(root_, at, len, out + done); break;  // broadcast
    }
    done += len;
  }
}

std::optional<Mismatch> CollectiveData::compare(uint32_t rank,
                                                const std::vector<uint8_t>& actual) const {
  Mismatch m;
  std::vector<uint8_t> want;
  // Whole elements per chunk (every element size divides the chunk).
  for (uint64_t offset = 0; offset < actual.size(); offset += kCompareChunk) {
    const uint64_t n = std::min<uint64_t>(kCompareChunk, actual.size() - offset);
    want.resize(n);
    expected(rank, offset, n, want.data());
    for (uint64_t i = 0; i < n; ++i) {
      if (want[i] == actual[offset + i]) continue;
      if (m.differingBytes++ == 0) {
        m.firstOffset = offset + i;
        m.expected = want[i];
        m.actual = actual[offset + i];
      }
    }
  }
  if (m.differingBytes == 0) return std::nullopt;
  return m;
}

}  // namespace ascendsim::tools
