// Memory: allocation rules, argument checks and byte-exact copies in every direction.
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "acl_fixture.h"

class Memory : public AclTest {};
class SmallDevice : public AclTest {
 protected:
  SmallDevice() : AclTest(testData("small-device.yaml")) {}
};

namespace {
std::vector<unsigned char> pattern(size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<unsigned char>((i * 131 + seed * 17 + (i >> 8)) & 0xFF);
  return v;
}
size_t reservedBy(size_t size, aclError (*alloc)(void**, size_t, aclrtMemMallocPolicy),
                  aclrtMemMallocPolicy policy) {
  size_t before = 0, after = 0, total = 0;
  void* p = nullptr;
  aclrtGetMemInfo(ACL_HBM_MEM, &before, &total);
  if (alloc(&p, size, policy) != ACL_SUCCESS) return 0;
  aclrtGetMemInfo(ACL_HBM_MEM, &after, &total);
  aclrtFree(p);
  return before - after;
}
}  // namespace

TEST_F(Memory, MallocReservesRoundedSizePlus32AndAligns64) {
  EXPECT_EQ(reservedBy(1, aclrtMalloc, ACL_MEM_MALLOC_HUGE_FIRST), 64u);          // 32 + 32
  EXPECT_EQ(reservedBy(32, aclrtMalloc, ACL_MEM_MALLOC_NORMAL_ONLY), 64u);        // 32 + 32
  EXPECT_EQ(reservedBy(33, aclrtMalloc, ACL_MEM_MALLOC_HUGE_ONLY), 96u);          // 64 + 32
  EXPECT_EQ(reservedBy(33, aclrtMallocAlign32, ACL_MEM_MALLOC_HUGE_FIRST), 64u);  // no +32
  EXPECT_EQ(reservedBy(33, aclrtMalloc, ACL_MEM_MALLOC_HUGE1G_ONLY), 64u);        // no +32
  EXPECT_EQ(reservedBy(100, aclrtMallocCached, ACL_MEM_MALLOC_HUGE_FIRST), 160u);
  for (int i = 0; i < 16; ++i) {
    void* p = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&p, 1 + i * 7, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  }
  void* h = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, 3));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h) % 64, 0u);
  ASSERT_ACL_OK(aclrtFreeHost(h));
  void* dv = nullptr;
  ASSERT_ACL_OK(acldvppMalloc(&dv, 1000));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(dv) % 128, 0u);
  EXPECT_ACL_ERROR(aclrtFree(dv), ACL_ERROR_RT_MEMORY_FREE);  // DVPP memory: acldvppFree
  ASSERT_ACL_OK(acldvppFree(dv));
}

