#include "runtime/ops/elementwise.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "aclnn/aclnn_base.h"
#include "runtime/core/errors.h"

namespace ascendsim::runtime::ops {
namespace {

[[noreturn]] void invalid(const std::string& why) {
  fail(ACLNN_ERR_PARAM_INVALID, why);
}

void needTensor(const void* p, const char* what) {
  if (!p)
    fail(ACLNN_ERR_PARAM_NULLPTR,
         std::string("Expected a value of type [aclTensor] for argument [") + what +
             "] but instead found nullptr.");
}

void checkTensor(const Tensor& t, const char* what) {
  if (!supported(t.type))
    invalid(std::string(what) + " has data type " + typeName(t.type) +
            ", which is not supported (FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, "
            "INT64, UINT8, BOOL)");
  if (t.shape.size() > kMaxDims)
    invalid(std::string(what) + " has " + std::to_string(t.shape.size()) +
            " dimensions; at most 8 are supported");
  if (t.format != ACL_FORMAT_ND && t.format != ACL_FORMAT_NCHW && t.format != ACL_FORMAT_NHWC &&
      t.format != ACL_FORMAT_NCDHW && t.format != ACL_FORMAT_NDHWC && t.format != ACL_FORMAT_HWCN) {
    invalid(std::string(what) + " has a private format (" + std::to_string(t.format) +
            "); elementwise operators take ND formats");
  }
}

// NumPy broadcasting: align right; each pair of sizes is equal or one of them is 1.
bool broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
               std::vector<int64_t>& out) {
  const size_t n = std::max(a.size(), b.size());
  out.assign(n, 1);
  for (size_t k = 0; k < n; ++k) {
    const int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    const int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    out[k] = x == 1 ? y : x;
  }
  return true;
}

// Strides of `t` seen through the broadcast shape: 0 where it repeats.
std::vector<int64_t> broadcastStrides(const Tensor& t, const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 0);
  const size_t lead = shape.size() - t.shape.size();
  for (size_t k = 0; k < t.shape.size(); ++k) s[lead + k] = t.shape[k] == 1 ? 0 : t.strides[k];
  return s;
}

}  // namespace

ElementwisePlan planBinary(Elementwise op, const std::string& name, const Tensor* self,
                           const Tensor* other, const Scalar* alpha, const Tensor* out,
                           bool inplace) {
  needTensor(self, inplace ? "selfRef" : "self");
  needTensor(other, "other");
  const bool scaled = op == Elementwise::Add || op == Elementwise::Sub;
  if (scaled && !alpha) {
    fail(ACLNN_ERR_PARAM_NULLPTR,
         "Expected a value of type [aclScalar] for argument [alpha] but instead found nullptr.");
  }
  needTensor(out, "out");
  const char* selfName = inplace ? "selfRef" : "self";
  checkTensor(*self, selfName);
  checkTensor(*other, "other");
  checkTensor(*out, inplace ? "selfRef" : "out");

  ElementwisePlan p;
  p.op = op;
  p.name = name;
  p.inplace = inplace;
  p.self = *self;
  p.other = *other;
  p.out = *out;
  const auto promoted = promote(self->type, other->type);
  if (!promoted)
    invalid(std::string("the types of ") + selfName + " (" + typeName(self->type) +
            ") and other (" + typeName(other->type) + ") cannot be promoted");
  p.compute = *promoted;
  // Division is true division: integer operands divide in float32.
  if (op == Elementwise::Div && !isFloating(p.compute)) p.compute = ACL_FLOAT;
  if (op == Elementwise::Sub && p.compute == ACL_BOOL)
    invalid("subtraction of two BOOL tensors is not supported");
  if (!canCast(p.compute, out->type)) {
    invalid(std::string("the promoted type ") + typeName(p.compute) +
            " cannot be cast to the type of " + (inplace ? "selfRef" : "out") + " (" +
            typeName(out->type) + ")");
  }
  if (alpha) {
    if (!supported(alpha->type))
      invalid(std::string("alpha has data type ") + typeName(alpha->type) +
              ", which is not supported");
    if (isFloating(alpha->type) && !isFloating(p.compute)) {
      invalid(std::string("alpha is floating point (") + typeName(alpha->type) +
              ") but the promoted type is " + typeName(p.compute));
    }
    if (p.compute == ACL_BOOL && alpha->type != ACL_BOOL)
      invalid("a BOOL result takes only a BOOL alpha");
    p.alpha = alpha->value;
  }
  if (!broadcast(self->shape, other->shape, p.shape)) {
    invalid(std::string("the shapes of ") + selfName + " " + shapeText(self->shape) +
            " and other " + shapeText(other->shape) + " cannot broadcast");
  }
  if (p.shape != out->shape) {
    invalid(std::string("the shape of ") + (inplace ? "selfRef " : "out ") + shapeText(out->shape) +
            " is not the broadcast shape " + shapeText(p.shape) + " of " + selfName + " and other");
  }
  return p;
}

