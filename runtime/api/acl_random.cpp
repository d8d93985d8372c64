// aclrtRandomNumAsync: a built-in task in which the device's data stream accelerator writes
// random numbers to device memory. Arguments are checked in CANN's order and with its codes
// (hicann/runtime src/acl/aclrt_impl/kernel.cpp aclrtRandomNumAsyncImpl: the data types the ACL
// layer passes on; src/runtime/api/api_c_kernel.cc rtsLaunchRandomNumTask: the SoC feature,
// which only the 910B/910_93 configuration lists (src/runtime/config/910_B_93/dev_info_reg.cc);
// src/runtime/api/impl/api_error.cc: reserve; src/runtime/core/src/task/task_info/
// random_num_task.cc CheckRandomNumTaskInfo: which distribution takes which types, the counter
// and result addresses, each parameter's isAddr and size).
//
// The generator is Philox4x32-10 (the counter-based generator the random-number task of CANN
// names for every distribution): the key is the 64-bit seed, the counter the 128 bits at
// randomCounterAddr, which the task advances by the blocks it used, so that a later task on the
// same counter continues the sequence. The same seed and counter give the same numbers, on every
// run. Values are drawn from 32-bit words: uniform floats as min + u (max - min) with u of 24
// bits in [0, 1), integers as min + floor(w r / 2^32) (64-bit types: of a 64-bit word and 2^64)
// in [min, max); normals by Box-Muller from two words (mean + stddev z); truncated normals redraw
// z until |z| <= 2 (TensorFlow's convention); a dropout bit mask keeps element i (bit i % 8 of
// byte i / 8 set) when its word's u >= the ratio. The task is timed as the write of its results
// into device memory by the DMA engine (a MEMSET_ASYNC of those bytes in the trace).

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/api/api_call.h"
#include "runtime/api/model_served.h"
#include "runtime/core/copy_planner.h"
#include "runtime/core/data_mode.h"
#include "runtime/core/service_port.h"
#include "runtime/ops/data_type.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::models::MemoryPlace;

