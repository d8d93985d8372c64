// The measurements behind the validation cases: each runs the model the way a user would and
// returns its figures. Each runs in a process of its own (validate_command.cpp).

#include <cstdlib>
#include <random>
#include <stdexcept>

#include "acl/acl.h"
#include "ascendsim/compute.h"
#include "models/dram/memory_timing.h"
#include "spec/embedded_file.h"
#include "spec/system_loader.h"
#include "tools/bandwidth/bandwidth_command.h"
#include "tools/bandwidth/bandwidth_runner.h"
#include "tools/collectives/collective_bench.h"
#include "tools/machine_options.h"
#include "tools/validate/validation_cases.h"

namespace ascendsim::spec {
// examples/validation/*.yaml, embedded at build time (tools/CMakeLists.txt).
const std::vector<EmbeddedFile>& validationMachineFiles();
}  // namespace ascendsim::spec

namespace ascendsim::tools::validate {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

// A machine of examples/validation/ as the binary carries it.
spec::SystemSpec validationMachine(const std::string& name) {
  for (const spec::EmbeddedFile& f : spec::validationMachineFiles()) {
    if (f.path == name)
      return spec::loadSystemSpecFromText(std::string(f.text), "examples/validation/" + name);
  }
  throw std::runtime_error("no validation machine " + name);
}

// The bandwidth tool's tests at one size: each test's mean over the devices it measured (by the
// record's test name: "h2d", "bidir h2d", ...) and, for the tests of all devices at once, their
// aggregate ("all-to-host sum").
Figures bandwidthFigures(const spec::SystemSpec& sys, bool pageable,
                         const std::vector<std::string>& tests, uint64_t size) {
  std::map<std::string, std::pair<double, int>> perDevice;
  Figures out;
  for (const BandwidthRecord& r : measureBandwidth(sys, pageable, tests, size)) {
    if (r.status != "ok")
      throw std::runtime_error(r.test + " " + r.src + " -> " + r.dst + ": " + r.status);
    if (r.src == "all" || r.dst == "all") {
      out[r.test + " sum"] = r.gbps;
    } else {
      perDevice[r.test].first += r.gbps;
      ++perDevice[r.test].second;
    }
  }
  for (const auto& [test, sum] : perDevice) out[test] = sum.first / sum.second;
  return out;
}

// nvbandwidth's all_to_host_bidirectional (D2H measured) or host_to_all_bidirectional (H2D
// measured), through the bandwidth tool's runner: for each device in turn, its measured copy of
// `size` runs beside a copy twice as large the other way on the same device and, on every other
// device, copies twice as large both ways (nvbandwidth testcase.cpp, allHostBidirHelper); the
// measured copy's rate, as a mean over the devices.
Figures allHostBidirectional(const spec::SystemSpec& sys, uint64_t size) {
  using models::MemoryPlace;
  BandwidthRunner runner(sys, "");
  const MemoryPlace host{MemoryPlace::Kind::HostPinned, -1, 0};
  auto dev = [](int d) { return MemoryPlace{MemoryPlace::Kind::Device, d, 0}; };
  const int devices = static_cast<int>(sys.devices.size());
  Figures out;
  for (const bool toHost : {true, false}) {
    double sum = 0;
    for (int d = 0; d < devices; ++d) {
      std::vector<CopyRequest> copies;
      copies.push_back(toHost ? CopyRequest{d, dev(d), host, size}
                              : CopyRequest{d, host, dev(d), size});
      copies.push_back(toHost ? CopyRequest{d, host, dev(d), 2 * size}
                              : CopyRequest{d, dev(d), host, 2 * size});
      for (int other = 0; other < devices; ++other) {
        if (other == d) continue;
        copies.push_back({other, dev(other), host, 2 * size});
        copies.push_back({other, host, dev(other), 2 * size});
      }
      const spec::Picoseconds t = runner.runTogether(copies)[0];
      sum += static_cast<double>(size) / (static_cast<double>(t) * 1e-12) / 1e9;
    }
    out[toHost ? "all-to-host bidirectional" : "host-to-all bidirectional"] = sum / devices;
  }
  return out;
}

void check(aclError e, const char* what) {
  if (e != ACL_SUCCESS) {
    const char* msg = aclGetRecentErrMsg();
    throw std::runtime_error(std::string(what) + " returned " + std::to_string(e) + ": " +
                             (msg ? msg : ""));
  }
}

// The AscendCL runtime of this process on a built-in preset with `--set` changes, as `ascendsim
// run` hands a machine to a program; device 0 current unless told.
class AclSession {
 public:
  explicit AclSession(const std::string& preset, const std::vector<std::string>& sets = {},
                      bool setDevice = true) {
    exportMachine(MachineChoice{preset, sets});
    setenv("ASCENDSIM_SUMMARY", "0", 1);
    for (const char* output : {"ASCENDSIM_TRACE", "ASCENDSIM_REPORT", "ASCENDSIM_DRAM_STATS"})
      unsetenv(output);
    check(aclInit(nullptr), "aclInit");
    if (setDevice) check(aclrtSetDevice(0), "aclrtSetDevice");
  }
  ~AclSession() { aclFinalize(); }
  AclSession(const AclSession&) = delete;
  AclSession& operator=(const AclSession&) = delete;
};

// Simulated microseconds between two TIME_LINE events recorded on `stream` around `work`.
template <class Work>
double elapsedUs(aclrtStream stream, Work&& work) {
  aclrtEvent before = nullptr, after = nullptr;
  check(aclrtCreateEventWithFlag(&before, ACL_EVENT_TIME_LINE), "aclrtCreateEventWithFlag");
  check(aclrtCreateEventWithFlag(&after, ACL_EVENT_TIME_LINE), "aclrtCreateEventWithFlag");
  check(aclrtRecordEvent(before, stream), "aclrtRecordEvent");
  work();
  check(aclrtRecordEvent(after, stream), "aclrtRecordEvent");
  check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  float ms = 0;
  check(aclrtEventElapsedTime(&ms, before, after), "aclrtEventElapsedTime");
  aclrtDestroyEvent(before);
  aclrtDestroyEvent(after);
  return static_cast<double>(ms) * 1000.0;
}

struct DeviceBuffer {
  explicit DeviceBuffer(uint64_t bytes) {
    check(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  }
  ~DeviceBuffer() { aclrtFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* p = nullptr;
};

struct HostBuffer {
  explicit HostBuffer(uint64_t bytes) { check(aclrtMallocHost(&p, bytes), "aclrtMallocHost"); }
  ~HostBuffer() { aclrtFreeHost(p); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void* p = nullptr;
};

// Synchronous aclrtMemcpy device to host of 4, 8 and 64 B into pageable memory, as the published
// run does (2000 calls each; the model is deterministic, so 200 back to back give the same per
// call time as a median). Host time per call, from two records on an idle stream of their own
// around the calls (the second record's own 1 us is spread over the 200 calls: 0.005 us).
Figures smallCopies() {
  AclSession acl("atlas-800t-a2");
  DeviceBuffer d(64);
  std::vector<unsigned char> host(64);
  check(aclrtMemcpy(d.p, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
  aclrtStream ruler = nullptr;
  check(aclrtCreateStream(&ruler), "aclrtCreateStream");
  Figures out;
  const int calls = 200;
  for (size_t bytes : {4, 8, 64}) {
    const double us = elapsedUs(ruler, [&] {
      for (int i = 0; i < calls; ++i)
        check(aclrtMemcpy(host.data(), 64, d.p, bytes, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy");
    });
    out["d2h " + std::to_string(bytes) + " B"] = us / calls;
  }
  check(aclrtDestroyStream(ruler), "aclrtDestroyStream");
  return out;
}

// aclrtMemcpy2dAsync of rows W bytes wide at pitch 2 W between pinned host memory and the device:
// the rate from the difference between 16 MiB and 8 MiB of rows, so that the fixed costs (API,
// launch, DMA setup, the first round trip) cancel.
Figures narrowRows() {
  AclSession acl("atlas-800t-a2");
  const uint64_t most = 16 * kMiB;
  HostBuffer h(2 * most);
  DeviceBuffer d(2 * most);
  Figures out;
  for (size_t width : {64, 128, 256}) {
    const size_t pitch = 2 * width;
    double h2d[2] = {}, d2h[2] = {};
    for (int i = 0; i < 2; ++i) {
      const size_t height = (most >> (1 - i)) / width;
      h2d[i] = elapsedUs(nullptr, [&] {
        check(aclrtMemcpy2dAsync(d.p, pitch, h.p, pitch, width, height, ACL_MEMCPY_HOST_TO_DEVICE,
                                 nullptr),
              "aclrtMemcpy2dAsync");
      });
      d2h[i] = elapsedUs(nullptr, [&] {
        check(aclrtMemcpy2dAsync(h.p, pitch, d.p, pitch, width, height, ACL_MEMCPY_DEVICE_TO_HOST,
                                 nullptr),
              "aclrtMemcpy2dAsync");
      });
    }
    const double bytes = static_cast<double>(most / 2);
    out["h2d " + std::to_string(width) + " B"] = bytes / ((h2d[1] - h2d[0]) * 1e-6) / 1e9;
    out["d2h " + std::to_string(width) + " B"] = bytes / ((d2h[1] - d2h[0]) * 1e-6) / 1e9;
  }
  return out;
}

// One collective of 256 MiB (AllGather: its whole output) on `ranks` ranks of the Atlas 800T A2
// as `ascendsim collectives` runs it (ranks as threads, rank r on device r; one warm-up call,
// then one timed call per rank, no data moved: ASCENDSIM_DATA=timing-only times the same).
// Algorithm bandwidth: the bytes over the slowest rank's time.
Figures collective(const std::string& name, uint32_t ranks) {
  setenv("ASCENDSIM_DATA", "timing-only", 1);
  AclSession acl("atlas-800t-a2", {}, false);
  BenchSettings s;
  s.collective = *Collective::named(name);
  s.ranks = ranks;
  s.dataType = name == "all_gather" ? HCCL_DATA_TYPE_INT8 : HCCL_DATA_TYPE_FP32;
  s.iters = 1;
  s.warmupIters = 1;
  s.check = 0;
  s.sizes = {256 * kMiB};
  double slowestUs = 0;
  uint64_t algBytes = 0;
  CollectiveBench bench(s);
  const std::string failure = bench.run([&](const SizeResult& r) {
    algBytes = r.layout.algBytes;
    for (const RankResult& rank : r.ranks) slowestUs = std::max(slowestUs, rank.avgUs);
  });
  if (!failure.empty()) throw std::runtime_error(failure);
  if (slowestUs <= 0) throw std::runtime_error(name + ": no time measured");
  return {{name + " " + std::to_string(ranks), static_cast<double>(algBytes) / slowestUs / 1e3}};
}

// The request streams of validation/dram/make_traces.cpp (and
// tests/models/dram_reference_test.cpp): 2 Mi requests of 64 B (random_read_32B: of 32 B) over
// 1 GiB, offered in order as fast as the memory takes them; random places from mt19937_64 seeded 7.
constexpr uint64_t kRequests = 2ull << 20;
constexpr uint64_t kSpan = 1ull << 30;

std::pair<uint64_t, bool> request(const std::string& pattern, uint64_t i, std::mt19937_64& rng) {
  if (pattern == "sequential read") return {i * 64, false};
  if (pattern == "sequential write") return {i * 64, true};
  if (pattern == "random read") return {(rng() % (kSpan / 64)) * 64, false};
  if (pattern == "random read 32 B") return {(rng() % (kSpan / 32)) * 32, false};
  if (pattern == "random 2:1") return {(rng() % (kSpan / 64)) * 64, i % 3 == 0};
  // 4 KiB stride: i x 4096 mod 1 GiB, 64 B further on at each wrap.
  const uint64_t linear = i * 4096;
  return {linear % kSpan + linear / kSpan * 64, false};
}

Figures dramPattern(const std::string& preset, const std::string& overrides,
                    const std::string& pattern) {
  auto timing = models::makeMemoryTiming(
      spec::loadMemorySpec(preset, "address_mapping: bank-group-interleaved\n" + overrides));
  std::mt19937_64 rng(7);
  const uint64_t bytes = pattern == "random read 32 B" ? 32 : 64;
  for (uint64_t i = 0; i < kRequests; ++i) {
    const auto [address, write] = request(pattern, i, rng);
    timing->enqueue(address, bytes, write, 0);
  }
  timing->drain();
  return {{pattern, timing->totalStats().bandwidth() / 1e9}};
}

// A kernel's random gathers on one HBM3 stack timed burst by burst (`timing: cycle`), the
// memory set up as the Ramulator 2 run is (below): ascendsimLaunchComputeTaskIn reading at
// random places of a 1 GiB region; the rate from the difference between 64 MiB and 32 MiB read,
// so that launch and start cancel.
const std::vector<std::string> kHbm3AsRamulator = {
    "devices[*].memory.preset=hbm3",
    "devices[*].memory.stacks=1",
    "devices[*].memory.timing=cycle",
    "devices[*].memory.address_mapping=bank-group-interleaved",
    "devices[*].memory.tREFI=1000000",
    "devices[*].memory.tCCDR=2",
    "devices[*].memory.starvation_cap=1000000",
    "devices[*].memory.queue_depth=33"};

Figures cycleGathers() {
  AclSession acl("default", kHbm3AsRamulator);
  DeviceBuffer region(kSpan);
  Figures figures;
  for (const uint64_t access : {uint64_t{32}, uint64_t{64}}) {
    double us[2] = {};
    for (int i = 0; i < 2; ++i) {
      const uint64_t bytes = (32 * kMiB) << i;
      us[i] = elapsedUs(nullptr, [&] {
        check(ascendsimLaunchComputeTaskSized("gather", region.p, kSpan, ASCENDSIM_ACCESS_RANDOM, 0,
                                              access, bytes, 0, bytes / 4, 4, nullptr),
              "ascendsimLaunchComputeTaskSized");
      });
    }
    figures["random gathers " + std::to_string(access) + " B"] =
        static_cast<double>(32 * kMiB) / ((us[1] - us[0]) * 1e-6) / 1e9;
  }
  return figures;
}

const char* const kHbm3Settings =
    "tREFI: 1000000\ntCCDR: 2\nstarvation_cap: 1000000\nqueue_depth: 33\n";

std::vector<Measurement> makeMeasurements() {
  std::vector<Measurement> m;
  const std::string h800 = "examples/validation/hgx-h800-gen5.yaml";
  m.push_back({"h800-alone", h800 + "; `bandwidth --tests h2d,d2h --sizes 64MiB` (pinned)", [=] {
                 return bandwidthFigures(validationMachine("hgx-h800-gen5.yaml"), false,
                                         {"h2d", "d2h"}, 64 * kMiB);
               }});
  m.push_back({"h800-bidir",
               h800 + "; `bandwidth --tests bidir --sizes 64MiB`: the measured copy beside one "
                      "twice as large the other way, as nvbandwidth",
               [] {
                 return bandwidthFigures(validationMachine("hgx-h800-gen5.yaml"), false, {"bidir"},
                                         64 * kMiB);
               }});
  m.push_back({"h800-all",
               h800 + "; `bandwidth --tests all-to-host,host-to-all --sizes 64MiB`: 8 devices at "
                      "once",
               [] {
                 return bandwidthFigures(validationMachine("hgx-h800-gen5.yaml"), false,
                                         {"all-to-host", "host-to-all"}, 64 * kMiB);
               }});
  m.push_back({"gen4-epyc-alone",
               "examples/validation/epyc7542-7900xtx-gen4.yaml; `bandwidth --tests h2d,d2h "
               "--sizes 256MiB` (pinned)",
               [] {
                 return bandwidthFigures(validationMachine("epyc7542-7900xtx-gen4.yaml"), false,
                                         {"h2d", "d2h"}, 256 * kMiB);
               }});
  m.push_back(
      {"h800-all-bidir",
       h800 + "; the bandwidth tool's runner as nvbandwidth's all_to_host_bidirectional and "
              "host_to_all_bidirectional (64 MiB measured, every other copy 128 MiB)",
       [] { return allHostBidirectional(validationMachine("hgx-h800-gen5.yaml"), 64 * kMiB); }});
  for (const bool pageable : {false, true}) {
    const std::string memory = pageable ? "pageable" : "pinned";
    m.push_back({"gen4-" + memory,
                 "preset `default` (Gen4 x16); `bandwidth --memory " + memory +
                     " --tests h2d,d2h --sizes 32000000` (bandwidthTest --mode=quick's size)",
                 [pageable] {
                   return bandwidthFigures(spec::loadSystemSpec("default"), pageable,
                                           {"h2d", "d2h"}, 32000000);
                 }});
  }
  // One large copy each way on a link of generation g and payload size mps, the fixed per-copy
  // costs set to 0 as pcie-bench's steady rate has none (the copy still pays its round trip).
  for (const uint32_t gen : {3u, 4u, 5u}) {
    for (const uint32_t mps : {128u, 256u, 512u}) {
      const std::vector<std::string> sets = {"devices[*].link.generation=" + std::to_string(gen),
                                             "devices[*].link.mps=" + std::to_string(mps),
                                             "devices[*].dma.setup_latency=0ns",
                                             "devices[*].scheduler.task_launch=0ns"};
      std::string described;
      for (const std::string& set : sets) described += " --set '" + set + "'";
      m.push_back({"pcie-gen" + std::to_string(gen) + "-mps" + std::to_string(mps),
                   "preset `default`" + described + "; `bandwidth --tests h2d,d2h --sizes 64MiB`",
                   [sets] {
                     return bandwidthFigures(loadMachine(MachineChoice{"default", sets}), false,
                                             {"h2d", "d2h"}, 64 * kMiB);
                   }});
    }
  }
  m.push_back({"a2-small-copies",
               "preset `atlas-800t-a2`; runtime: 200 synchronous aclrtMemcpy D2H of 4, 8, 64 B to "
               "pageable memory, host time per call",
               smallCopies});
  m.push_back({"a2-narrow-rows",
               "preset `atlas-800t-a2`; runtime: aclrtMemcpy2dAsync of W-byte rows at pitch 2W, "
               "pinned, rate between 8 and 16 MiB of rows",
               narrowRows});
  for (const auto& [name, ranks] :
       std::vector<std::pair<std::string, uint32_t>>{{"all_gather", 2},
                                                     {"all_gather", 4},
                                                     {"all_gather", 8},
                                                     {"all_reduce", 2},
                                                     {"all_reduce", 4},
                                                     {"all_reduce", 8}}) {
    m.push_back({"a2-" + name + "-" + std::to_string(ranks),
                 "preset `atlas-800t-a2`; `collectives " + name + " -p " + std::to_string(ranks) +
                     " -b 256M -e 256M -n 1 -w 1 --timing-only`, algbw of the slowest rank",
                 [name = name, ranks = ranks] { return collective(name, ranks); }});
  }
  for (const std::string pattern :
       {"sequential read", "random read", "sequential write", "random 2:1", "4KiB stride"}) {
    m.push_back({"hbm3-" + pattern,
                 "memory preset `hbm3` (1 stack), bank-group-interleaved, " +
                     std::string("tREFI 1000000, tCCDR 2, starvation_cap 1000000, queue_depth 33 "
                                 "(Ramulator 2 v2.0a's settings); 2 Mi 64 B requests, ") +
                     pattern,
                 [pattern] { return dramPattern("hbm3", kHbm3Settings, pattern); }});
    m.push_back({"hbm2-" + pattern,
                 "memory preset `hbm2`, bank-group-interleaved, tREFI 1000000 (no refresh, as "
                 "the reference); 2 Mi 64 B requests, " +
                     pattern,
                 [pattern] { return dramPattern("hbm2", "tREFI: 1000000\n", pattern); }});
  }
  m.push_back({"hbm3-random read 32 B",
               "memory preset `hbm3` as the other HBM3 rows; 2 Mi random 32 B reads (one burst "
               "each)",
               [] { return dramPattern("hbm3", kHbm3Settings, "random read 32 B"); }});
  m.push_back({"hbm2-alike-random read",
               "memory preset `hbm2` set up as the reference: command_bus per-pseudo-channel, "
               "starvation_cap 1000000, queue_depth 33, no refresh; 2 Mi random 64 B reads",
               [] {
                 return dramPattern("hbm2",
                                    "tREFI: 1000000\ncommand_bus: per-pseudo-channel\n"
                                    "starvation_cap: 1000000\nqueue_depth: 33\n",
                                    "random read");
               }});
  m.push_back(
      {"hbm3-cycle-gathers",
       "preset `default` with its memory one `hbm3` stack, `timing: cycle`, set up as the "
       "HBM3 rows; runtime: ascendsimLaunchComputeTaskSized random reads of 32 and 64 B over "
       "1 GiB, rate between 32 and 64 MiB read",
       cycleGathers});
  return m;
}

}  // namespace

const std::vector<Measurement>& measurements() {
  static const std::vector<Measurement> all = makeMeasurements();
  return all;
}

}  // namespace ascendsim::tools::validate
