// Copy/compute overlap: z = x + y over B blocks, double-buffered on two streams. The upload
// stream copies x_i and y_i into device slot i % 2 back to back; the compute stream adds block i
// with aclnnAdd as soon as it has arrived and downloads z_i. So block i+1 uploads while block i
// is added and block i-1 downloads, and the link's two directions and the AI Cores all work at
// once. Events carry the dependencies: add(i) waits for upload(i), and upload(i+2) waits for
// add(i), which frees slot i % 2.
//
// The program times each stage alone (one block, events around each step) and then the pipeline,
// and compares the pipeline's total with arithmetic that uses none of the simulator's figures,
// for the default machine (Gen4 x16 at MPS 256, 2 stacks of HBM2E):
// - PCIe: 16 GT/s x 16 lanes x 128/130 / 8 = 31.508 GB/s on the wire; ACK and FC-update DLLPs
//   (8 B each per 168 B, PCIe Base Specification rev 5.0 tables 3-7..3-9, 2-46..2-48) and SKP
//   ordered sets (4 B per 1538 B) leave 28.425 GB/s for TLPs (pcie-bench's model: 227.4 Gb/s).
//   H2D data arrives in completions, 256 B per 276 B: 26.365 GB/s; D2H leaves in writes, 256 B
//   per 280 B: 25.989 GB/s.
// - HBM2E: 2 x 1024 bits x 3.2 Gb/s / 8 = 819.2 GB/s less all-bank refresh (350 ns of every
//   3900 ns): 745.67 GB/s; an add of 4 MiB tensors moves 12 MiB through it.
// - Per task (the machine's stated settings): task launch 1 us; a copy's DMA setup 1 us; an H2D
//   copy's first read round trip 0.54 us (20 ns link + 250 ns root complex, each way); a kernel's
//   core start 2 us; event records and waits 1 us each.
// The upload is the slowest stage, so in steady state one block leaves per upload and filling
// and draining add one add and one download: total = B x upload + add + download. It checks
// every element of z and exits non-zero if a result is wrong or the total is more than 1 % off
// that arithmetic (what it leaves out: the posted writes' flight time and the moments two
// streams' tasks wait for each other, about 0.3 %).
//
// Run it as `ascendsim exec --trace pipeline.json -- ./example_compute_pipeline` to see the
// overlap: KERNEL_AICORE on the compute stream's track under MEMCPY_ASYNC on the upload stream's.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

#define CHECK(expr)                                                             \
  do {                                                                          \
    const int rc_ = static_cast<int>(expr);                                     \
    if (rc_ != 0) {                                                             \
      const char* msg_ = aclGetRecentErrMsg();                                  \
      std::fprintf(stderr, "%s failed: %d %s\n", #expr, rc_, msg_ ? msg_ : ""); \
      std::exit(2);                                                             \
    }                                                                           \
  } while (0)

namespace {

constexpr int kBlocks = 8;
constexpr int64_t kElements = 1 << 20;  // 4 MiB of float32 per tensor per block
constexpr size_t kBytes = kElements * sizeof(float);

struct Slot {  // one of the two device buffer sets
  void *x = nullptr, *y = nullptr, *z = nullptr;
  aclTensor *tx = nullptr, *ty = nullptr, *tz = nullptr;
};

aclTensor* tensorAt(void* data) {
  const int64_t shape = kElements, stride = 1;
  return aclCreateTensor(&shape, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &shape, 1, data);
}

void upload(const Slot& s, const float* hx, const float* hy, aclrtStream st) {
  CHECK(aclrtMemcpyAsync(s.x, kBytes, hx, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, st));
  CHECK(aclrtMemcpyAsync(s.y, kBytes, hy, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, st));
}

void add(const Slot& s, aclScalar* one, aclrtStream st) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  CHECK(aclnnAddGetWorkspaceSize(s.tx, s.ty, one, s.tz, &ws, &ex));
  CHECK(aclnnAdd(nullptr, ws, ex, st));
}

void download(const Slot& s, float* hz, aclrtStream st) {
  CHECK(aclrtMemcpyAsync(hz, kBytes, s.z, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, st));
}

float elapsed(aclrtEvent a, aclrtEvent b) {
  float ms = 0;
  CHECK(aclrtEventElapsedTime(&ms, a, b));
  return ms;
}

}  // namespace

