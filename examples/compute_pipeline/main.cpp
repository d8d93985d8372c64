// Copy/compute overlap: z = x + y over B blocks, double-buffered on two streams. The upload
// stream copies x_i and y_i into device slot i % 2 back to back; the compute stream adds block i
// with aclnnAdd as soon as it has arrived and downloads z_i. So block i+1 uploads while block i
// is added and block i-1 downloads, and the link's two directions and the AI Cores all work at
// once. Events carry the dependencies: add(i) waits for upload(i), and upload(i+2) waits for
// add(i), which frees slot i % 2.
//
// The program first times each stage alone (one block, events around each step), then runs the
// pipeline and compares its total with the arithmetic of the slowest stage: in steady state one
// block leaves per slowest-stage time, and filling and draining the pipeline add the other
// stages once: total = B x slowest + (sum of stages - slowest). It checks every element of z
// and exits non-zero if a result is wrong or the total is more than 5 % off.
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

#define CHECK(expr)                                                                           \
  do {                                                                                        \
    const int rc_ = static_cast<int>(expr);                                                   \
    if (rc_ != 0) {                                                                           \
      const char* msg_ = aclGetRecentErrMsg();                                                \
      std::fprintf(stderr, "%s failed: %d %s\n", #expr, rc_, msg_ ? msg_ : "");               \
      std::exit(2);                                                                           \
    }                                                                                         \
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
  const float tUp = elapsed(marks[0], marks[1]), tAdd = elapsed(marks[1], marks[2]), tDown = elapsed(marks[2], marks[3]);
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
  const float expected = kBlocks * slowest + (tUp + tAdd + tDown - slowest);
  const float serial = kBlocks * (tUp + tAdd + tDown);
  std::printf("pipeline of %d blocks: %.4f ms; slowest-stage arithmetic %d x %.4f + %.4f = %.4f ms; "
              "one stream would take %.4f ms\n",
              kBlocks, total, kBlocks, slowest, tUp + tAdd + tDown - slowest, expected, serial);

  int bad = 0;
  for (int64_t i = 0; i < kElements * kBlocks; ++i) {
    if (hz[i] != hx[i] + hy[i] && ++bad <= 5) std::printf("z[%lld] = %f, expected %f\n", static_cast<long long>(i), hz[i], hx[i] + hy[i]);
  }
  const bool timingOk = std::fabs(total - expected) <= 0.05f * expected;
  std::printf("%s: %d wrong elements; total within %.1f %% of the arithmetic\n",
              bad == 0 && timingOk ? "pipeline ok" : "pipeline FAILED", bad, 100.0 * std::fabs(total - expected) / expected);

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
