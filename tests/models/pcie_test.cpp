// PCIe and DMA timing, in two kinds of test.
//
// Validation (suites named PcieBench*): the expected figure is an output of pcie-bench's own
// model (github.com/pcie-bench/pcie-model, the model of Neugebauer et al., "Understanding PCIe
// performance for end host networking", SIGCOMM 2018), run on the setup the test builds and
// written below as a constant. The figures were produced by validation/pcie-bench/run.sh at
// pcie-model commit 40703cfeb6c7763977df98061326e7c1bdccf184 and are the rows of
// validation/pcie-bench/reference.csv; validation/pcie-bench/README.md says how to re-run it.
//
// Consistency (suites named PcieConsistency*): our own formulas checked against arithmetic written
// in the test (latency bounds, the sawtooth ratio, the staging pipeline, wire-byte counts). They
// catch a model that contradicts its own documentation, not one that is wrong about PCIe.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <vector>

#include "models/dma/path_timing.h"
#include "models/machine/machine_graph.h"
#include "models/machine/router.h"
#include "models/pcie/pcie_protocol.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

// ---------------------------------------------------------------------------------------------
// pcie-bench's figures. Source: pcie-bench model, commit 40703cfeb6c7763977df98061326e7c1bdccf184,
// validation/pcie-bench/run.sh (validation/pcie-bench/reference.csv). Common setup: x16 lanes,
// MRRS 512, 64-bit addresses, no ECRC, completions split at MPS (rcb_chunks false), the whole TLP
// bandwidth available in each direction. Units: Gb/s (1e9 bit/s), as the model prints them.

// pcie.Cfg(...).TLP_bw: the line rate less ACK and FC-update DLLPs (8 B each, at the spec's
// intervals for the generation, width and MPS) and SKP ordered sets (4 B per 1538 B).
struct TlpRate {
  uint32_t gen;
  uint64_t mps;
  double gbps;
};
constexpr TlpRate kPcieBenchTlpRate[] = {
    {3, 128, 111.699572}, {3, 256, 113.700060}, {3, 512, 114.623363},
    {4, 128, 223.399144}, {4, 256, 227.400121}, {4, 512, 229.246726},
    {5, 128, 446.798288}, {5, 256, 454.800242}, {5, 512, 458.493451},
};