int main() {
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream uploads, compute;
  CHECK(aclrtCreateStream(&uploads));
  CHECK(aclrtCreateStream(&compute));

  float *hx = nullptr, *hy = nullptr, *hz = nullptr;
  CHECK(aclrtMallocHost(reinterpret_cast<void**>(&hx), kBytes * kBlocks));
  CHECK(aclrtMallocHost(reinterpret_cast<void**>(&hy), kBytes * kBlocks));
  CHECK(aclrtMallocHost(reinterpret_cast<void**>(&hz), kBytes * kBlocks));
  for (int64_t i = 0; i < kElements * kBlocks; ++i) {
    hx[i] = static_cast<float>(i % 1000);
    hy[i] = 0.25f * static_cast<float>(i % 13);
  }
  Slot slots[2];
  for (Slot& s : slots) {
    for (void** p : {&s.x, &s.y, &s.z}) CHECK(aclrtMalloc(p, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    s.tx = tensorAt(s.x);
    s.ty = tensorAt(s.y);
    s.tz = tensorAt(s.z);
  }
  float oneValue = 1.0f;
  aclScalar* one = aclCreateScalar(&oneValue, ACL_FLOAT);

  // 1. Each stage alone: one block, nothing else running.
  aclrtEvent marks[4];
  for (auto& e : marks) CHECK(aclrtCreateEvent(&e));
  CHECK(aclrtRecordEvent(marks[0], compute));
  upload(slots[0], hx, hy, compute);
  CHECK(aclrtRecordEvent(marks[1], compute));
  add(slots[0], one, compute);
  CHECK(aclrtRecordEvent(marks[2], compute));
  download(slots[0], hz, compute);
  CHECK(aclrtRecordEvent(marks[3], compute));
  CHECK(aclrtSynchronizeStream(compute));
  const float tUp = elapsed(marks[0], marks[1]), tAdd = elapsed(marks[1], marks[2]),
              tDown = elapsed(marks[2], marks[3]);
  const float slowest = std::max({tUp, tAdd, tDown});
  std::printf("alone: upload %.4f ms, add %.4f ms, download %.4f ms per block\n", tUp, tAdd, tDown);

  // 2. The pipeline.
  aclrtEvent start, end, uploaded[kBlocks], added[kBlocks];
  for (aclrtEvent* e : {&start, &end}) CHECK(aclrtCreateEvent(e));
  for (int i = 0; i < kBlocks; ++i) {
    CHECK(aclrtCreateEvent(&uploaded[i]));
    CHECK(aclrtCreateEvent(&added[i]));
  }
  CHECK(aclrtRecordEvent(start, uploads));
  for (int i = 0; i < kBlocks; ++i) {
    const size_t at = static_cast<size_t>(i) * kElements;
    const Slot& s = slots[i % 2];
    if (i >= 2) CHECK(aclrtStreamWaitEvent(uploads, added[i - 2]));  // slot i % 2 is free again
    upload(s, hx + at, hy + at, uploads);
    CHECK(aclrtRecordEvent(uploaded[i], uploads));
    CHECK(aclrtStreamWaitEvent(compute, uploaded[i]));
    add(s, one, compute);
    CHECK(aclrtRecordEvent(added[i], compute));
    download(s, hz + at, compute);
  }
  CHECK(aclrtRecordEvent(end, compute));
  CHECK(aclrtSynchronizeStream(compute));
  const float total = elapsed(start, end);
  // The arithmetic of the header, in ms.
  const double tlp = 16e9 * 16 * 128.0 / 130.0 / 8 * (1.0 - 16.0 / 168 - 4.0 / 1538);
  const double h2d = tlp * 256 / 276, d2h = tlp * 256 / 280;
  const double hbm = 2 * 1024 * 3.2e9 / 8 * (1.0 - 350.0 / 3900);
  const double bytes = static_cast<double>(kBytes);
  // Upload: a wait, two copies, a record.
  const double upArith = (1 + 2 * (1 + 1 + 0.54 + bytes / h2d * 1e6) + 1) * 1e-3;
  const double addArith = (1 + 2 + 3 * bytes / hbm * 1e6) * 1e-3;
  const double downArith = (1 + 1 + bytes / d2h * 1e6) * 1e-3;
  const double expected = kBlocks * upArith + addArith + downArith;
  const float serial = kBlocks * (tUp + tAdd + tDown);
  std::printf("arithmetic: upload %.4f ms, add %.4f ms, download %.4f ms per block\n", upArith,
              addArith, downArith);
  std::printf(
      "pipeline of %d blocks: %.4f ms; arithmetic %d x %.4f + %.4f + %.4f = %.4f ms; "
      "one stream would take %.4f ms\n",
      kBlocks, total, kBlocks, upArith, addArith, downArith, expected, serial);

  int bad = 0;
  for (int64_t i = 0; i < kElements * kBlocks; ++i) {
    if (hz[i] != hx[i] + hy[i] && ++bad <= 5)
      std::printf("z[%lld] = %f, expected %f\n", static_cast<long long>(i), hz[i], hx[i] + hy[i]);
  }
  const bool timingOk = slowest == tUp && std::fabs(total - expected) <= 0.01 * expected;
  std::printf("%s: %d wrong elements; total within %.1f %% of the arithmetic\n",
              bad == 0 && timingOk ? "pipeline ok" : "pipeline FAILED", bad,
              100.0 * std::fabs(total - expected) / expected);

  aclDestroyScalar(one);
  for (Slot& s : slots) {
    for (aclTensor* t : {s.tx, s.ty, s.tz}) aclDestroyTensor(t);
    for (void* p : {s.x, s.y, s.z}) aclrtFree(p);
  }
  for (auto& e : marks) aclrtDestroyEvent(e);
  for (aclrtEvent e : {start, end}) aclrtDestroyEvent(e);
  for (int i = 0; i < kBlocks; ++i) {
    aclrtDestroyEvent(uploaded[i]);
    aclrtDestroyEvent(added[i]);
  }
  for (float* p : {hx, hy, hz}) aclrtFreeHost(p);
  aclrtDestroyStream(uploads);
  aclrtDestroyStream(compute);
  aclrtResetDevice(0);
  aclFinalize();
  return bad == 0 && timingOk ? 0 : 1;
}
