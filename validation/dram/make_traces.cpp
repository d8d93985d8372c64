// Writes the request traces of the DRAM reference runs (validation/dram/README.md): the five
// patterns of tests/models/dram_reference_test.cpp, request for request, for DRAMSys (.stl) and
// Ramulator 2 (LD/ST). Standard C++17 only, so run.sh can build it with any compiler:
//
//   c++ -std=c++17 -O2 -o make_traces make_traces.cpp && ./make_traces OUTDIR [REQUESTS]
//
// Each pattern is REQUESTS (default 2 Mi) requests of 64 B, generated exactly as the test does
// (std::mt19937_64 seeded with 7 per pattern, addresses in 1 GiB). Both simulators' HBM2 models
// move 32 B per request (one BL4 burst of a 64-bit pseudo-channel), so each 64 B request is
// written as its two 32 B halves, one after the other.
//  - DRAMSys: the addresses as AscendSim sees them; addressmapping.json decodes them with
//    AscendSim's bank-group-interleaved mapping. Line: `0:\tread\t0xADDR` (time 0 in an absolute
//    trace: every request is due at once and goes as fast as the controller accepts).
//  - Ramulator 2: its linear mapper ChRaBaRoCo cannot express that mapping, so each half is
//    decoded here with AscendSim's mapping into (channel, pseudo-channel, bank group, bank, row,
//    column) and re-encoded as the address ChRaBaRoCo decodes into the same place.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {

constexpr uint64_t kSpan = 1ull << 30;

// One HBM2 stack as configs/memory/hbm2.yaml describes it.
constexpr uint64_t kBurst = 32, kChannels = 8, kPseudo = 2, kGroups = 4, kBanks = 4;
constexpr uint64_t kColumns = 32, kRows = 32768;  // 1 KiB rows of 32 B bursts; 8 GiB in all

struct Place {
  uint64_t channel, pseudo, group, bank, row, column;
};

// bank-group-interleaved: co:2, bg, pc, ba, ch, st, ra, co, ro over the burst index
// (docs/configuration.md): [5] column bit 0, [7:6] bank group, [8] pseudo-channel, [10:9] bank,
// [13:11] channel, [17:14] column bits 4:1, [18+] row.
Place decode(uint64_t address) {
  uint64_t b = address / kBurst;
  Place p{};
  const uint64_t column0 = b % 2;
  b /= 2;
  p.group = b % kGroups;
  b /= kGroups;
  p.pseudo = b % kPseudo;
  b /= kPseudo;
  p.bank = b % kBanks;
  b /= kBanks;
  p.channel = b % kChannels;
  b /= kChannels;
  p.column = (b % (kColumns / 2)) * 2 + column0;
  p.row = b / (kColumns / 2);
  return p;
}

// Ramulator 2 ChRaBaRoCo over HBM2's levels channel, pseudochannel, bankgroup, bank, row,
// column: column in the lowest bits above the 32 B transaction, then row, bank, bank group,
// pseudo-channel and channel.
uint64_t ramulatorAddress(const Place& p) {
  uint64_t a = p.channel;
  a = a * kPseudo + p.pseudo;
  a = a * kGroups + p.group;
  a = a * kBanks + p.bank;
  a = a * kRows + p.row;
  a = a * kColumns + p.column;
  return a * kBurst;
}

struct Pattern {
  const char* file;
  int kind;  // 0 sequential, 1 random, 2 4 KiB stride
  bool allWrites;
  bool twoToOne;
};

const Pattern kPatterns[] = {
    {"sequential_read", 0, false, false}, {"random_read", 1, false, false},
    {"sequential_write", 0, true, false}, {"random_2to1", 1, false, true},
    {"stride_4KiB", 2, false, false},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: make_traces OUTDIR [REQUESTS]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t requests = argc == 3 ? std::strtoull(argv[2], nullptr, 10) : (2ull << 20);
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
        address = (rng() % (kSpan / 64)) * 64;
      } else {
        const uint64_t linear = i * 4096;  // i x 4096 mod 1 GiB, 64 B further on at each wrap
        address = linear % kSpan + linear / kSpan * 64;
      }
      const bool write = pattern.allWrites || (pattern.twoToOne && i % 3 == 0);
      for (uint64_t half = 0; half < 64; half += kBurst) {
        std::fprintf(stl, "0:\t%s\t0x%llx\n", write ? "write" : "read",
                     static_cast<unsigned long long>(address + half));
        std::fprintf(ram, "%s 0x%llx\n", write ? "ST" : "LD",
                     static_cast<unsigned long long>(ramulatorAddress(decode(address + half))));
      }
    }
    if (std::fclose(stl) != 0 || std::fclose(ram) != 0) {
      std::fprintf(stderr, "make_traces: writing %s failed\n", pattern.file);
      return 1;
    }
  }
  return 0;
}