// mem_bw.write(cfg, spec, size).tx_eff and mem_bw.read(cfg, spec, size).rx_eff: the payload rate
// of a stream of `size`-byte memory writes (posted, split at MPS, 24 B of header, framing,
// sequence number and LCRC per TLP) and of `size`-byte reads (completions split at MPS with 20 B
// each; requests of 24 B per MRRS the other way).
struct SizeRate {
  uint32_t gen;
  uint64_t mps;
  uint64_t size;
  double writeGbps, readGbps;
};
constexpr SizeRate kPcieBenchRates[] = {
    {3, 128, 64, 81.236052, 85.104436},          {3, 128, 128, 94.062798, 96.605035},
    {3, 128, 129, 81.408163, 85.261804},         {3, 128, 200, 90.080300, 93.082977},
    {3, 128, 256, 94.062798, 96.605035},         {3, 128, 257, 87.254681, 90.557697},
    {3, 128, 384, 94.062798, 96.605035},         {3, 128, 512, 94.062798, 96.605035},
    {3, 128, 513, 90.524298, 93.477782},         {3, 128, 768, 94.062798, 96.605035},
    {3, 128, 769, 91.672328, 94.496118},         {3, 128, 1024, 94.062798, 96.605035},
    {3, 128, 1500, 93.707695, 96.292735},        {3, 128, 4096, 94.062798, 96.605035},
    {3, 128, 4097, 93.604653, 96.202049},        {3, 128, 65536, 94.062798, 96.605035},
    {3, 128, 1048576, 94.062798, 96.605035},     {3, 128, 67108864, 94.062798, 96.605035},
    {3, 128, 268435456, 94.062798, 96.605035},   {3, 256, 64, 82.690953, 86.628618},
    {3, 256, 128, 95.747419, 98.335187},         {3, 256, 129, 95.864757, 98.438307},
    {3, 256, 200, 101.517911, 103.363691},       {3, 256, 256, 103.954341, 105.460926},
    {3, 256, 257, 95.806280, 98.386921},         {3, 256, 384, 101.066720, 102.973640},
    {3, 256, 512, 103.954341, 105.460926},       {3, 256, 513, 99.706207, 101.794295},
    {3, 256, 768, 103.954341, 105.460926},       {3, 256, 769, 101.081325, 102.986274},
    {3, 256, 1024, 103.954341, 105.460926},      {3, 256, 1500, 103.740931, 105.277834},
    {3, 256, 4096, 103.954341, 105.460926},      {3, 256, 4097, 103.402697, 104.987412},
    {3, 256, 65536, 103.954341, 105.460926},     {3, 256, 1048576, 103.954341, 105.460926},
    {3, 256, 67108864, 103.954341, 105.460926},  {3, 256, 268435456, 103.954341, 105.460926},
    {3, 512, 64, 83.362446, 87.332086},          {3, 512, 128, 96.524937, 99.133719},
    {3, 512, 129, 96.643227, 99.237677},         {3, 512, 200, 102.342288, 104.203057},
    {3, 512, 256, 104.798503, 106.317322},       {3, 512, 257, 104.833467, 106.347308},
    {3, 512, 384, 107.880812, 108.948939},       {3, 512, 512, 109.490973, 110.314214},
    {3, 512, 513, 104.816016, 106.332342},       {3, 512, 768, 107.880812, 108.948939},
    {3, 512, 769, 107.889065, 108.955953},       {3, 512, 1024, 109.490973, 110.314214},
    {3, 512, 1500, 109.373438, 110.214772},      {3, 512, 4096, 109.490973, 110.314214},
    {3, 512, 4097, 108.882893, 109.799373},      {3, 512, 65536, 109.490973, 110.314214},
    {3, 512, 1048576, 109.490973, 110.314214},   {3, 512, 67108864, 109.490973, 110.314214},
    {3, 512, 268435456, 109.490973, 110.314214}, {4, 128, 64, 162.472105, 170.208872},
    {4, 128, 128, 188.125595, 193.210071},       {4, 128, 129, 162.816325, 170.523607},
    {4, 128, 200, 180.160600, 186.165953},       {4, 128, 256, 188.125595, 193.210071},
    {4, 128, 257, 174.509362, 181.115394},       {4, 128, 384, 188.125595, 193.210071},
    {4, 128, 512, 188.125595, 193.210071},       {4, 128, 513, 181.048596, 186.955564},
    {4, 128, 768, 188.125595, 193.210071},       {4, 128, 769, 183.344655, 188.992235},
    {4, 128, 1024, 188.125595, 193.210071},      {4, 128, 1500, 187.415389, 192.585469},
    {4, 128, 4096, 188.125595, 193.210071},      {4, 128, 4097, 187.209305, 192.404098},
    {4, 128, 65536, 188.125595, 193.210071},     {4, 128, 1048576, 188.125595, 193.210071},
    {4, 128, 67108864, 188.125595, 193.210071},  {4, 128, 268435456, 188.125595, 193.210071},
    {4, 256, 64, 165.381906, 173.257235},        {4, 256, 128, 191.494839, 196.670375},
    {4, 256, 129, 191.729514, 196.876615},       {4, 256, 200, 203.035822, 206.727383},
    {4, 256, 256, 207.908682, 210.921851},       {4, 256, 257, 191.612561, 196.773842},
    {4, 256, 384, 202.133441, 205.947279},       {4, 256, 512, 207.908682, 210.921851},
    {4, 256, 513, 199.412414, 203.588590},       {4, 256, 768, 207.908682, 210.921851},
    {4, 256, 769, 202.162651, 205.972548},       {4, 256, 1024, 207.908682, 210.921851},
    {4, 256, 1500, 207.481862, 210.555668},      {4, 256, 4096, 207.908682, 210.921851},
    {4, 256, 4097, 206.805393, 209.974824},      {4, 256, 65536, 207.908682, 210.921851},
    {4, 256, 1048576, 207.908682, 210.921851},   {4, 256, 67108864, 207.908682, 210.921851},
    {4, 256, 268435456, 207.908682, 210.921851}, {4, 512, 64, 166.724891, 174.664172},
    {4, 512, 128, 193.049874, 198.267438},       {4, 512, 129, 193.286455, 198.475353},
    {4, 512, 200, 204.684576, 208.406114},       {4, 512, 256, 209.597006, 212.634644},
    {4, 512, 257, 209.666934, 212.694616},       {4, 512, 384, 215.761624, 217.897878},
    {4, 512, 512, 218.981947, 220.628428},       {4, 512, 513, 209.632033, 212.664684},
    {4, 512, 768, 215.761624, 217.897878},       {4, 512, 769, 215.778130, 217.911906},
    {4, 512, 1024, 218.981947, 220.628428},      {4, 512, 1500, 218.746876, 220.429544},
    {4, 512, 4096, 218.981947, 220.628428},      {4, 512, 4097, 217.765786, 219.598746},
    {4, 512, 65536, 218.981947, 220.628428},     {4, 512, 1048576, 218.981947, 220.628428},
    {4, 512, 67108864, 218.981947, 220.628428},  {4, 512, 268435456, 218.981947, 220.628428},
    {5, 128, 64, 324.944210, 340.417744},        {5, 128, 128, 376.251190, 386.420141},
    {5, 128, 129, 325.632651, 341.047214},       {5, 128, 200, 360.321200, 372.331907},
    {5, 128, 256, 376.251190, 386.420141},       {5, 128, 257, 349.018724, 362.230789},
    {5, 128, 384, 376.251190, 386.420141},       {5, 128, 512, 376.251190, 386.420141},
    {5, 128, 513, 362.097191, 373.911129},       {5, 128, 768, 376.251190, 386.420141},
    {5, 128, 769, 366.689310, 377.984471},       {5, 128, 1024, 376.251190, 386.420141},
    {5, 128, 1500, 374.830779, 385.170938},      {5, 128, 4096, 376.251190, 386.420141},
    {5, 128, 4097, 374.418611, 384.808196},      {5, 128, 65536, 376.251190, 386.420141},
    {5, 128, 1048576, 376.251190, 386.420141},   {5, 128, 67108864, 376.251190, 386.420141},
    {5, 128, 268435456, 376.251190, 386.420141}, {5, 256, 64, 330.763812, 346.514470},
    {5, 256, 128, 382.989677, 393.340750},       {5, 256, 129, 383.459028, 393.753230},
    {5, 256, 200, 406.071645, 413.454765},       {5, 256, 256, 415.817364, 421.843703},
    {5, 256, 257, 383.225122, 393.547684},       {5, 256, 384, 404.266882, 411.894559},
    {5, 256, 512, 415.817364, 421.843703},       {5, 256, 513, 398.824828, 407.177180},
    {5, 256, 768, 415.817364, 421.843703},       {5, 256, 769, 404.325302, 411.945096},
    {5, 256, 1024, 415.817364, 421.843703},      {5, 256, 1500, 414.963724, 421.111335},
    {5, 256, 4096, 415.817364, 421.843703},      {5, 256, 4097, 413.610786, 419.949649},
    {5, 256, 65536, 415.817364, 421.843703},     {5, 256, 1048576, 415.817364, 421.843703},
    {5, 256, 67108864, 415.817364, 421.843703},  {5, 256, 268435456, 415.817364, 421.843703},
    {5, 512, 64, 333.449783, 349.328344},        {5, 512, 128, 386.099748, 396.534877},
    {5, 512, 129, 386.572910, 396.950706},       {5, 512, 200, 409.369153, 416.812228},
    {5, 512, 256, 419.194013, 425.269288},       {5, 512, 257, 419.333868, 425.389231},
    {5, 512, 384, 431.523248, 435.795756},       {5, 512, 512, 437.963894, 441.256855},
    {5, 512, 513, 419.264065, 425.329368},       {5, 512, 768, 431.523248, 435.795756},
    {5, 512, 769, 431.556260, 435.823812},       {5, 512, 1024, 437.963894, 441.256855},
    {5, 512, 1500, 437.493751, 440.859088},      {5, 512, 4096, 437.963894, 441.256855},
    {5, 512, 4097, 435.531572, 439.197491},      {5, 512, 65536, 437.963894, 441.256855},
    {5, 512, 1048576, 437.963894, 441.256855},   {5, 512, 67108864, 437.963894, 441.256855},
    {5, 512, 268435456, 437.963894, 441.256855},
};