namespace {

constexpr uint8_t kValue = 0, kAddress = 1;
constexpr uint64_t kCounterBytes = 16;

bool aclPassesOn(int32_t type) {  // kernel.cpp kMapDataType
  switch (type) {
    case ACL_INT32:
    case ACL_INT64:
    case ACL_UINT32:
    case ACL_UINT64:
    case ACL_BF16:
    case ACL_FLOAT16:
    case ACL_FLOAT: return true;
    default: return false;
  }
}

uint32_t sizeOf(int32_t type) {
  switch (type) {
    case ACL_INT64:
    case ACL_UINT64: return 8;
    case ACL_BF16:
    case ACL_FLOAT16: return 2;
    default: return 4;
  }
}

bool isFloat(int32_t type) {
  return type == ACL_FLOAT || type == ACL_FLOAT16 || type == ACL_BF16;
}

const char* funcName(int32_t f) {
  switch (f) {
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK: return "dropout bitmask";
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS: return "uniform";
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS: return "normal";
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS: return "truncated normal";
    default: return "unknown";
  }
}

// A parameter: isAddr 0 or 1, size 1..max (an address takes 8 bytes).
void checkParam(const aclrtRandomParaInfo& p, const char* name, uint32_t dataSize) {
  if (p.isAddr != kValue && p.isAddr != kAddress) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         std::string(name) + ".isAddr is " + std::to_string(p.isAddr) + ", not 0 or 1");
  }
  const uint32_t most = p.isAddr == kAddress ? 8 : dataSize;
  if (p.size == 0 || p.size > most) {
    fail(ACL_ERROR_RT_PARAM_INVALID, std::string(name) + ".size is " + std::to_string(p.size) +
                                         ", not in [1, " + std::to_string(most) + "]");
  }
}

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
void philox(uint32_t ctr[4], uint32_t key0, uint32_t key1) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * ctr[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * ctr[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    const uint32_t next[4] = {hi1 ^ ctr[1] ^ key0, lo1, hi0 ^ ctr[3] ^ key1, lo0};
    std::memcpy(ctr, next, sizeof next);
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
}

// 32-bit words of the stream of a seed and a starting counter; counts the blocks it used.
class Words {
 public:
  Words(uint64_t seed, const uint32_t counter[4])
      : key0_(static_cast<uint32_t>(seed)), key1_(static_cast<uint32_t>(seed >> 32)) {
    std::memcpy(counter_, counter, sizeof counter_);
  }
  uint32_t next() {
    if (used_ == 4) {
      std::memcpy(block_, counter_, sizeof block_);
      philox(block_, key0_, key1_);
      for (int i = 0; i < 4 && ++counter_[i] == 0; ++i) {
      }
      ++blocks_;
      used_ = 0;
    }
    return block_[used_++];
  }
  uint64_t next64() {
    const uint64_t lo = next();
    return lo | (uint64_t{next()} << 32);
  }
  // In [0, 1) with 24 bits, as float32 holds them.
  double unit24() { return static_cast<double>(next() >> 8) * 0x1p-24; }
  // In (0, 1), never 0 (for the logarithm).
  double open() { return (static_cast<double>(next()) + 0.5) * 0x1p-32; }
  const uint32_t* counter() const { return counter_; }

 private:
  uint32_t key0_, key1_;
  uint32_t counter_[4];
  uint32_t block_[4] = {};
  int used_ = 4;
  uint64_t blocks_ = 0;
};

// The high 64 bits of a 128-bit product.
uint64_t mulHigh(uint64_t a, uint64_t b) {
  const uint64_t aLo = a & 0xFFFFFFFFu, aHi = a >> 32, bLo = b & 0xFFFFFFFFu, bHi = b >> 32;
  const uint64_t lolo = aLo * bLo, lohi = aLo * bHi, hilo = aHi * bLo, hihi = aHi * bHi;
  const uint64_t mid = (lolo >> 32) + (lohi & 0xFFFFFFFFu) + (hilo & 0xFFFFFFFFu);
  return hihi + (lohi >> 32) + (hilo >> 32) + (mid >> 32);
}

double normal(Words& w) {
  const double u1 = w.open(), u2 = w.open();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// A parameter's raw 8 bytes (little-endian, zero-extended from `size`).
uint64_t rawOf(const aclrtRandomParaInfo& p) {
  uint64_t v = 0;
  std::memcpy(&v, p.valueOrAddr, p.size);
  return v;
}

double floatOf(int32_t type, uint64_t raw) {
  switch (type) {
    case ACL_FLOAT16: return ops::halfToFloat(static_cast<uint16_t>(raw));
    case ACL_BF16: return ops::bf16ToFloat(static_cast<uint16_t>(raw));
    default: {
      float f = 0;
      const uint32_t bits = static_cast<uint32_t>(raw);
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
  }
}

int64_t signedOf(int32_t type, uint64_t raw) {
  return type == ACL_INT32 ? static_cast<int64_t>(static_cast<int32_t>(raw))
                           : static_cast<int64_t>(raw);
}

// The bits of `v` in a floating type, rounded to nearest even.
uint64_t floatBits(int32_t type, double v) {
  switch (type) {
    case ACL_FLOAT16: return ops::floatToHalf(static_cast<float>(v));
    case ACL_BF16: return ops::floatToBf16(static_cast<float>(v));
    default: {
      const float f = static_cast<float>(v);
      uint32_t bits = 0;
      std::memcpy(&bits, &f, sizeof bits);
      return bits;
    }
  }
}

// The next value below the one `bits` encodes (the same sign-magnitude layout in all three).
uint64_t nextDown(int32_t type, uint64_t bits) {
  const uint64_t sign = type == ACL_FLOAT ? 0x80000000u : 0x8000u;
  if ((bits & ~sign) == 0) return sign | 1;  // below zero: the smallest negative
  return (bits & sign) ? bits + 1 : bits - 1;
}

struct Draw {
  int32_t func = 0, type = 0;
  uint64_t num = 0;
  // Parameters: raw values, or device places to read when the task runs.
  aclrtRandomParaInfo first{}, second{};
  MemoryPlace firstAt{}, secondAt{};
  uint64_t seed = 0;
  bool seedAtDevice = false;
  MemoryPlace seedAt{};
};

uint64_t paramValue(MemoryManager& mm, const aclrtRandomParaInfo& p, const MemoryPlace& at) {
  if (p.isAddr == kValue) return rawOf(p);
  const std::vector<uint8_t> bytes = mm.readDevice(at, 8, false);
  uint64_t v = 0;
  std::memcpy(&v, bytes.data(), 8);
  return v;
}

// The task's bytes, from the counter's words; `counter` is advanced past the blocks used.
std::vector<uint8_t> generate(const Draw& d, uint64_t first, uint64_t second, uint64_t seed,
                              uint32_t counter[4]) {
  Words w(seed, counter);
  std::vector<uint8_t> out;
  const uint32_t size = sizeOf(d.type);
  auto put = [&out, size](uint64_t bits) {
    for (uint32_t b = 0; b < size; ++b) out.push_back(static_cast<uint8_t>(bits >> (8 * b)));
  };
  if (d.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK) {
    const double ratio = floatOf(d.type, first);
    out.assign((d.num + 7) / 8, 0);
    for (uint64_t i = 0; i < d.num; ++i) {
      if (static_cast<double>(w.next()) * 0x1p-32 >= ratio) {
        out[i / 8] = static_cast<uint8_t>(out[i / 8] | (1u << (i % 8)));
      }
    }
  } else if (d.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS && isFloat(d.type)) {
    const double lo = floatOf(d.type, first), hi = floatOf(d.type, second);
    const uint64_t hiBits = floatBits(d.type, hi);
    for (uint64_t i = 0; i < d.num; ++i) {
      uint64_t bits = floatBits(d.type, lo + w.unit24() * (hi - lo));
      // Rounding may reach max: the interval is [min, max).
      if (hi > lo && floatOf(d.type, bits) >= hi) bits = nextDown(d.type, hiBits);
      put(bits);
    }
  } else if (d.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
    const bool sign = d.type == ACL_INT32 || d.type == ACL_INT64;
    const uint64_t lo = sign ? static_cast<uint64_t>(signedOf(d.type, first)) : first;
    const uint64_t hi = sign ? static_cast<uint64_t>(signedOf(d.type, second)) : second;
    const uint64_t range = hi - lo;  // (checked: max >= min)
    for (uint64_t i = 0; i < d.num; ++i) {
      uint64_t offset = 0;
      if (size == 4) {
        offset = (uint64_t{w.next()} * range) >> 32;
      } else {
        offset = mulHigh(w.next64(), range);
      }
      put(lo + offset);
    }
  } else {
    const double mean = floatOf(d.type, first), stddev = floatOf(d.type, second);
    const bool truncated = d.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
    for (uint64_t i = 0; i < d.num; ++i) {
      double z = normal(w);
      while (truncated && std::fabs(z) > 2.0) z = normal(w);
      put(floatBits(d.type, mean + stddev * z));
    }
  }
  std::memcpy(counter, w.counter(), 4 * sizeof(uint32_t));
  return out;
}

// The value a parameter holds now (address parameters: what device memory holds at the call),
// for the checks that need it.
uint64_t valueNow(ServicePort& port, const aclrtRandomParaInfo& p, const MemoryPlace& at) {
  return paramValue(port.memory(), p, at);
}

MemoryPlace deviceRange(ServicePort& port, const void* p, uint64_t bytes, const Stream& s,
                        const std::string& role) {
  const MemoryPlace place = port.place(p, bytes, role.c_str());
  if (!isDevice(place) || place.device != s.device->id) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         role + " must be memory of the stream's device " + std::to_string(s.device->id));
  }
  return place;
}

MemoryPlace addressOf(ServicePort& port, const aclrtRandomParaInfo& p, const Stream& s,
                      const std::string& role) {
  if (p.isAddr != kAddress) return MemoryPlace{};
  void* at = nullptr;
  std::memcpy(&at, p.valueOrAddr, sizeof at);
  if (!at) fail(ACL_ERROR_RT_PARAM_INVALID, role + " is an address, and NULL");
  return deviceRange(port, at, 8, s, role + "'s address");
}

}  // namespace

aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo* taskInfo, const aclrtStream stream,
                             void* reserve) {
  ASCENDSIM_FORWARD(aclrtRandomNumAsync, taskInfo, stream, reserve);
  return run(
      "aclrtRandomNumAsync", &ascendsim::spec::ApiOverheads::memcpyAsync, [&](HostThread& t) {
        t.callArgs = {streamArg(stream)};
        needPointer(taskInfo, "taskInfo");
        Draw d;
        d.type = rawEnum(taskInfo->dataType);
        d.func = rawEnum(taskInfo->randomNumFuncParaInfo.funcType);
        t.callArgs.push_back(arg("func", funcName(d.func)));
        if (!aclPassesOn(d.type)) {
          fail(ACL_ERROR_INVALID_PARAM,
               "dataType " + std::to_string(d.type) + " is not supported for random numbers");
        }
        ServicePort port(rt());
        Stream& s = port.stream(t, stream);
        const std::string soc = port.deviceSpec(s.device->id).soc;
        if (soc.rfind("Ascend910B", 0) != 0 && soc.rfind("Ascend910_93", 0) != 0) {
          fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, soc + " has no random-number tasks");
        }
        if (reserve) fail(ACL_ERROR_RT_PARAM_INVALID, "reserve must be NULL");
        // CheckRandomNumTaskInfo, in its order.
        if (d.func < ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK ||
            d.func > ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS) {
          fail(ACL_ERROR_RT_PARAM_INVALID,
               "funcType " + std::to_string(d.func) + " is not in [0, 4) (aclrtRandomNumFuncType)");
        }
        const bool integer = !isFloat(d.type);
        if (integer && d.func != ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
          fail(ACL_ERROR_RT_PARAM_INVALID, std::string("the ") + funcName(d.func) +
                                               " distribution takes bf16, fp16 or fp32 only");
        }
        if (!taskInfo->randomCounterAddr) {
          fail(ACL_ERROR_RT_PARAM_INVALID, "randomCounterAddr is NULL");
        }
        if (!taskInfo->randomResultAddr) {
          fail(ACL_ERROR_RT_PARAM_INVALID, "randomResultAddr is NULL");
        }
        checkParam(taskInfo->randomSeed, "randomSeed", 8);
        checkParam(taskInfo->randomNum, "randomNum", 8);
        const aclrtRandomNumFuncParaInfo& f = taskInfo->randomNumFuncParaInfo;
        const uint32_t size = sizeOf(d.type);
        const char* names[2] = {"", ""};
        switch (d.func) {
          case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK:
            d.first = f.paramInfo.dropoutBitmaskInfo.dropoutRation;
            names[0] = "dropoutRation";
            checkParam(d.first, names[0], size);
            break;
          case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
            d.first = f.paramInfo.uniformDisInfo.min;
            d.second = f.paramInfo.uniformDisInfo.max;
            names[0] = "min";
            names[1] = "max";
            checkParam(d.first, names[0], size);
            checkParam(d.second, names[1], size);
            break;
          default:
            d.first = f.paramInfo.normalDisInfo.mean;
            d.second = f.paramInfo.normalDisInfo.stddev;
            names[0] = "mean";
            names[1] = "stddev";
            checkParam(d.first, names[0], size);
            checkParam(d.second, names[1], size);
            break;
        }
        // Beyond CANN's checks (the simulator's): every address is device memory of the
        // stream's device, wide enough; the count is read when the task is queued.
        d.firstAt = addressOf(port, d.first, s, names[0]);
        if (d.func != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK) {
          d.secondAt = addressOf(port, d.second, s, names[1]);
        }
        d.seedAtDevice = taskInfo->randomSeed.isAddr == kAddress;
        d.seedAt = addressOf(port, taskInfo->randomSeed, s, "randomSeed");
        d.seed = rawOf(taskInfo->randomSeed);
        const MemoryPlace numAt = addressOf(port, taskInfo->randomNum, s, "randomNum");
        d.num = valueNow(port, taskInfo->randomNum, numAt);
        t.callArgs.push_back(arg("num", d.num));
        // Values a distribution cannot take (the simulator's checks: CANN leaves them open).
        if (d.first.isAddr == kValue && d.second.isAddr == kValue) {
          const uint64_t a = rawOf(d.first), b = rawOf(d.second);
          if (d.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
            const bool below = isFloat(d.type) ? floatOf(d.type, b) < floatOf(d.type, a)
                               : (d.type == ACL_INT32 || d.type == ACL_INT64)
                                   ? signedOf(d.type, b) < signedOf(d.type, a)
                                   : b < a;
            if (below) fail(ACL_ERROR_RT_PARAM_INVALID, "max is below min");
          } else if (d.func != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK &&
                     !(floatOf(d.type, b) >= 0)) {
            fail(ACL_ERROR_RT_PARAM_INVALID, "stddev is negative or NaN");
          }
        }
        if (d.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK && d.first.isAddr == kValue) {
          const double ratio = floatOf(d.type, rawOf(d.first));
          if (!(ratio >= 0 && ratio <= 1)) {
            fail(ACL_ERROR_RT_PARAM_INVALID, "dropoutRation is outside [0, 1]");
          }
        }
        const uint64_t bytes =
            d.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK ? (d.num + 7) / 8 : d.num * size;
        if (d.num == 0) fail(ACL_ERROR_RT_PARAM_INVALID, "randomNum is 0");
        if (d.func != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK && d.num > (~0ull) / size) {
          fail(ACL_ERROR_RT_PARAM_INVALID, "randomNum is too large");
        }
        const MemoryPlace result =
            deviceRange(port, taskInfo->randomResultAddr, bytes, s, "randomResultAddr");
        const MemoryPlace counter =
            deviceRange(port, taskInfo->randomCounterAddr, kCounterBytes, s, "randomCounterAddr");
        auto task = std::make_unique<ascendsim::models::Task>();
        task->kind = ascendsim::models::TaskKind::Memset;
        task->dst = result;
        task->bytes = bytes;
        MemoryManager* mm = &port.memory();
        task->effect = [mm, d, result, counter] {
          if (!movesData()) return;
          const uint64_t first = paramValue(*mm, d.first, d.firstAt);
          const uint64_t second = d.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK
                                      ? 0
                                      : paramValue(*mm, d.second, d.secondAt);
          uint64_t seed = d.seed;
          if (d.seedAtDevice) {
            const std::vector<uint8_t> b = mm->readDevice(d.seedAt, 8, false);
            std::memcpy(&seed, b.data(), 8);
          }
          std::vector<uint8_t> state = mm->readDevice(counter, kCounterBytes, false);
          uint32_t words[4];
          std::memcpy(words, state.data(), sizeof words);
          mm->writeDevice(result, generate(d, first, second, seed, words));
          std::memcpy(state.data(), words, sizeof words);
          mm->writeDevice(counter, state);
        };
        port.submit(t, s, std::move(task));
      });
}