TEST_F(Memory, AllocationErrors) {
  void* p = nullptr;
  EXPECT_ACL_ERROR(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMalloc(&p, 64, static_cast<aclrtMemMallocPolicy>(9)),
                   ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtMalloc(
      &p, 64,
      static_cast<aclrtMemMallocPolicy>(ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH)));
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_ERROR(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMallocHost(nullptr, 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(acldvppMalloc(&p, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
  int local = 0;
  EXPECT_ACL_ERROR(aclrtFree(&local), ACL_ERROR_RT_MEMORY_FREE);
  EXPECT_ACL_ERROR(aclrtFreeHost(&local), ACL_ERROR_RT_MEMORY_FREE);
  ASSERT_ACL_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_ERROR(aclrtFree(static_cast<char*>(p) + 64),
                   ACL_ERROR_RT_MEMORY_FREE);  // not its start
  EXPECT_ACL_ERROR(aclrtFreeHost(p), ACL_ERROR_RT_MEMORY_FREE);
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_ERROR(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);  // double free
  ASSERT_ACL_OK(aclrtResetDevice(0));
  EXPECT_ACL_ERROR(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(SmallDevice, OutOfMemory) {
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, 3 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_ERROR(aclrtMalloc(&b, 2 << 20, ACL_MEM_MALLOC_HUGE_FIRST),
                   ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_ACL_ERROR(aclrtMalloc(&b, 5 << 20, ACL_MEM_MALLOC_HUGE_FIRST),
                   ACL_ERROR_RT_MEMORY_ALLOCATION);
  ASSERT_ACL_OK(aclrtFree(a));
  ASSERT_ACL_OK(aclrtMalloc(&b, 2 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(b));
}

TEST_F(Memory, EveryDirectionRoundTripsByteExactly) {
  const size_t n = (3 << 20) + 77;  // not a multiple of anything
  const auto src = pattern(n, 1);
  void *pinnedIn = nullptr, *pinnedOut = nullptr, *d1 = nullptr, *d2 = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&pinnedIn, n));
  ASSERT_ACL_OK(aclrtMallocHost(&pinnedOut, n));
  ASSERT_ACL_OK(aclrtMalloc(&d1, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&d2, n, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<unsigned char> pageable(n), back(n);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  // Synchronous: H2H, H2D (pageable), D2D, D2H (pinned).
  ASSERT_ACL_OK(aclrtMemcpy(pinnedIn, n, src.data(), n, ACL_MEMCPY_HOST_TO_HOST));
  ASSERT_ACL_OK(aclrtMemcpy(d1, n, src.data(), n, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(d2, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(pinnedOut, n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(std::memcmp(pinnedOut, src.data(), n), 0);
  EXPECT_EQ(std::memcmp(pinnedIn, src.data(), n), 0);
  // Asynchronous: H2D (pinned), D2D, D2H (pageable, so it completes before returning).
  const auto src2 = pattern(n, 2);
  std::memcpy(pinnedIn, src2.data(), n);
  ASSERT_ACL_OK(aclrtMemcpyAsync(d1, n, pinnedIn, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d2, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(back.data(), n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
  EXPECT_EQ(back, src2);
  // ACL_MEMCPY_DEFAULT and HOST_TO_BUF_TO_DEVICE follow the addresses.
  const auto src3 = pattern(n, 3);
  ASSERT_ACL_OK(aclrtMemcpy(d1, n, src3.data(), n, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpyAsync(pinnedOut, n, d1, n, ACL_MEMCPY_DEFAULT, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(std::memcmp(pinnedOut, src3.data(), n), 0);
  ASSERT_ACL_OK(
      aclrtMemcpyAsyncWithCondition(pageable.data(), n, d1, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
  EXPECT_EQ(pageable, src3);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  for (void* p : {d1, d2}) ASSERT_ACL_OK(aclrtFree(p));
  for (void* p : {pinnedIn, pinnedOut}) ASSERT_ACL_OK(aclrtFreeHost(p));
}

TEST_F(Memory, CopyArgumentChecksInCannOrder) {
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<unsigned char> h(8192);
  // count 0 succeeds before any pointer is looked at.
  ASSERT_ACL_OK(aclrtMemcpy(nullptr, 0, nullptr, 0, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 0, h.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 8, h.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtMemcpy(nullptr, 16, h.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 16, h.data(), 16, static_cast<aclrtMemcpyKind>(7)),
                   ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(
      aclrtMemcpy(d, 16, d, 16, ACL_MEMCPY_DEVICE_TO_DEVICE));  // dst == src: nothing to do
  // The kind must match the pointers.
  EXPECT_ACL_ERROR(aclrtMemcpy(h.data(), 16, d, 16, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  // Async host to host is not supported in run mode host.
  EXPECT_ACL_ERROR(
      aclrtMemcpyAsync(h.data(), 16, h.data() + 100, 16, ACL_MEMCPY_HOST_TO_HOST, nullptr),
      ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  // Overruns of the allocation, and use after free, are refused: nothing is written.
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 8192, h.data(), 4097, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(
      aclrtMemcpy(static_cast<char*>(d) + 4000, 8192, h.data(), 100, ACL_MEMCPY_HOST_TO_DEVICE),
      ACL_ERROR_RT_PARAM_INVALID);
  void* pinned = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&pinned, 100));
  EXPECT_ACL_ERROR(aclrtMemcpy(pinned, 8192, d, 200, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtFreeHost(pinned));
  ASSERT_ACL_OK(aclrtFree(d));
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 16, h.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
}

TEST_F(Memory, MemsetIsBytewise) {
  const size_t n = 100000;
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, n, 0x1234, n));  // only the low byte, 0x34, is used
  ASSERT_ACL_OK(aclrtMemsetAsync(static_cast<char*>(d) + 10, n - 10, 0xAB, 5, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  std::vector<unsigned char> h(n);
  ASSERT_ACL_OK(aclrtMemcpy(h.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
  std::vector<unsigned char> expected(n, 0x34);
  std::fill(expected.begin() + 10, expected.begin() + 15, 0xAB);
  EXPECT_EQ(h, expected);
  ASSERT_ACL_OK(aclrtMemset(d, n, 1, 0));  // count 0: success
  EXPECT_ACL_ERROR(aclrtMemset(d, 10, 1, 11), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtMemset(nullptr, 10, 1, 10), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMemset(d, n + 1, 1, n + 1), ACL_ERROR_RT_PARAM_INVALID);  // overrun
  ASSERT_ACL_OK(aclrtFree(d));
}

class A2Memory : public AclTest {
 protected:
  A2Memory() : AclTest("atlas-800t-a2") {}
};

TEST_F(A2Memory, SmallSynchronousCopiesTakeThePublishedCannTime) {
  // Published: a synchronous aclrtMemcpy device to host takes a median 9.74 us for 4 B, 9.89 us
  // for 8 B and 9.53 us for 64 B (2000 calls each, CANN 9.0.0 on an Atlas A2/A3 board;
  // github.com/hw-native-sys/simpler pull request 2234), flat in size. The preset's
  // api_overhead.memcpy (7.1 us) was set from the 64 B figure, so that one is a calibration
  // reproduced; the 4 B and 8 B ones test that the model's cost does not grow at these sizes.
  // 5 %: the spread between the published sizes' medians is 3.8 %.
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  unsigned char host[64] = {};
  ASSERT_ACL_OK(aclrtMemcpy(d, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE));
  const std::vector<std::pair<size_t, double>> published = {{4, 9.74}, {8, 9.89}, {64, 9.53}};
  for (const auto& [bytes, us] : published) {
    const double took = hostMicroseconds(
        [&] { EXPECT_EQ(aclrtMemcpy(host, 64, d, bytes, ACL_MEMCPY_DEVICE_TO_HOST), 0); });
    EXPECT_NEAR(took, us, 0.05 * us) << bytes << " B";
  }
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST_F(Memory, Memcpy2dMovesRowsByPitch) {
  // A 5 x 7 block out of a 16-byte-pitch host image into a 32-byte-pitch device image and back.
  const size_t width = 7, height = 5, spitch = 16, dpitch = 32;
  std::vector<unsigned char> image = pattern(spitch * height, 9), back(spitch * height, 0);
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, dpitch * height, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, dpitch * height, 0, dpitch * height));
  ASSERT_ACL_OK(
      aclrtMemcpy2d(d, dpitch, image.data(), spitch, width, height, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy2dAsync(back.data(), spitch, d, dpitch, width, height,
                                   ACL_MEMCPY_DEVICE_TO_HOST, nullptr));
  for (size_t r = 0; r < height; ++r) {
    for (size_t c = 0; c < spitch; ++c) {
      EXPECT_EQ(back[r * spitch + c], c < width ? image[r * spitch + c] : 0) << r << "," << c;
    }
  }
  ASSERT_ACL_OK(
      aclrtMemcpy2d(d, dpitch, image.data(), spitch, 0, height, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL_ERROR(
      aclrtMemcpy2d(d, 4, image.data(), spitch, width, height, ACL_MEMCPY_HOST_TO_DEVICE),
      ACL_ERROR_INVALID_PARAM);  // width > dpitch
  EXPECT_ACL_ERROR(
      aclrtMemcpy2d(d, dpitch, nullptr, spitch, width, height, ACL_MEMCPY_HOST_TO_DEVICE),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(
      aclrtMemcpy2d(d, dpitch, image.data(), spitch, width, height + 1, ACL_MEMCPY_HOST_TO_DEVICE),
      ACL_ERROR_RT_PARAM_INVALID);  // the device footprint overruns
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST(MemorySparse, EightDevicesOf64GiBCostNothingUntilWritten) {
  setenv("ASCENDSIM_CONFIG", "atlas-800t-a2", 1);
  ASSERT_ACL_OK(aclInit(nullptr));
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  std::vector<void*> ptrs;
  for (int dev = 0; dev < 8; ++dev) {
    ASSERT_ACL_OK(aclrtSetDevice(dev));
    void* p = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&p, (64ull << 30) - 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMemset(p, 4096, 7, 4096));
    ptrs.push_back(p);
  }
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB of resident memory grew";
  for (int dev = 0; dev < 8; ++dev) {
    ASSERT_ACL_OK(aclrtSetDevice(dev));
    ASSERT_ACL_OK(aclrtFree(ptrs[static_cast<size_t>(dev)]));
    ASSERT_ACL_OK(aclrtResetDevice(dev));
  }
  ASSERT_ACL_OK(aclFinalize());
}

namespace {
// Simulated milliseconds of one copy call on the default stream.
template <class Copy>
float timed(Copy&& copy) {
  return elapsedMs([&] { EXPECT_EQ(copy(), ACL_SUCCESS); });
}
}  // namespace

TEST_F(Memory, NarrowRowsPayPerRowPacketOverhead) {
  // 1 MiB as 1 Mi rows of 1 byte (pitch 2) against the same 1 MiB contiguous, pinned, on the
  // default machine's Gen4 x16 link. D2H: every row is its own posted write of 24 B header and one
  // doubleword of data, 28 B on the wire against 280 B per 256 B contiguous: 25.6 times the wire
  // time. H2D: every row is its own read request (a tag for a round trip), slower still. Both
  // must be at least 20 times slower than the contiguous copy.
  const size_t n = 1 << 20;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, 2 * n));
  ASSERT_ACL_OK(aclrtMalloc(&d, 2 * n, ACL_MEM_MALLOC_HUGE_FIRST));
  const float d2h =
      timed([&] { return aclrtMemcpyAsync(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, nullptr); });
  const float d2hRows = timed(
      [&] { return aclrtMemcpy2dAsync(h, 2, d, 2, 1, n, ACL_MEMCPY_DEVICE_TO_HOST, nullptr); });
  const float h2d =
      timed([&] { return aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr); });
  const float h2dRows = timed(
      [&] { return aclrtMemcpy2dAsync(d, 2, h, 2, 1, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr); });
  EXPECT_GE(d2hRows / d2h, 20.0f) << d2hRows << " ms against " << d2h << " ms";
  EXPECT_GE(h2dRows / h2d, 20.0f) << h2dRows << " ms against " << h2d << " ms";
  // The D2H rows are bound by the link: 1 Mi x 28 B at Gen4 x16's TLP rate (31.51 GB/s less 9.78 %
  // DLLP and SKP overhead = 28.43 GB/s) = 1.033 ms, plus a few us of launch, setup and latency.
  EXPECT_NEAR(d2hRows, 1048576.0 * 28 / 28.43e9 * 1e3, 0.03);
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

// Issue #30: 2D copies of rows of 64 to 512 B on the Atlas 800T A2 preset (Gen4 x16, MPS 256,
// MRRS 512, 256 tags, behind a switch). A row that is not contiguous with the next is a TLP of its
// own, so each direction runs at pcie-bench's rate for transfers of W bytes (reference.csv, Gen4
// MPS 256; TLP rate 227.400121 Gb/s = 28.425 GB/s): D2H writes carry 24 B of header per TLP, so
// W / (W + 24) of it: 20.673, 23.937, 25.989, 25.989 GB/s for 64, 128, 256, 512 B (512 B rows
// are two TLPs at MPS); H2D completions 20 B: 21.657, 24.584, 26.365, 26.365 GB/s, and reads also
// at most tags x W / round trip: 256 x W / 780 ns (host DDR4 30 ns + 2 x (20 ns link + 105 ns
// switch + 250 ns root complex)) = 21.005 GB/s for 64 B rows, which binds. The rate is taken from
// the difference between 16 MiB and 8 MiB of rows, so the fixed costs (launch, setup, API, the
// first round trip) cancel. Tolerance 1 % either way: the pieces of a tag-bound copy hold their
// requests 2 x 64 B / 21.657 GB/s past the round trip (0.7 %); 512 B reads behind this switch
// reach 0.995 of the link (read_concurrency_test.cpp). Before the fix 64 B rows were read at
// 3.2 GB/s, 128 B at 6.7, 256 B at 13.6.
class NarrowRows : public AclTest {
 protected:
  NarrowRows() : AclTest("atlas-800t-a2") {}
};

TEST_F(NarrowRows, RunAtThePcieRateForTheirTlpSize) {
  struct Row {
    size_t width;
    double h2dGBps, d2hGBps;
  };
  const Row rows[] = {
      {64, 21.005, 20.673}, {128, 24.584, 23.937}, {256, 26.365, 25.989}, {512, 26.365, 25.989}};
  const size_t most = 16u << 20;
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, 2 * most));
  ASSERT_ACL_OK(aclrtMalloc(&d, 2 * most, ACL_MEM_MALLOC_HUGE_FIRST));
  for (const Row& r : rows) {
    const size_t pitch = 2 * r.width;
    float h2d[2] = {}, d2h[2] = {};
    for (int i = 0; i < 2; ++i) {
      const size_t height = (most >> (1 - i)) / r.width;  // 8 MiB, then 16 MiB of rows
      h2d[i] = timed([&] {
        return aclrtMemcpy2dAsync(d, pitch, h, pitch, r.width, height, ACL_MEMCPY_HOST_TO_DEVICE,
                                  nullptr);
      });
      d2h[i] = timed([&] {
        return aclrtMemcpy2dAsync(h, pitch, d, pitch, r.width, height, ACL_MEMCPY_DEVICE_TO_HOST,
                                  nullptr);
      });
    }
    const double bytes = most / 2;
    const double h2dRate = bytes / ((h2d[1] - h2d[0]) * 1e-3) / 1e9,
                 d2hRate = bytes / ((d2h[1] - d2h[0]) * 1e-3) / 1e9;
    EXPECT_NEAR(h2dRate / r.h2dGBps, 1.0, 0.01) << r.width << " B rows H2D " << h2dRate << " GB/s";
    EXPECT_NEAR(d2hRate / r.d2hGBps, 1.0, 0.01) << r.width << " B rows D2H " << d2hRate << " GB/s";
  }
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Memory, SizesNearTheTopOfTheAddressSpaceAreRefusedNotWrapped) {
  // Issue #16 (1, 3, 4): sizes near 2^64 used to wrap in `pinned + size` and `address + n`,
  // giving false successes and later heap overflows.
  void* p = nullptr;
  EXPECT_ACL_ERROR(aclrtMallocHost(&p, SIZE_MAX), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_ACL_ERROR(aclrtMallocHost(&p, SIZE_MAX - 62), ACL_ERROR_RT_MEMORY_ALLOCATION);
  void *h = nullptr, *d = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, 4096));
  ASSERT_ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  // Copies and memsets of SIZE_MAX bytes (destMax as large) from and to real allocations.
  EXPECT_ACL_ERROR(aclrtMemcpy(d, SIZE_MAX, h, SIZE_MAX, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtMemcpy(h, SIZE_MAX, d, SIZE_MAX, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtMemset(d, SIZE_MAX, 0, SIZE_MAX), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtMemset(h, SIZE_MAX, 0, SIZE_MAX),
                   ACL_ERROR_RT_PARAM_INVALID);  // was a segfault
  EXPECT_ACL_ERROR(aclrtMemcpy(d, SIZE_MAX - 8, h, SIZE_MAX - 8, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  // A copy that starts one past the end of a pinned buffer runs off that buffer.
  char* end = static_cast<char*>(h) + 4096;
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 64, end, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtMemcpy(end, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_RT_PARAM_INVALID);
  // 2D copies whose pitch x height does not fit in 64 bits.
  EXPECT_ACL_ERROR(aclrtMemcpy2d(d, SIZE_MAX / 2, h, 64, 64, 4, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_RT_PARAM_INVALID);
  // Nothing was touched: the buffers still work.
  std::vector<uint8_t> bytes(4096, 7), back(4096, 0);
  std::memcpy(h, bytes.data(), 4096);
  ASSERT_ACL_OK(aclrtMemcpy(d, 4096, h, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, bytes);
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST_F(Memory, FreeingMemoryAQueuedCopyUsesKeepsItUntilTheCopyEnds) {
  // #16 item 2: the program frees the source of a queued asynchronous copy, and allocates and
  // fills a new buffer. The copy still delivers the bytes the source held, as the driver keeps
  // memory alive until its tasks end (a 1 MiB host buffer handed back to the system at the free
  // would be unmapped, and the copy would fault or read other bytes); likewise for a device
  // buffer freed under a queued copy from it, which stays allocated until the copy ends: device
  // memory's free figure does not grow at the free, only after the copy, by its 1 MiB + 32 B.
  const size_t n = 1 << 20;
  void *h = nullptr, *d = nullptr, *back = nullptr;
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtMallocHost(&h, n));
  ASSERT_ACL_OK(aclrtMallocHost(&back, n));
  ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  std::memset(h, 0x5a, n);
  ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtFreeHost(h));                               // the copy has not run yet
  EXPECT_ACL_ERROR(aclrtFreeHost(h), ACL_ERROR_RT_MEMORY_FREE);  // still a double free
  void* reused = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&reused, n));
  std::memset(reused, 0x11, n);
  ASSERT_ACL_OK(aclrtMemcpyAsync(back, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
  EXPECT_NE(reused, h);
  size_t before = 0, held = 0, after = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &before, &total));
  ASSERT_ACL_OK(aclrtFree(d));  // the copy back has not run yet either
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &held, &total));
  EXPECT_EQ(held, before);
  EXPECT_ACL_ERROR(aclrtMemsetAsync(d, n, 0, n, s),
                   ACL_ERROR_RT_PARAM_INVALID);  // freed for the program
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &after, &total));
  EXPECT_EQ(after - held, n + 32);
  const auto* bytes = static_cast<const unsigned char*>(back);
  EXPECT_EQ(bytes[0], 0x5a);
  EXPECT_EQ(bytes[n - 1], 0x5a);
  EXPECT_EQ(std::count(bytes, bytes + n, 0x5a), static_cast<std::ptrdiff_t>(n));
  ASSERT_ACL_OK(aclrtFreeHost(reused));
  ASSERT_ACL_OK(aclrtFreeHost(back));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

namespace {
// Whether [p, p + bytes) lies in mappings of this process that are private (not shared).
bool privatelyMapped(const void* p, size_t bytes) {
  const auto begin = reinterpret_cast<uintptr_t>(p), end = begin + bytes;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  uintptr_t covered = begin;
  while (covered < end && std::getline(maps, line)) {
    unsigned long long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %7s", &lo, &hi, perms) < 3 || hi <= covered) continue;
    if (lo > covered || perms[3] != 'p') return false;
    covered = hi;
  }
  return covered >= end;
}
}  // namespace

TEST(MemoryAtFinalize, ACopyQueuedIntoRegisteredMemoryLandsAndThePagesAreTheProgramsAgain) {
  // 1 MiB of the program's own memory registered (aclrtHostRegister, never unregistered), and an
  // asynchronous copy into it of 1 MiB of device memory, every byte 9, not waited for: aclFinalize
  // lets the copy end first (every queued task ends, as CANN's resets the devices), so the
  // buffer holds 9 in every byte afterwards, and its pages are private memory of the program's
  // again (the registration is gone with aclFinalize). On a served machine the pages were shared
  // with the machine; they stayed shared after aclFinalize (the machine had let go of them), and
  // the copy was cancelled with its stream, the buffer keeping its 0s.
  constexpr size_t kBytes = 1 << 20;
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto* host = static_cast<uint8_t*>(p);
  std::fill(host, host + kBytes, 0);
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, kBytes, 9, kBytes));
  void* mapped = nullptr;
  ASSERT_ACL_OK(aclrtHostRegister(host, kBytes, ACL_HOST_REGISTER_MAPPED, &mapped));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(host, kBytes, d, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclFinalize());
  EXPECT_EQ(std::count(host, host + kBytes, 9), static_cast<std::ptrdiff_t>(kBytes));
  EXPECT_TRUE(privatelyMapped(host, kBytes));
  munmap(p, kBytes);
}

TEST_F(AclTest, IpcKeysShareDeviceMemoryAndOutliveTheExportersFree) {
  // A key is 65 bytes with its NUL; only processes the exporter names may import (this process
  // names itself); the import is the same memory; the exporter's aclrtFree leaves it to the
  // importer until the key is closed; made-up keys and flags are refused. Between processes the
  // same calls work on one machine served by ascendsim exec --shared (tests: shared_machine.*).
  int32_t pid = 0;
  ASSERT_ACL_OK(aclrtDeviceGetBareTgid(&pid));
  EXPECT_EQ(pid, static_cast<int32_t>(getpid()));
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  char shortKey[8] = {};
  EXPECT_ACL_ERROR(aclrtIpcMemGetExportKey(d, 4096, shortKey, sizeof shortKey, 0),
                   ACL_ERROR_INVALID_PARAM);
  char key[65] = {};
  EXPECT_ACL_ERROR(aclrtIpcMemGetExportKey(nullptr, 4096, key, sizeof key, 0),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtIpcMemGetExportKey(d, 4096, key, sizeof key, 7), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtIpcMemGetExportKey(d, 4096, key, sizeof key, 0));
  EXPECT_ACL_ERROR(aclrtIpcMemImportByKey(&d, "made-up", 0), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtIpcMemSetImportPid(key, &pid, 1));
  void* imported = nullptr;
  ASSERT_ACL_OK(aclrtIpcMemImportByKey(&imported, key, 0));
  EXPECT_EQ(imported, d);
  std::vector<uint8_t> bytes(4096, 0x3c), back(4096, 0);
  ASSERT_ACL_OK(aclrtMemcpy(d, 4096, bytes.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtFree(d));  // the importer still has it
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), 4096, imported, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, bytes);
  EXPECT_ACL_ERROR(aclrtFree(d), ACL_ERROR_RT_MEMORY_FREE);  // freed already
  ASSERT_ACL_OK(aclrtIpcMemClose(key));                      // the last import: released now
  EXPECT_ACL_ERROR(aclrtMemcpy(back.data(), 4096, imported, 4096, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_ACL_ERROR(aclrtIpcMemClose(key), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtIpcMemClose(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(AclTest, MappedPhysicalMemoryIsDeviceMemoryAndKeepsItsBytes) {
  // 4 MiB of physical memory mapped into a reserved 8 MiB range: copies and memsets reach it;
  // mapped a second time at the other half while the first mapping stays, both hold the same
  // bytes (a memset through one is read through the other); unmapped and mapped again, it still
  // holds them; the rules (2 MiB granularity, no free while mapped) give CANN's codes; the
  // capacity it takes shows in aclrtGetMemInfo.
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {0, ACL_MEM_LOCATION_TYPE_DEVICE};
  size_t granularity = 0;
  ASSERT_ACL_OK(
      aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity));
  EXPECT_EQ(granularity, 2u << 20);
  size_t freeBefore = 0, total = 0, freeAfter = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeBefore, &total));
  const size_t size = 4u << 20;
  aclrtDrvMemHandle handle = nullptr;
  EXPECT_ACL_ERROR(aclrtMallocPhysical(&handle, size + 1, &prop, 0), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtMallocPhysical(&handle, size, &prop, 0));
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeAfter, &total));
  EXPECT_EQ(freeBefore - freeAfter, size);
  void* va = nullptr;
  ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 2 * size, 0, nullptr, 0));
  uint8_t byte = 0;
  EXPECT_ACL_ERROR(aclrtMemcpy(&byte, 1, va, 1, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_RT_PARAM_INVALID);  // not mapped
  ASSERT_ACL_OK(aclrtMapMem(va, size, 0, handle, 0));
  aclrtMemAccessDesc access{};
  access.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
  access.location = {0, ACL_MEM_LOCATION_TYPE_DEVICE};
  ASSERT_ACL_OK(aclrtMemSetAccess(va, size, &access, 1));
  access.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
  EXPECT_ACL_ERROR(aclrtMemSetAccess(va, size, &access, 1), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  std::vector<uint8_t> data(size);
  for (size_t i = 0; i < size; ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
  ASSERT_ACL_OK(aclrtMemcpy(va, size, data.data(), size, ACL_MEMCPY_HOST_TO_DEVICE));
  // The second mapping: the physical memory's second 2 MiB at the reservation's second half.
  void* other = static_cast<uint8_t*>(va) + size;
  const size_t half = size / 2;
  ASSERT_ACL_OK(aclrtMapMem(other, half, half, handle, 0));
  std::vector<uint8_t> back(half);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), half, other, half, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_TRUE(std::equal(back.begin(), back.end(), data.begin() + half));
  ASSERT_ACL_OK(aclrtMemset(other, 16, 0xEE, 16));  // offset `half` of the physical memory
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), 16, static_cast<uint8_t*>(va) + half, 16,
                            ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(std::count(back.begin(), back.begin() + 16, 0xEE), 16);
  for (size_t i = 0; i < 16; ++i) data[half + i] = 0xEE;
  EXPECT_ACL_ERROR(aclrtMapMem(other, half, 0, handle, 0),
                   ACL_ERROR_INVALID_PARAM);  // mapped already
  EXPECT_ACL_ERROR(aclrtFreePhysical(handle), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtFree(va),
                   ACL_ERROR_RT_MEMORY_FREE);  // a mapping is undone by aclrtUnmapMem
  EXPECT_ACL_ERROR(aclrtReleaseMemAddress(va), ACL_ERROR_INVALID_PARAM);  // still mapped
  ASSERT_ACL_OK(aclrtUnmapMem(va));
  ASSERT_ACL_OK(aclrtUnmapMem(other));
  EXPECT_ACL_ERROR(aclrtMemcpy(&byte, 1, other, 1, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_RT_PARAM_INVALID);  // unmapped
  ASSERT_ACL_OK(aclrtMapMem(other, size, 0, handle, 0));
  back.resize(size);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), size, other, size, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_TRUE(back == data);
  ASSERT_ACL_OK(aclrtUnmapMem(other));
  ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
  ASSERT_ACL_OK(aclrtFreePhysical(handle));
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeAfter, &total));
  EXPECT_EQ(freeAfter, freeBefore);
}

TEST_F(AclTest, ShareableHandlesImportPhysicalMemoryForNamedProcesses) {
  // Within one process (between processes: runtime.shared_machine.vmm): the exporter's own pid
  // may import; the import is a second handle to the same bytes, which outlive the exporter's
  // aclrtFreePhysical until the import is freed too; CANN's codes: handleType other than NONE
  // and NULL pointers 100000 (ACL layer), flags above DISABLE_PID_VALIDATION 107000 (runtime),
  // an unknown shareable handle 107000 (the driver's invalid value), a device the machine lacks
  // 107001.
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {0, ACL_MEM_LOCATION_TYPE_DEVICE};
  const size_t size = 2u << 20;
  size_t freeBefore = 0, total = 0, freeNow = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeBefore, &total));
  aclrtDrvMemHandle handle = nullptr;
  ASSERT_ACL_OK(aclrtMallocPhysical(&handle, size, &prop, 0));
  uint64_t shareable = 0;
  EXPECT_ACL_ERROR(
      aclrtMemExportToShareableHandle(nullptr, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(
      aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_POSIX, 0, &shareable),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, nullptr),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 2, &shareable),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable));
  uint64_t again = 0;
  ASSERT_ACL_OK(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, &again));
  EXPECT_EQ(again, shareable);  // one number per physical memory
  int32_t pid = 0;
  ASSERT_ACL_OK(aclrtDeviceGetBareTgid(&pid));
  EXPECT_ACL_ERROR(aclrtMemSetPidToShareableHandle(shareable, nullptr, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMemSetPidToShareableHandle(shareable, &pid, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMemSetPidToShareableHandle(shareable + 1, &pid, 1),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtMemSetPidToShareableHandle(shareable, &pid, 1));
  aclrtDrvMemHandle imported = nullptr;
  EXPECT_ACL_ERROR(aclrtMemImportFromShareableHandle(shareable, 0, nullptr),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtMemImportFromShareableHandle(shareable, 99, &imported),
                   ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtMemImportFromShareableHandle(12345, 0, &imported),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtMemImportFromShareableHandle(shareable, 0, &imported));
  EXPECT_NE(imported, handle);
  // Each handle mapped once: the same bytes.
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_ACL_OK(aclrtReserveMemAddress(&a, size, 0, nullptr, 0));
  ASSERT_ACL_OK(aclrtReserveMemAddress(&b, size, 0, nullptr, 0));
  ASSERT_ACL_OK(aclrtMapMem(a, size, 0, handle, 0));
  ASSERT_ACL_OK(aclrtMapMem(b, size, 0, imported, 0));
  const std::vector<unsigned char> bytes = pattern(size, 29);
  ASSERT_ACL_OK(aclrtMemcpy(a, size, bytes.data(), size, ACL_MEMCPY_HOST_TO_DEVICE));
  std::vector<unsigned char> back(size);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), size, b, size, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_TRUE(back == bytes);
  // The exporter lets go: the number is withdrawn, the import keeps the memory and its capacity.
  ASSERT_ACL_OK(aclrtUnmapMem(a));
  ASSERT_ACL_OK(aclrtFreePhysical(handle));
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeNow, &total));
  EXPECT_EQ(freeBefore - freeNow, size);
  aclrtDrvMemHandle late = nullptr;
  EXPECT_ACL_ERROR(aclrtMemImportFromShareableHandle(shareable, 0, &late),
                   ACL_ERROR_RT_PARAM_INVALID);
  std::fill(back.begin(), back.end(), 0);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), size, b, size, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_TRUE(back == bytes);
  ASSERT_ACL_OK(aclrtUnmapMem(b));
  ASSERT_ACL_OK(aclrtFreePhysical(imported));  // the last handle: the memory goes
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeNow, &total));
  EXPECT_EQ(freeNow, freeBefore);
  ASSERT_ACL_OK(aclrtReleaseMemAddress(a));
  ASSERT_ACL_OK(aclrtReleaseMemAddress(b));
}

TEST_F(AclTest, PhysicalMemoryOutlivesTheResetThatUndoesItsMappings) {
  // The device's last reset releases its memory: mappings and reservations go (aclrtUnmapMem then
  // finds no mapping: 100000), the physical memory's handle and bytes stay, and its capacity is
  // still taken until aclrtFreePhysical, which a mapping no longer blocks.
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {0, ACL_MEM_LOCATION_TYPE_DEVICE};
  const size_t size = 2u << 20;
  size_t freeBefore = 0, total = 0, freeNow = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeBefore, &total));
  aclrtDrvMemHandle handle = nullptr;
  ASSERT_ACL_OK(aclrtMallocPhysical(&handle, size, &prop, 0));
  void* va = nullptr;
  ASSERT_ACL_OK(aclrtReserveMemAddress(&va, size, 0, nullptr, 0));
  ASSERT_ACL_OK(aclrtMapMem(va, size, 0, handle, 0));
  const std::vector<unsigned char> bytes = pattern(size, 41);
  ASSERT_ACL_OK(aclrtMemcpy(va, size, bytes.data(), size, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtResetDevice(0));  // the fixture's only reference: the device is released
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_ERROR(aclrtUnmapMem(va), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeNow, &total));
  EXPECT_EQ(freeBefore - freeNow, size);
  ASSERT_ACL_OK(aclrtReserveMemAddress(&va, size, 0, nullptr, 0));
  ASSERT_ACL_OK(aclrtMapMem(va, size, 0, handle, 0));
  std::vector<unsigned char> back(size);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), size, va, size, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_TRUE(back == bytes);
  ASSERT_ACL_OK(aclrtUnmapMem(va));
  ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
  ASSERT_ACL_OK(aclrtFreePhysical(handle));
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeNow, &total));
  EXPECT_EQ(freeNow, freeBefore);
}