// Same source, Gen4 x16, MPS 256, MRRS 512: a 2 MiB read (the staging test's chunk) and a 64 KiB
// read with completions split at RCB 64 (Cfg rcb 64, rcb_chunks true).
constexpr double kPcieBenchGen4Mps256Read2MiBGbps = 210.921851;
constexpr double kPcieBenchGen4Mps256Rcb64Read64KiBGbps = 173.257235;

double bytesPerSecond(double gbps) {
  return gbps * 1e9 / 8;
}

const SizeRate& pcieBenchRate(uint32_t gen, uint64_t mps, uint64_t size) {
  for (const SizeRate& r : kPcieBenchRates)
    if (r.gen == gen && r.mps == mps && r.size == size) return r;
  ADD_FAILURE() << "no pcie-bench figure for Gen" << gen << " MPS " << mps << " " << size << " B";
  static const SizeRate kNone{0, 0, 0, NAN, NAN};
  return kNone;
}

// The one documented difference from pcie-bench: it counts a TLP's payload as `size` bytes, while
// the PCIe Base Specification (2.2.2: Length counts doublewords, byte enables mark the bytes that
// count) and our model carry whole doublewords, so a size that is not a multiple of 4 puts up to
// 3 B more on the wire. Our rate is then pcie-bench's times (size + n h) / (ceil4(size) + n h),
// n = ceil(size / MPS) TLPs of h header bytes: 1 for multiples of 4, 0.983 for 129 B at MPS 128.
double dwordPadding(uint64_t size, uint64_t mps, double header) {
  const double n = std::ceil(static_cast<double>(size) / static_cast<double>(mps));
  const double padded = std::ceil(static_cast<double>(size) / 4) * 4;
  return (static_cast<double>(size) + n * header) / (padded + n * header);
}

