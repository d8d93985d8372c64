// Physical memory shared between two processes by shareable handle, on one machine served by
// `ascendsim exec --shared` (docs/multiprocess.md), as CANN's physical memory sharing samples do
// it: the exporter ("a") allocates 4 MiB on device 0, maps it twice (the whole, and its second
// 2 MiB again elsewhere), writes it with a 2-block Ascend C kernel through the first mapping and
// exports it; the importer ("b") names its pid in a file, is refused before the exporter names it
// (ACL_ERROR_RT_NO_PERMISSION, 207006), imports, maps and reads every byte, writes its own pattern
// at 1 MiB, which the exporter then reads through both of its mappings. The exporter frees its
// handle while the import holds the memory: the device's free memory stays 4 MiB short until the
// importer frees its handle too, and the withdrawn number is refused (107000). A second allocation
// exported with ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION is imported without naming anyone.
// A third process ("c") imports that allocation, maps it and exits without giving anything back:
// its mapping and handle are released for it, and the device's free memory is what it was at the
// start once every handle has gone. The sides meet through files in the directory given (as the
// samples do). Prints "a ok" / "b ok" / "c ok", or what went wrong.
//   vmm_share a|b|c DIR

#include <acl/acl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ascendsim/ascendc.h"

namespace {
std::string dir;
const char* role = "?";
constexpr size_t kSize = 4u << 20, kHalf = kSize / 2, kMiB = 1u << 20;

[[noreturn]] void die(const std::string& what) {
  const char* msg = aclGetRecentErrMsg();
  std::printf("%s failed: %s (%s)\n", role, what.c_str(), msg ? msg : "");
  std::fflush(stdout);
  std::_Exit(1);
}
void ok(aclError code, const char* what) {
  if (code != ACL_SUCCESS) die(std::string(what) + " returned " + std::to_string(code));
}
void expectCode(aclError code, aclError want, const char* what) {
  if (code != want)
    die(std::string(what) + " returned " + std::to_string(code) + ", not " + std::to_string(want));
}
void put(const std::string& name, uint64_t value) {
  { std::ofstream(dir + "/" + name + ".tmp") << value; }
  std::rename((dir + "/" + name + ".tmp").c_str(), (dir + "/" + name).c_str());
}
uint64_t take(const std::string& name) {
  for (int i = 0; i < 6000; ++i) {  // 60 s
    std::ifstream in(dir + "/" + name);
    uint64_t v = 0;
    if (in >> v) return v;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  die("waiting for " + name);
}
// Byte i of the exporter's pattern (the kernel writes it) and of the importer's.
uint8_t patternA(size_t i) {
  return static_cast<uint8_t>(i * 13 + 5);
}
uint8_t patternB(size_t i) {
  return static_cast<uint8_t>(i * 3 + 200);
}
aclrtPhysicalMemProp deviceZero() {
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.memAttr = ACL_HBM_MEM_NORMAL;
  return prop;
}
void* reserveAndMap(size_t size, size_t offset, aclrtDrvMemHandle handle) {
  void* va = nullptr;
  ok(aclrtReserveMemAddress(&va, size, 0, nullptr, 0), "aclrtReserveMemAddress");
  ok(aclrtMapMem(va, size, offset, handle, 0), "aclrtMapMem");
  aclrtMemAccessDesc access{};
  access.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
  access.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = 0;
  ok(aclrtMemSetAccess(va, size, &access, 1), "aclrtMemSetAccess");
  return va;
}
size_t freeMemory() {
  size_t free = 0, total = 0;
  ok(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total), "aclrtGetMemInfo");
  return free;
}
// Reads [va, va + n) and checks it against want(offset + i).
template <class Want>
void check(const void* va, size_t n, size_t offset, Want want, const char* what) {
  std::vector<uint8_t> back(n);
  ok(aclrtMemcpy(back.data(), n, va, n, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy D2H");
  for (size_t i = 0; i < n; ++i) {
    if (back[i] != want(offset + i))
      die(std::string(what) + ": byte " + std::to_string(offset + i) + " is " +
          std::to_string(back[i]) + ", not " + std::to_string(want(offset + i)));
  }
}
bool importerWrote(size_t i) {
  return i >= kMiB && i < 2 * kMiB;
}

void exporter() {
  aclrtStream stream = nullptr;
  ok(aclrtCreateStream(&stream), "aclrtCreateStream");
  const size_t freeAtStart = freeMemory();
  const aclrtPhysicalMemProp prop = deviceZero();
  aclrtDrvMemHandle handle = nullptr;
  ok(aclrtMallocPhysical(&handle, kSize, &prop, 0), "aclrtMallocPhysical");
  void* whole = reserveAndMap(kSize, 0, handle);
  void* second = reserveAndMap(kHalf, kHalf, handle);  // the same memory's second half, again
  // Two blocks write the pattern through the first mapping, each its half.
  auto* bytes = static_cast<uint8_t*>(whole);
  if (ascendsim::ascendc::launch("WritePattern", 2, nullptr, stream, [=]() {
        const size_t b = static_cast<size_t>(ascendsimAscendCBlockIdx());
        for (size_t i = b * kHalf; i < (b + 1) * kHalf; ++i) bytes[i] = patternA(i);
      }) != 0)
    die("the kernel launch");
  ok(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  check(second, kHalf, kHalf, patternA, "the second mapping after the kernel");
  uint64_t shareable = 0;
  expectCode(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 2, &shareable),
             ACL_ERROR_RT_PARAM_INVALID, "export with flags 2");
  ok(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable),
     "aclrtMemExportToShareableHandle");
  // A second allocation any process may import.
  aclrtDrvMemHandle open = nullptr;
  ok(aclrtMallocPhysical(&open, 2 * kMiB, &prop, 0), "aclrtMallocPhysical (open)");
  void* openVa = reserveAndMap(2 * kMiB, 0, open);
  ok(aclrtMemset(openVa, 2 * kMiB, 0x5A, 2 * kMiB), "aclrtMemset (open)");
  uint64_t openShareable = 0;
  ok(aclrtMemExportToShareableHandle(open, ACL_MEM_HANDLE_TYPE_NONE,
                                     ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &openShareable),
     "aclrtMemExportToShareableHandle (open)");
  put("handle", shareable);
  put("open", openShareable);
  take("c-mapped");  // process c holds a mapping of the open allocation, then exits
  int32_t importer = static_cast<int32_t>(take("pid"));
  take("refused");  // the importer has tried before being named
  ok(aclrtMemSetPidToShareableHandle(shareable, &importer, 1), "aclrtMemSetPidToShareableHandle");
  put("allowed", 1);
  take("written");
  // The importer's bytes at 1 MiB, through the whole mapping and (none there) the second.
  check(
      whole, kSize, 0, [](size_t i) { return importerWrote(i) ? patternB(i) : patternA(i); },
      "the whole mapping after the importer wrote");
  check(second, kHalf, kHalf, patternA, "the second mapping after the importer wrote");
  ok(aclrtUnmapMem(whole), "aclrtUnmapMem");
  ok(aclrtUnmapMem(second), "aclrtUnmapMem (second)");
  ok(aclrtReleaseMemAddress(whole), "aclrtReleaseMemAddress");
  ok(aclrtReleaseMemAddress(second), "aclrtReleaseMemAddress (second)");
  ok(aclrtUnmapMem(openVa), "aclrtUnmapMem (open)");
  ok(aclrtReleaseMemAddress(openVa), "aclrtReleaseMemAddress (open)");
  ok(aclrtFreePhysical(open), "aclrtFreePhysical (open)");
  // The importer still holds the 4 MiB (and the open allocation's 2 MiB until it frees it).
  const size_t beforeFree = freeMemory();
  ok(aclrtFreePhysical(handle), "aclrtFreePhysical");
  if (freeMemory() != beforeFree) die("the exporter's free gave back memory the import holds");
  put("freed", 1);
  take("done");
  // Process c, which exited holding a mapping of the open allocation, has given it back (its
  // connection's end is seen a moment later: up to 10 s).
  for (int i = 0; i < 1000 && freeMemory() != freeAtStart; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (freeMemory() != freeAtStart)
    die("free memory " + std::to_string(freeMemory()) + " after every handle went, not " +
        std::to_string(freeAtStart));
  ok(aclrtDestroyStream(stream), "aclrtDestroyStream");
}

// Maps the open allocation and exits without unmapping, freeing or finalising.
void leaver() {
  aclrtDrvMemHandle open = nullptr;
  ok(aclrtMemImportFromShareableHandle(take("open"), 0, &open), "import (open)");
  void* va = reserveAndMap(2 * kMiB, 0, open);
  check(
      va, 2 * kMiB, 0, [](size_t) { return uint8_t{0x5A}; }, "the open allocation");
  std::printf("c ok\n");
  std::fflush(stdout);
  put("c-mapped", 1);
  std::_Exit(0);
}

void importer() {
  int32_t pid = 0;
  ok(aclrtDeviceGetBareTgid(&pid), "aclrtDeviceGetBareTgid");
  const uint64_t shareable = take("handle");
  aclrtDrvMemHandle handle = nullptr;
  expectCode(aclrtMemImportFromShareableHandle(shareable, 0, &handle), ACL_ERROR_RT_NO_PERMISSION,
             "import before being named");
  expectCode(aclrtMemSetPidToShareableHandle(shareable, &pid, 1), ACL_ERROR_RT_NO_PERMISSION,
             "naming itself");
  expectCode(aclrtMemImportFromShareableHandle(shareable, 99, &handle),
             ACL_ERROR_RT_INVALID_DEVICEID, "import on device 99");
  // The open allocation: no name needed.
  aclrtDrvMemHandle open = nullptr;
  ok(aclrtMemImportFromShareableHandle(take("open"), 0, &open), "import (open)");
  void* openVa = reserveAndMap(2 * kMiB, 0, open);
  check(
      openVa, 2 * kMiB, 0, [](size_t) { return uint8_t{0x5A}; }, "the open allocation");
  // Served queries: the device's verbose error (none), the thread's last task id (one more after
  // a memset queued on a stream of its own: the same 0x5A again).
  aclrtErrorInfo verbose{};
  ok(aclrtGetErrorVerbose(0, &verbose), "aclrtGetErrorVerbose");
  if (verbose.errorType != ACL_RT_NO_ERROR) die("device 0 has an error");
  expectCode(aclrtGetErrorVerbose(99, &verbose), ACL_ERROR_RT_INVALID_DEVICEID,
             "aclrtGetErrorVerbose of device 99");
  uint32_t taskBefore = 0, taskAfter = 0;
  aclrtStream stream = nullptr;
  ok(aclrtCreateStream(&stream), "aclrtCreateStream");
  ok(aclrtGetThreadLastTaskId(&taskBefore), "aclrtGetThreadLastTaskId");
  ok(aclrtMemsetAsync(openVa, 2 * kMiB, 0x5A, 2 * kMiB, stream), "aclrtMemsetAsync");
  ok(aclrtGetThreadLastTaskId(&taskAfter), "aclrtGetThreadLastTaskId");
  if (taskAfter != taskBefore + 1)
    die("last task id " + std::to_string(taskAfter) + " after " + std::to_string(taskBefore));
  ok(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  ok(aclrtDestroyStream(stream), "aclrtDestroyStream");
  ok(aclrtUnmapMem(openVa), "aclrtUnmapMem (open)");
  ok(aclrtReleaseMemAddress(openVa), "aclrtReleaseMemAddress (open)");
  ok(aclrtFreePhysical(open), "aclrtFreePhysical (open)");
  put("pid", static_cast<uint64_t>(pid));
  put("refused", 1);
  take("allowed");
  ok(aclrtMemImportFromShareableHandle(shareable, 0, &handle), "aclrtMemImportFromShareableHandle");
  void* va = reserveAndMap(kSize, 0, handle);
  check(va, kSize, 0, patternA, "the imported memory");
  std::vector<uint8_t> mine(kMiB);
  for (size_t i = 0; i < kMiB; ++i) mine[i] = patternB(kMiB + i);
  ok(aclrtMemcpy(static_cast<uint8_t*>(va) + kMiB, kMiB, mine.data(), kMiB,
                 ACL_MEMCPY_HOST_TO_DEVICE),
     "aclrtMemcpy H2D");
  put("written", 1);
  take("freed");
  // The exporter has freed its handle: the memory is still here, its number withdrawn.
  check(
      va, kSize, 0, [](size_t i) { return importerWrote(i) ? patternB(i) : patternA(i); },
      "the imported memory after the exporter's free");
  aclrtDrvMemHandle late = nullptr;
  expectCode(aclrtMemImportFromShareableHandle(shareable, 0, &late), ACL_ERROR_RT_PARAM_INVALID,
             "import of a withdrawn number");
  const size_t before = freeMemory();
  ok(aclrtUnmapMem(va), "aclrtUnmapMem");
  ok(aclrtReleaseMemAddress(va), "aclrtReleaseMemAddress");
  ok(aclrtFreePhysical(handle), "aclrtFreePhysical");
  if (freeMemory() - before != kSize)
    die("the last handle's free gave back " + std::to_string(freeMemory() - before) + " bytes");
  put("done", 1);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: vmm_share a|b|c DIR\n");
    return 2;
  }
  role = argv[1];
  dir = argv[2];
  ok(aclInit(nullptr), "aclInit");
  ok(aclrtSetDevice(0), "aclrtSetDevice");
  if (std::string(role) == "a") {
    exporter();
  } else if (std::string(role) == "c") {
    leaver();
  } else {
    importer();
  }
  ok(aclrtResetDevice(0), "aclrtResetDevice");
  ok(aclFinalize(), "aclFinalize");
  std::printf("%s ok\n", role);
  return 0;
}
