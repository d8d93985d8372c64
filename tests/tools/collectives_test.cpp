// `ascendsim collectives`' conventions, each against hccl_test's arithmetic written out here
// (hicann/oam-tools src/hccl_test): the sizes it visits, the counts and bytes of each call, the
// bus bandwidth factors of nccl-tests, and the check's expected bytes against a reference built
// here from the inputs.

#include <gtest/gtest.h>

#include <cstring>

#include "tools/collectives/collective.h"
#include "tools/collectives/collective_data.h"
#include "tools/collectives/collectives_report.h"
#include "tools/collectives/size_sweep.h"

namespace ascendsim::tools {
namespace {

Collective op(const char* name) {
  return *Collective::named(name);
}

std::vector<uint64_t> sweep(uint64_t b, uint64_t e, std::optional<uint64_t> i,
                            std::optional<double> f, uint32_t ranks, bool align) {
  return SizeSweep({b, e, i, f}, ranks, align).sizes();
}

TEST(CollectivesSizes, ParsedAsHcclTestParsesThem) {
  EXPECT_EQ(parseHcclTestBytes("64M"), 64ull << 20);
  EXPECT_EQ(parseHcclTestBytes("8k"), 8192u);
  EXPECT_EQ(parseHcclTestBytes("1G"), 1ull << 30);
  EXPECT_EQ(parseHcclTestBytes("4096"), 4096u);
  EXPECT_EQ(parseHcclTestBytes("0x100"), 256u);
  EXPECT_FALSE(parseHcclTestBytes("64MB"));
  EXPECT_FALSE(parseHcclTestBytes("-1"));
  EXPECT_FALSE(parseHcclTestBytes("M"));
  EXPECT_FALSE(parseHcclTestBytes(""));
}

TEST(CollectivesSizes, StepsAsHcclTestSteps) {
  // The defaults: -b 64M -e 64M, one size.
  EXPECT_EQ(sweep(64 << 20, 64 << 20, {}, {}, 8, false), std::vector<uint64_t>{64ull << 20});
  // -f 2 from 8K to 64M: 8K x 2^k, 14 sizes.
  const auto doubling = sweep(8192, 64 << 20, {}, 2.0, 8, false);
  ASSERT_EQ(doubling.size(), 14u);
  EXPECT_EQ(doubling.front(), 8192u);
  EXPECT_EQ(doubling.back(), 64ull << 20);
  // No -i: steps of (e - b) / 10 = 100 bytes, 1000 .. 2000.
  const auto linear = sweep(1000, 2000, {}, {}, 8, false);
  ASSERT_EQ(linear.size(), 11u);
  EXPECT_EQ(linear[1], 1100u);
  // Split among 8 ranks: the step rounded up to a multiple of 8 (104): 1000 + 9 x 104 = 1936.
  const auto aligned = sweep(1000, 2000, {}, {}, 8, true);
  ASSERT_EQ(aligned.size(), 10u);
  EXPECT_EQ(aligned[1], 1104u);
  EXPECT_EQ(aligned.back(), 1936u);
  // Above 16 MiB the bounds go down to a multiple of 8 x 512: 24414 x 4096.
  EXPECT_EQ(sweep(100000000, 100000000, {}, {}, 8, true).front(), 99999744u);
  // Below the rank count, up to it.
  EXPECT_EQ(sweep(3, 3, {}, {}, 8, true).front(), 8u);
  // -i 0: -b only; -f wins over -i.
  EXPECT_EQ(sweep(1024, 4096, 0, {}, 1, false).size(), 1u);
  EXPECT_EQ(sweep(1024, 4096, 1, 2.0, 1, false).size(), 3u);
}

TEST(CollectivesLayout, CountsAndBytesAsHcclTest) {
  // all_gather, 2 ranks, 64 MiB fp32: each rank's half, 8 Mi elements; algbw counts the whole.
  CollectiveLayout l = op("all_gather").layout(64 << 20, 4, 2);
  EXPECT_EQ(l.count, 8388608u);
  EXPECT_EQ(l.sendBytes, 32ull << 20);
  EXPECT_EQ(l.recvBytes, 64ull << 20);
  EXPECT_EQ(l.algBytes, 64ull << 20);
  // all_reduce: the count rounded up (1001 bytes of fp32: 251 elements, 1004 bytes).
  l = op("all_reduce").layout(1001, 4, 8);
  EXPECT_EQ(l.count, 251u);
  EXPECT_EQ(l.algBytes, 1004u);
  EXPECT_EQ(l.recvBytes, 1004u);
  // reduce_scatter, 3 ranks, 1000 bytes fp32: 250 elements, ceil(250 / 3) = 84 per rank.
  l = op("reduce_scatter").layout(1000, 4, 3);
  EXPECT_EQ(l.count, 84u);
  EXPECT_EQ(l.sendBytes, 1008u);
  EXPECT_EQ(l.recvBytes, 336u);
  EXPECT_EQ(l.algBytes, 1008u);
  // alltoall, 8 ranks: 16384 fp32 elements are a multiple of 8 x 128 (2048 to each peer); 1000
  // int8 elements are below 8 x 128, so a multiple of 8 (125 to each peer).
  l = op("alltoall").layout(65536, 4, 8);
  EXPECT_EQ(l.count, 2048u);
  EXPECT_EQ(l.sendBytes, 65536u);
  EXPECT_EQ(l.algBytes, 65536u);
  EXPECT_EQ(op("alltoall").layout(1000, 1, 8).count, 125u);
  // 1030 reaches 8 x 128: up to 2 x 1024 elements, 256 to each peer.
  EXPECT_EQ(op("alltoall").layout(1030, 1, 8).count, 256u);
  // broadcast: one buffer.
  l = op("broadcast").layout(4096, 2, 4);
  EXPECT_EQ(l.count, 2048u);
  EXPECT_EQ(l.sendBytes, 4096u);
  EXPECT_EQ(l.recvBytes, 0u);
}

TEST(CollectivesLayout, BusFactorsOfNcclTests) {
  EXPECT_DOUBLE_EQ(op("all_reduce").busFactor(8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(op("all_gather").busFactor(8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(op("reduce_scatter").busFactor(4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(op("alltoall").busFactor(2), 1.0 / 2);
  EXPECT_DOUBLE_EQ(op("scatter").busFactor(8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(op("broadcast").busFactor(8), 1.0);
  EXPECT_DOUBLE_EQ(op("reduce").busFactor(8), 1.0);
  EXPECT_FALSE(Collective::named("all_reduce_test"));
}

// What each rank must end with, built here from the inputs as the collective's definition says.
std::vector<std::vector<uint8_t>> reference(const char* name, const CollectiveLayout& l,
                                            const std::vector<std::vector<uint8_t>>& in,
                                            uint32_t root) {
  const uint32_t n = static_cast<uint32_t>(in.size());
  const uint64_t block = l.blockBytes;
  std::vector<std::vector<uint8_t>> out(n);
  for (uint32_t r = 0; r < n; ++r) {
    const std::string c = name;
    if (c == "all_gather") {
      for (uint32_t s = 0; s < n; ++s) out[r].insert(out[r].end(), in[s].begin(), in[s].end());
    } else if (c == "alltoall") {
      for (uint32_t s = 0; s < n; ++s)
        out[r].insert(out[r].end(), in[s].begin() + r * block, in[s].begin() + (r + 1) * block);
    } else if (c == "broadcast") {
      out[r] = in[root];
    } else if (c == "scatter") {
      out[r].assign(in[root].begin() + r * block, in[root].begin() + (r + 1) * block);
    }
  }
  return out;
}

TEST(CollectivesCheck, DataMovesMatchTheirDefinitionAndAByteOffShows) {
  const uint32_t ranks = 3, root = 1;
  for (const char* name : {"all_gather", "alltoall", "broadcast", "scatter"}) {
    SCOPED_TRACE(name);
    const Collective c = op(name);
    const CollectiveLayout l = c.layout(3000, 2, ranks);
    const CollectiveData data(c, l, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM, ranks, root);
    ASSERT_TRUE(data.checkable());
    std::vector<std::vector<uint8_t>> in;
    for (uint32_t r = 0; r < ranks; ++r) in.push_back(data.input(r));
    EXPECT_NE(in[0], in[1]);  // ranks' data differ, so a block from the wrong rank shows
    auto out = reference(name, l, in, root);
    for (uint32_t r = 0; r < ranks; ++r) {
      EXPECT_FALSE(data.compare(r, out[r])) << "rank " << r;
      out[r][777] ^= 0x10;
      const auto m = data.compare(r, out[r]);
      ASSERT_TRUE(m) << "rank " << r;
      EXPECT_EQ(m->differingBytes, 1u);
      EXPECT_EQ(m->firstOffset, 777u);
    }
  }
}

int32_t int32At(const std::vector<uint8_t>& b, uint64_t i) {
  int32_t v;
  std::memcpy(&v, &b[i * 4], 4);
  return v;
}

TEST(CollectivesCheck, ReductionsMatchAReductionDoneHere) {
  const uint32_t ranks = 4;
  // all_reduce int32 sum: element i of the output is the sum of every rank's element i.
  {
    const Collective c = op("all_reduce");
    const CollectiveLayout l = c.layout(400, 4, ranks);
    const CollectiveData data(c, l, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, ranks, 0);
    std::vector<std::vector<uint8_t>> in;
    for (uint32_t r = 0; r < ranks; ++r) in.push_back(data.input(r));
    std::vector<uint8_t> sum(l.recvBytes);
    for (uint64_t i = 0; i < l.count; ++i) {
      int32_t s = 0;
      for (uint32_t r = 0; r < ranks; ++r) s += int32At(in[r], i);
      std::memcpy(&sum[i * 4], &s, 4);
    }
    EXPECT_NE(int32At(sum, 0), int32At(sum, 1));  // values vary along the buffer
    EXPECT_FALSE(data.compare(2, sum));
    sum[4 * 50] += 1;
    ASSERT_TRUE(data.compare(2, sum));
    EXPECT_EQ(data.compare(2, sum)->firstOffset, 200u);
  }
  // reduce_scatter int32 max: rank r's element k is the max of every rank's element r x count + k.
  {
    const Collective c = op("reduce_scatter");
    const CollectiveLayout l = c.layout(4000, 4, ranks);
    const CollectiveData data(c, l, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, ranks, 0);
    std::vector<std::vector<uint8_t>> in;
    for (uint32_t r = 0; r < ranks; ++r) in.push_back(data.input(r));
    for (uint32_t r = 0; r < ranks; ++r) {
      std::vector<uint8_t> out(l.recvBytes);
      for (uint64_t k = 0; k < l.count; ++k) {
        int32_t m = INT32_MIN;
        for (uint32_t s = 0; s < ranks; ++s) m = std::max(m, int32At(in[s], r * l.count + k));
        std::memcpy(&out[k * 4], &m, 4);
      }
      EXPECT_FALSE(data.compare(r, out)) << "rank " << r;
    }
  }
}

TEST(CollectivesCheck, ResultsATypeCannotHoldAreNotChecked) {
  // 8 ranks' product of r + 1 + i % 3 reaches 10! / 2 = 1814400: past fp16's 65504, within fp32.
  const Collective c = op("all_reduce");
  const CollectiveLayout l = c.layout(1024, 2, 8);
  EXPECT_FALSE(CollectiveData(c, l, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_PROD, 8, 0).checkable());
  EXPECT_TRUE(CollectiveData(c, l, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_PROD, 8, 0).checkable());
  // Sums stay small: 8 ranks, at most 8 x 9 / 2 + 16 = 52 fits int8.
  EXPECT_TRUE(CollectiveData(c, l, HCCL_DATA_TYPE_INT8, HCCL_REDUCE_SUM, 8, 0).checkable());
  // reduce checks the root only.
  const CollectiveData reduce(op("reduce"), l, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 8, 5);
  EXPECT_TRUE(reduce.checksRank(5));
  EXPECT_FALSE(reduce.checksRank(0));
}

// The printed table: hccl_test's titles and number formats, then the bus bandwidth.
SizeResult sizeResult(uint32_t ranks, uint64_t bytes, double us) {
  SizeResult r;
  r.dataSize = bytes;
  r.layout = op("all_reduce").layout(bytes, 4, ranks);
  r.ranks.assign(ranks, RankResult{us, CheckResult::Success, std::nullopt});
  return r;
}

TEST(CollectivesReport, PrintsHcclTestsTableWithBusBandwidth) {
  BenchSettings s;
  s.ranks = 8;
  s.iters = 20;
  s.warmupIters = 10;
  CollectivesReport report(s, "atlas-800t-a2");
  EXPECT_EQ(report.headerLine(8192, 1 << 20),
            "the minbytes is 8192, maxbytes is 1048576, iters is 20, warmup_iters is 10\n");
  EXPECT_EQ(CollectivesReport::tableHeader(),
            "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result: | "
            "bus_bandwidth(GB/s):\n");
  // 1 MiB in 40 us: 1048576 / 40 / 1e3 = 26.2144 GB/s; busbw x 2 x 7 / 8 = 45.8752.
  EXPECT_EQ(report.add(sizeResult(8, 1 << 20, 40.0)),
            "1048576           | 40.00          | 26.21440             | success       | "
            "45.87520\n");
  EXPECT_FALSE(report.anyCheckFailed());
  // A rank whose result differs: its own line, then the row says failed; -c 2 says where.
  SizeResult bad = sizeResult(8, 1 << 20, 40.0);
  bad.ranks[3].check = CheckResult::Failed;
  bad.ranks[3].mismatch = Mismatch{2, 4100, 0x40, 0x00};
  s.check = 2;
  CollectivesReport verbose(s, "atlas-800t-a2");
  const std::string text = verbose.add(bad);
  EXPECT_NE(text.find("local rank_id 3, check result failed, 1048576 "), std::string::npos) << text;
  EXPECT_NE(text.find("rank 3: 2 byte(s) differ; the first is byte 4100 (element 1025): "
                      "expected 0x40, got 0x00"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| failed        | 45.87520\n"), std::string::npos) << text;
  EXPECT_TRUE(verbose.anyCheckFailed());
  // Nothing checked: NULL.
  SizeResult unchecked = sizeResult(8, 1 << 20, 40.0);
  for (RankResult& r : unchecked.ranks) r.check = CheckResult::Skipped;
  EXPECT_NE(report.add(unchecked).find("| NULL          |"), std::string::npos);
  // The CSV holds the same figures.
  EXPECT_NE(report.csv().find("all_reduce,8,fp32,sum,,1048576,262144,40.0000,26.21440,45.87520,"
                              "success\n"),
            std::string::npos)
      << report.csv();
}

}  // namespace
}  // namespace ascendsim::tools