// ---------------------------------------------------------------------------------------------
// Driving the model.

// pcie-bench's model is about the link: it assumes enough read tags in flight that latency never
// limits. These machines give the device 768 tags (Gen4/5 10-bit tags) and 768 outstanding reads.
spec::SystemSpec machine(uint32_t gen, uint64_t mps, const std::string& extra = ", tags: 768",
                         const std::string& rc = "") {
  const std::string yaml =
      "host: { memory: { preset: ddr4-3200, channels: 8, capacity: 64GiB } }\n"
      "pcie: { root_complex: { ports: 2, latency: 250ns" +
      rc +
      " } }\n"
      "devices: [ { port: rc.0, link: { generation: " +
      std::to_string(gen) + ", lanes: 16, mps: " + std::to_string(mps) +
      ", mrrs: 512, latency: 20ns" + extra +
      " }, memory: { preset: hbm2e, stacks: 4, capacity: 64GiB },\n"
      "              dma: { outstanding_reads: 768 } } ]\n";
  return spec::loadSystemSpecFromText(yaml, "pcie-test.yaml");
}

Task copyTask(bool toDevice, uint64_t bytes, bool pageable = false) {
  Task t;
  t.kind = TaskKind::Copy;
  t.bytes = bytes;
  const MemoryPlace host{pageable ? MemoryPlace::Kind::HostPageable : MemoryPlace::Kind::HostPinned,
                         -1, 0};
  const MemoryPlace dev{MemoryPlace::Kind::Device, 0, 0};
  t.src = toDevice ? host : dev;
  t.dst = toDevice ? dev : host;
  return t;
}

// The graph, router and path timing of one machine, for driving pieces by hand.
struct Paths {
  explicit Paths(const spec::SystemSpec& sys)
      : graph(sys), router(graph), timing(sys, graph, router) {}
  std::vector<Stage> stages(const Task& t, uint64_t size) {
    uint32_t requests = 0;
    return timing.stages(0, t, 0, Shape{size, 1}, requests);
  }
  MachineGraph graph;
  Router router;
  PathTiming timing;
};

// Streams `count` transfers of `size` bytes back to back through the fabric (each one piece, as
// pcie-bench's per-transfer model has it), keeping 128 KiB in flight (256 reads of 512 B; at
// least four transfers): Gen5 x16 needs about 63 GB/s x 0.6 us = 38 KiB in flight over the round
// trip, so the link is the limit at every generation. pcie-bench's figure is a steady rate, so
// this measures from the end of the first transfer to the end of the last ((count - 1) x size
// bytes): the first transfer's round trip, a start-up cost pcie-bench does not have, is left out.
double streamRate(const spec::SystemSpec& sys, bool toDevice, uint64_t size, uint64_t count) {
  Paths paths(sys);
  const Task t = copyTask(toDevice, size);
  const uint64_t inFlight = std::max<uint64_t>(4, 256 * 512 / size);
  std::deque<Picoseconds> window;
  std::vector<Picoseconds> ends;
  Picoseconds ready = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (window.size() >= inFlight) {
      ready = std::max(ready, window.front());
      window.pop_front();
    }
    const auto [next, end] = flow(paths.stages(t, size), ready);
    ready = next;
    window.push_back(end);
    ends.push_back(end);
  }
  std::sort(ends.begin(), ends.end());
  return static_cast<double>(size * (count - 1)) /
         (static_cast<double>(ends.back() - ends.front()) * 1e-12);
}