ElementwisePlan planCopy(const std::string& name, const Tensor* selfRef, const Tensor* src) {
  needTensor(selfRef, "selfRef");
  needTensor(src, "src");
  checkTensor(*selfRef, "selfRef");
  checkTensor(*src, "src");
  ElementwisePlan p;
  p.op = Elementwise::Copy;
  p.name = name;
  p.hasSelf = false;
  p.other = *src;
  p.out = *selfRef;
  p.compute = selfRef->type;  // a copy casts to the destination's type
  std::vector<int64_t> shape;
  if (!broadcast(selfRef->shape, src->shape, shape) || shape != selfRef->shape) {
    invalid("src " + shapeText(src->shape) + " cannot broadcast to selfRef " +
            shapeText(selfRef->shape));
  }
  p.shape = selfRef->shape;
  return p;
}

namespace {

// One element of a binary operator in type T: floating types round as T rounds; unsigned integers
// wrap modulo 2^bits, as the hardware's integers do (callers pass signed values as unsigned).
template <class T>
T arithmetic(Elementwise op, T x, T y, T alpha) {
  switch (op) {
    case Elementwise::Add: return x + alpha * y;
    case Elementwise::Sub: return x - alpha * y;
    case Elementwise::Mul: return x * y;
    case Elementwise::Div:
      if constexpr (std::is_integral_v<T>) {
        return T{};  // never: division computes in float32
      } else {
        return x / y;
      }
    case Elementwise::Copy: break;
  }
  return y;
}

// The common case, element by element in one type over whole contiguous tensors of one shape:
// typed loops, the same arithmetic as the general path (float32 lanes; integers wrap). Elements
// move by memcpy, which compiles to plain loads and stores without breaking aliasing rules.
template <class T, class Op>
void sameTypeLoop(const uint8_t* a, const uint8_t* b, uint8_t* out, uint64_t n, Op op) {
  for (uint64_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, a + i * sizeof(T), sizeof(T));
    std::memcpy(&y, b + i * sizeof(T), sizeof(T));
    const T r = op(x, y);
    std::memcpy(out + i * sizeof(T), &r, sizeof(T));
  }
}

template <class T>
void sameType(const ElementwisePlan& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
              uint64_t n) {
  const Elementwise op = p.op;
  if (op == Elementwise::Copy) {
    std::memcpy(out, b, n * sizeof(T));
  } else if constexpr (std::is_floating_point_v<T>) {
    const T alpha = static_cast<T>(p.alpha.f);
    sameTypeLoop<T>(a, b, out, n, [op, alpha](T x, T y) { return arithmetic<T>(op, x, y, alpha); });
  } else {
    using U = std::make_unsigned_t<T>;
    const U alpha = static_cast<U>(p.alpha.i);
    sameTypeLoop<T>(a, b, out, n, [op, alpha](T x, T y) {
      return static_cast<T>(arithmetic<U>(op, static_cast<U>(x), static_cast<U>(y), alpha));
    });
  }
}

bool wholeAndContiguous(const Tensor& t, const std::vector<int64_t>& shape) {
  return t.shape == shape && t.contiguous();
}

// Runs the plan with a typed loop if it is the common case; returns whether it did.
bool fastPath(const ElementwisePlan& p, const uint8_t* selfImage, const uint8_t* otherImage,
              uint8_t* outImage) {
  const aclDataType t = p.out.type;
  if (p.other.type != t || p.compute != t || (p.hasSelf && p.self.type != t)) return false;
  if (!wholeAndContiguous(p.other, p.shape) || !wholeAndContiguous(p.out, p.shape)) return false;
  if (p.hasSelf && !wholeAndContiguous(p.self, p.shape)) return false;
  const uint64_t n = p.out.elements();
  const size_t z = elementSize(t);
  // Images hold each tensor's storage from its data pointer; elements start at its offset.
  const uint8_t* a = p.hasSelf ? selfImage + static_cast<size_t>(p.self.offset) * z : nullptr;
  const uint8_t* b = otherImage + static_cast<size_t>(p.other.offset) * z;
  uint8_t* o = outImage + static_cast<size_t>(p.out.offset) * z;
  switch (t) {
    case ACL_FLOAT: sameType<float>(p, a, b, o, n); return true;
    case ACL_DOUBLE: sameType<double>(p, a, b, o, n); return true;
    case ACL_INT32: sameType<int32_t>(p, a, b, o, n); return true;
    case ACL_INT64: sameType<int64_t>(p, a, b, o, n); return true;
    default: return false;
  }
}

}  // namespace

