// Writes the request traces of the DRAM reference runs (validation/dram/README.md): the five
// patterns of tests/models/dram_reference_test.cpp, request for request, for DRAMSys (.stl) and
// Ramulator 2 (LD/ST). Standard C++17 only, so run.sh can build it with any compiler:
//
//   c++ -std=c++17 -O2 -o make_traces make_traces.cpp && ./make_traces OUTDIR [REQUESTS [DEVICE]]
//
// DEVICE is hbm2 (configs/memory/hbm2.yaml, the default) or hbm3 (configs/memory/hbm3.yaml).
// Each pattern is REQUESTS (default 2 Mi) requests of 64 B, generated exactly as the test does
// (std::mt19937_64 seeded with 7 per pattern, addresses in 1 GiB), and random_read_32B REQUESTS
// requests of 32 B. Both devices move 32 B per burst (HBM2: BL4 of a 64-bit pseudo-channel;
// HBM3: BL8 of a 32-bit one), so each 64 B request is written as its two 32 B halves, one after
// the other.
//  - DRAMSys: the addresses as AscendSim sees them; addressmapping.json decodes them with
//    AscendSim's bank-group-interleaved mapping. Line: `0:\tread\t0xADDR` (time 0 in an absolute
//    trace: every request is due at once and goes as fast as the controller accepts).
//  - Ramulator 2: its linear mapper ChRaBaRoCo cannot express that mapping, so each half is
//    decoded here with AscendSim's mapping into (channel, pseudo-channel, stack id, bank group,
//    bank, row, column) and re-encoded as the address ChRaBaRoCo decodes into the same place.
//    For HBM3 (Ramulator 2 v2.0a's HBM3 has no stack-id level) the stack id is the high bit of
//    Ramulator 2's bank group: 2 stack ids x 4 bank groups are its 8 bank groups, so tCCD_L,
//    tRRD_L and tWTR_L stay per stack id and bank group, as JESD238 has them.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {

constexpr uint64_t kSpan = 1ull << 30;
constexpr uint64_t kBurst = 32;

// One stack as the configs/memory preset describes it. HBM2: 8 channels x 2 pseudo-channels,
// 4 bank groups x 4 banks, 32768 rows of 1 KiB (8 GiB). HBM3: 16 channels x 2 pseudo-channels,
// 2 stack ids, 4 bank groups x 4 banks, 16384 rows of 1 KiB (16 GiB).
struct Device {
  uint64_t channels, pseudo, sids, groups, banks, columns, rows;
};
constexpr Device kHbm2{8, 2, 1, 4, 4, 32, 32768};
constexpr Device kHbm3{16, 2, 2, 4, 4, 32, 16384};

struct Place {
  uint64_t channel, pseudo, sid, group, bank, row, column;
};

// bank-group-interleaved: co:2, bg, pc, ba, ch, st, ra, co, ro over the burst index
// (docs/configuration.md; st has one value, ra is the HBM3 stack id). HBM2: [5] column bit 0,
// [7:6] bank group, [8] pseudo-channel, [10:9] bank, [13:11] channel, [17:14] column bits 4:1,
// [18+] row. HBM3: [5], [7:6], [8], [10:9] as HBM2, [14:11] channel, [15] stack id,
// [19:16] column bits 4:1, [20+] row.
Place decode(const Device& d, uint64_t address) {
  uint64_t b = address / kBurst;
  Place p{};
  const uint64_t column0 = b % 2;
  b /= 2;
  p.group = b % d.groups;
  b /= d.groups;
  p.pseudo = b % d.pseudo;
  b /= d.pseudo;
  p.bank = b % d.banks;
  b /= d.banks;
  p.channel = b % d.channels;
  b /= d.channels;
  p.sid = b % d.sids;
  b /= d.sids;
  p.column = (b % (d.columns / 2)) * 2 + column0;
  p.row = b / (d.columns / 2);
  return p;
}

// Ramulator 2 ChRaBaRoCo over the levels channel, pseudochannel, bankgroup, bank, row, column:
// column in the lowest bits above the 32 B transaction, then row, bank, bank group (HBM3: stack
// id x 4 + bank group), pseudo-channel and channel.
uint64_t ramulatorAddress(const Device& d, const Place& p) {
  uint64_t a = p.channel;
  a = a * d.pseudo + p.pseudo;
  a = a * (d.sids * d.groups) + p.sid * d.groups + p.group;
  a = a * d.banks + p.bank;
  a = a * d.rows + p.row;
  a = a * d.columns + p.column;
  return a * kBurst;
}

struct Pattern {
  const char* file;
  int kind;  // 0 sequential, 1 random, 2 4 KiB stride
  bool allWrites;
  bool twoToOne;
  uint64_t bytes = 64;  // per request
};

// random_read_32B: REQUESTS single bursts at random 32 B places of the 1 GiB (mt19937_64 seeded
// 7), a kernel's random 32 B gathers as `ascendsim validate` runs them on the model's HBM3.
const Pattern kPatterns[] = {
    {"sequential_read", 0, false, false}, {"random_read", 1, false, false},
    {"sequential_write", 0, true, false}, {"random_2to1", 1, false, true},
    {"stride_4KiB", 2, false, false},     {"random_read_32B", 1, false, false, 32},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: make_traces OUTDIR [REQUESTS [hbm2|hbm3]]\n");
    return 2;
  }
  const std::string device = argc == 4 ? argv[3] : "hbm2";
  if (device != "hbm2" && device != "hbm3") {
    std::fprintf(stderr, "make_traces: unknown device '%s' (hbm2, hbm3)\n", device.c_str());
    return 2;
  }
  const Device& d = device == "hbm3" ? kHbm3 : kHbm2;
  const std::string dir = argv[1];
  const uint64_t requests = argc >= 3 ? std::strtoull(argv[2], nullptr, 10) : (2ull << 20);
  for (const Pattern& pattern : kPatterns) {
    const std::string stlPath = dir + "/" + pattern.file + ".stl";
    const std::string ramPath = dir + "/" + pattern.file + ".ramulator";
    std::FILE* stl = std::fopen(stlPath.c_str(), "w");
    std::FILE* ram = std::fopen(ramPath.c_str(), "w");
    if (stl == nullptr || ram == nullptr) {
      std::fprintf(stderr, "make_traces: cannot write %s or %s\n", stlPath.c_str(),
                   ramPath.c_str());
      return 1;
    }
    std::mt19937_64 rng(7);
    for (uint64_t i = 0; i < requests; ++i) {
      uint64_t address;
      if (pattern.kind == 0) {
        address = i * 64;
      } else if (pattern.kind == 1) {
        address = (rng() % (kSpan / pattern.bytes)) * pattern.bytes;
      } else {
        const uint64_t linear = i * 4096;  // i x 4096 mod 1 GiB, 64 B further on at each wrap
        address = linear % kSpan + linear / kSpan * 64;
      }
      const bool write = pattern.allWrites || (pattern.twoToOne && i % 3 == 0);
      for (uint64_t half = 0; half < pattern.bytes; half += kBurst) {
        std::fprintf(stl, "0:\t%s\t0x%llx\n", write ? "write" : "read",
                     static_cast<unsigned long long>(address + half));
        std::fprintf(
            ram, "%s 0x%llx\n", write ? "ST" : "LD",
            static_cast<unsigned long long>(ramulatorAddress(d, decode(d, address + half))));
      }
    }
    if (std::fclose(stl) != 0 || std::fclose(ram) != 0) {
      std::fprintf(stderr, "make_traces: writing %s failed\n", pattern.file);
      return 1;
    }
  }
  return 0;
}