std::string genMpsName(const ::testing::TestParamInfo<std::tuple<uint32_t, uint64_t>>& p) {
  return "Gen" + std::to_string(std::get<0>(p.param)) + "_MPS" +
         std::to_string(std::get<1>(p.param));
}
const auto kGenAndMps =
    ::testing::Combine(::testing::Values(3u, 4u, 5u), ::testing::Values(128u, 256u, 512u));

// ---------------------------------------------------------------------------------------------
// Validation against pcie-bench.

class PcieBenchTlpRate : public ::testing::TestWithParam<std::tuple<uint32_t, uint64_t>> {};

TEST_P(PcieBenchTlpRate, LineRateLessAckFcDllpAndSkpOverhead) {
  // pcie::tlpBandwidth against pcie-bench's TLP_bw for the same generation, x16 and MPS. Both are
  // closed forms of the same spec tables; the constants carry 6 decimals of Gb/s (under 1e-8 of
  // the value), so 1e-6 either way is rounding and nothing else: a DLLP of 9 B instead of 8 moves
  // the figure by 1.4e-2 at Gen3 MPS 128.
  const auto [gen, mps] = GetParam();
  const spec::SystemSpec sys = machine(gen, mps);
  const TlpRate* ref = nullptr;
  for (const TlpRate& r : kPcieBenchTlpRate)
    if (r.gen == gen && r.mps == mps) ref = &r;
  ASSERT_NE(ref, nullptr);
  EXPECT_NEAR(pcie::tlpBandwidth(sys.devices[0].link, mps) / bytesPerSecond(ref->gbps), 1.0, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(GenAndMps, PcieBenchTlpRate, kGenAndMps, genMpsName);

// The sizes streamed, 64 B to 256 MiB: each MPS multiple and one byte past it (the sawtooth: 257 B
// at MPS 256 needs a second TLP), sizes that are not whole doublewords, and bulk sizes.
constexpr uint64_t kSizes[] = {64,   128,   129,        200,         256,         257,  384,
                               512,  513,   768,        769,         1024,        1500, 4096,
                               4097, 65536, 1ull << 20, 64ull << 20, 256ull << 20};

uint64_t streamCount(uint64_t size) {
  return std::min<uint64_t>(20000, std::max<uint64_t>(4, (256ull << 20) / size / 8));
}

// Tolerance of the per-size rates, 0.1 % either way. The model keeps time in whole picoseconds,
// so each transfer may gain up to about 1 ps: the shortest, 64 B (88 B on the wire) at Gen5 x16
// MPS 512, takes 1.47 ns, hence up to 0.07 % (measured: 0.064 %, below pcie-bench; every size
// from 64 KiB up agrees within 1e-8). What the figures check moves them much more: 8 B more of
// TLP header costs 8 % at 64 B and 1.5 % at 256 MiB (MPS 512); DLLPs twice as large about 10 %.
constexpr double kSizeTolerance = 1e-3;

class PcieBenchWrites : public ::testing::TestWithParam<std::tuple<uint32_t, uint64_t>> {};

TEST_P(PcieBenchWrites, RateVersusSizeWith24ByteTlpHeaders) {
  // D2H: the device's posted writes, split at MPS, 24 B per TLP; pcie-bench's mem_bw.write.
  const auto [gen, mps] = GetParam();
  const spec::SystemSpec sys = machine(gen, mps);
  for (uint64_t size : kSizes) {
    const double ref =
        bytesPerSecond(pcieBenchRate(gen, mps, size).writeGbps) * dwordPadding(size, mps, 24);
    const double w = streamRate(sys, false, size, streamCount(size));
    EXPECT_NEAR(w / ref, 1.0, kSizeTolerance) << size << " B writes: " << w / 1e9 << " GB/s";
  }
}

INSTANTIATE_TEST_SUITE_P(GenAndMps, PcieBenchWrites, kGenAndMps, genMpsName);

class PcieBenchReads : public ::testing::TestWithParam<std::tuple<uint32_t, uint64_t>> {};

TEST_P(PcieBenchReads, RateVersusSizeWith20ByteCompletionHeaders) {
  // H2D: the device reads host memory, completions split at MPS with 20 B each, requests of 24 B
  // per 512 B the other way; pcie-bench's mem_bw.read.
  const auto [gen, mps] = GetParam();
  const spec::SystemSpec sys = machine(gen, mps);
  for (uint64_t size : kSizes) {
    const double ref =
        bytesPerSecond(pcieBenchRate(gen, mps, size).readGbps) * dwordPadding(size, mps, 20);
    const double r = streamRate(sys, true, size, streamCount(size));
    EXPECT_NEAR(r / ref, 1.0, kSizeTolerance) << size << " B reads: " << r / 1e9 << " GB/s";
  }
}

INSTANTIATE_TEST_SUITE_P(GenAndMps, PcieBenchReads, kGenAndMps, genMpsName);

class PcieBenchLargeCopies : public ::testing::TestWithParam<std::tuple<uint32_t, uint64_t>> {};

TEST_P(PcieBenchLargeCopies, H2dAndD2hAtTheProtocolLimitedRate) {
  // 256 MiB in 64 KiB pieces, pinned: H2D is bound by completions, D2H by posted writes; against
  // pcie-bench's 64 KiB read and write figures. Tolerance 1e-4 either way: 1 ps of rounding per
  // 64 KiB transfer (over 1.15 us at Gen5) is under 1e-6 (measured: 4e-9); one header byte more
  // per TLP would move the rate by 1.9e-3 at MPS 512.
  const auto [gen, mps] = GetParam();
  const spec::SystemSpec sys = machine(gen, mps);
  const SizeRate& ref = pcieBenchRate(gen, mps, 65536);
  const double h2d = streamRate(sys, true, 65536, 4096);
  const double d2h = streamRate(sys, false, 65536, 4096);
  EXPECT_NEAR(h2d / bytesPerSecond(ref.readGbps), 1.0, 1e-4) << "H2D " << h2d / 1e9 << " GB/s";
  EXPECT_NEAR(d2h / bytesPerSecond(ref.writeGbps), 1.0, 1e-4) << "D2H " << d2h / 1e9 << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(GenAndMps, PcieBenchLargeCopies, kGenAndMps, genMpsName);

TEST(PcieBenchCompletions, SplitAtRcb64CarryA20ByteHeaderPer64Bytes) {
  // Gen4 x16, MPS 256, completions split at RCB 64 (root_complex.completions_at_rcb): a 64 KiB
  // read against pcie-bench's mem_bw.read with rcb 64, rcb_chunks true. Tolerance as for the
  // large copies.
  const spec::SystemSpec sys =
      machine(4, 256, ", tags: 768, rcb: 64", ", completions_at_rcb: true");
  const double r = streamRate(sys, true, 64 * 1024, 1024);
  EXPECT_NEAR(r / bytesPerSecond(kPcieBenchGen4Mps256Rcb64Read64KiBGbps), 1.0, 1e-4)
      << r / 1e9 << " GB/s";
}

// ---------------------------------------------------------------------------------------------
// Internal consistency: our formulas against arithmetic written here.

TEST(PcieConsistency, DataLinkOverheadAndWireBytesFollowTheSpecArithmetic) {
  // Gen4 x16: ACK and FC every 168 symbols at MPS 256 (8 B each) plus SKP 4/1538 = 9.78 %; every
  // 144 at MPS 128 = 11.37 %; Gen1 x1 at MPS 4096 every 4143 (the PCIe Base Specification's ACK
  // and FC tables).
  EXPECT_NEAR(pcie::dataLinkOverhead(4, 16, 256), 16.0 / 168 + 4.0 / 1538, 1e-12);
  EXPECT_NEAR(pcie::dataLinkOverhead(4, 16, 128), 16.0 / 144 + 4.0 / 1538, 1e-12);
  EXPECT_NEAR(pcie::dataLinkOverhead(1, 1, 4096), 16.0 / 4143 + 4.0 / 1538, 1e-12);
  EXPECT_EQ(pcie::writeWireBytes(257, 256, false), 260u + 2 * 24);  // 1 B rides in a whole DW
  EXPECT_EQ(pcie::writeWireBytes(1, 256, false), 4u + 24);
  EXPECT_EQ(pcie::completionWireBytes(512, 256, true), 512u + 2 * 24);
  EXPECT_EQ(pcie::requestWireBytes(4096, 512, false), 8u * 24);
}

class PcieConsistencySawtooth : public ::testing::TestWithParam<std::tuple<uint32_t, uint64_t>> {};

TEST_P(PcieConsistencySawtooth, OneBytePastMpsCostsAWholeTlp) {
  // One byte past MPS costs a whole TLP header and a doubleword of payload: the rate ratio is
  // (MPS + 1) / (MPS + 4 + 2 x 24) against MPS / (MPS + 24). Both rates are the model's, so this
  // checks the model against its own documented arithmetic; 0.1 % either way as for the
  // validation above (whole-picosecond time).
  const auto [gen, mps] = GetParam();
  const spec::SystemSpec sys = machine(gen, mps);
  const double m = static_cast<double>(mps);
  EXPECT_NEAR(streamRate(sys, false, mps + 1, 20000) / streamRate(sys, false, mps, 20000),
              ((m + 1) / (m + 4 + 48)) / (m / (m + 24)), 1e-3);
}

INSTANTIATE_TEST_SUITE_P(GenAndMps, PcieConsistencySawtooth, kGenAndMps, genMpsName);

TEST(PcieConsistency, FewTagsAndALongRoundTripGiveTagsTimesSizeOverRoundTrip) {
  // 2 tags, MRRS 512, root complex 5 us away: round trip = 2 x 5 us + 2 x 20 ns (link) + 30 ns
  // (DDR4 tRCD + CL + burst) = 10.07 us, so reads get 2 x 512 B / 10.07 us = 101.7 MB/s.
  // pcie-bench assumes latency never limits, so this has no outside figure. 0.5 % either way:
  // the model agrees exactly (the link time of a 512 B completion, 20 ns = 0.2 %, overlaps the
  // other tag's round trip); the margin allows for it being counted in the round trip.
  const spec::SystemSpec sys = machine(4, 256, ", tags: 2", "");  // min(tags 2, outstanding 768)
  spec::SystemSpec slow = sys;
  slow.rootComplex.latency = 5000000;
  const double rate = streamRate(slow, true, 64 * 1024, 64);
  const double expected = 2 * 512 / 10.07e-6;
  EXPECT_NEAR(rate / expected, 1.0, 5e-3) << rate / 1e6 << " MB/s";
}

TEST(PcieConsistency, PageableCopiesAreBoundByTheCpuStagingCopy) {
  // 64 MiB pageable H2D through a 2 MiB pinned buffer at 10 GB/s of CPU copy: 32 chunks of
  // 209.7 us each, the DMA of the last chunk overlapping nothing: 32 x 209.7 us + 2 MiB at
  // pcie-bench's 2 MiB read rate (Gen4 x16, MPS 256: 210.92 Gb/s, 79.5 us) = 6.790 ms. The
  // pipeline is our model's. 1 % either way: the sum leaves out what each chunk adds besides its
  // CPU copy (hand-over and round trip, under 1 us a chunk: at most 0.5 %); measured +0.32 %.
  const spec::SystemSpec sys = machine(4, 256);
  Paths paths(sys);
  PathTiming& timing = paths.timing;
  const Task t = copyTask(true, 64ull << 20, true);
  uint64_t offset = 0;
  Picoseconds ready = 0, done = 0;
  while (offset < t.bytes) {
    const ChunkTiming c = timing.moveChunk(0, t, offset, ready);
    offset += c.bytes;
    ready = c.nextIssue;
    done = std::max(done, c.done);
  }
  const double chunk = 2 << 20;
  const double cpu = chunk / 10e9;
  const double dma = chunk / bytesPerSecond(kPcieBenchGen4Mps256Read2MiBGbps);
  const double expected = 32 * cpu + dma;
  EXPECT_NEAR(static_cast<double>(done) * 1e-12 / expected, 1.0, 0.01);
}

}  // namespace
}  // namespace ascendsim::models