void execute(const ElementwisePlan& p, const uint8_t* selfImage, const uint8_t* otherImage,
             uint8_t* outImage) {
  if (!p.saturate && fastPath(p, selfImage, otherImage, outImage)) return;
  const bool saturating = p.saturate && isFloating(p.out.type);
  const size_t n = p.shape.size();
  const std::vector<int64_t> zero(n, 0);
  const std::vector<int64_t> sa = p.hasSelf ? broadcastStrides(p.self, p.shape) : zero;
  const std::vector<int64_t> sb = broadcastStrides(p.other, p.shape);
  const std::vector<int64_t> so = broadcastStrides(p.out, p.shape);
  const size_t za = elementSize(p.self.type), zb = elementSize(p.other.type),
               zo = elementSize(p.out.type);
  const bool floating = isFloating(p.compute);
  const bool single = p.compute == ACL_FLOAT || p.compute == ACL_FLOAT16 || p.compute == ACL_BF16;
  uint64_t total = 1;
  for (int64_t d : p.shape) total *= static_cast<uint64_t>(d);
  std::vector<int64_t> index(n, 0);
  int64_t ia = p.self.offset, ib = p.other.offset, io = p.out.offset;
  for (uint64_t e = 0; e < total; ++e) {
    const Value b = load(p.other.type, otherImage + static_cast<size_t>(ib) * zb);
    uint8_t* dst = outImage + static_cast<size_t>(io) * zo;
    if (p.op == Elementwise::Copy) {
      if (isFloating(p.other.type))
        store(p.out.type, dst, b.f);
      else
        storeInt(p.out.type, dst, b.i);
    } else {
      const Value a = load(p.self.type, selfImage + static_cast<size_t>(ia) * za);
      if (floating && single) {
        // The vector units work in float32 (float16 and bfloat16 results round once more at the
        // store).
        const float x = static_cast<float>(a.f), y = static_cast<float>(b.f);
        store(p.out.type, dst, arithmetic<float>(p.op, x, y, static_cast<float>(p.alpha.f)));
      } else if (floating) {
        store(p.out.type, dst, arithmetic<double>(p.op, a.f, b.f, p.alpha.f));
      } else if (p.compute == ACL_BOOL) {
        storeInt(p.out.type, dst,
                 p.op == Elementwise::Mul ? (a.i && b.i) : (a.i || (p.alpha.i && b.i)));
      } else {
        // Integers wrap like the hardware's: compute modulo 2^64, store the low bits.
        const uint64_t r =
            arithmetic<uint64_t>(p.op, static_cast<uint64_t>(a.i), static_cast<uint64_t>(b.i),
                                 static_cast<uint64_t>(p.alpha.i));
        storeInt(p.out.type, dst, static_cast<int64_t>(r));
      }
    }
    if (saturating) saturate(p.out.type, dst);
    // Advance the multi-index, last dimension fastest.
    for (size_t k = n; k-- > 0;) {
      ia += sa[k];
      ib += sb[k];
      io += so[k];
      if (++index[k] < p.shape[k]) break;
      ia -= sa[k] * p.shape[k];
      ib -= sb[k] * p.shape[k];
      io -= so[k] * p.shape[k];
      index[k] = 0;
    }
  }
}

models::KernelWork kernelWork(const ElementwisePlan& p) {
  models::KernelWork w;
  w.name = p.name;
  const uint64_t n = p.out.elements();
  w.bytesRead = p.other.elements() * elementSize(p.other.type);
  if (p.hasSelf) w.bytesRead += p.self.elements() * elementSize(p.self.type);
  w.bytesWritten = n * elementSize(p.out.type);
  // One vector operation per element, one more for alpha's multiply and for each cast in or out
  // of the computing type. float16 and bfloat16 go through float32 lanes, except float16 Add/Mul,
  // which the vector unit does natively.
  uint64_t perElement = p.op == Elementwise::Copy ? (p.other.type != p.out.type ? 1 : 0) : 1;
  const bool scaled = p.op == Elementwise::Add || p.op == Elementwise::Sub;
  if (scaled && !(isFloating(p.compute) ? p.alpha.f == 1.0 : p.alpha.i == 1)) ++perElement;
  if (p.op != Elementwise::Copy) {
    if (p.self.type != p.compute) ++perElement;
    if (p.other.type != p.compute) ++perElement;
    if (p.out.type != p.compute) ++perElement;
  }
  w.ops = n * perElement;
  w.opBytes = p.compute == ACL_BF16
                  ? 4
                  : static_cast<uint32_t>(std::max<size_t>(1, elementSize(p.compute)));
  return w;
}

}  // namespace ascendsim::runtime::ops
