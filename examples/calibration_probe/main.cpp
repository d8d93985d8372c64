// Copy-time probe for `ascendsim calibrate`: an ordinary AscendCL program that times pinned
// host<->device copies with events and writes one CSV row per size and direction:
//
//   size,direction,seconds
//   1048576,h2d,4.6e-05
//
// Build and run it on the real machine (link CANN's libascendcl.so), then give its CSV to
// `ascendsim calibrate`, which runs this same program on the simulator, so both sides are
// measured the same way: an event before and after one aclrtMemcpyAsync on one stream, the
// median of --repeat runs after one warm-up copy.
//
// Usage: calibration_probe [--device N] [--sizes 4096,65536,...] [--repeat R] [--out FILE]
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace {

struct Options {
  int device = 0;
  std::vector<size_t> sizes = {4096, 65536, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20};
  int repeat = 5;
  std::string out;
};

bool check(aclError ret, const char* what) {
  if (ret == ACL_SUCCESS) return true;
  const char* msg = aclGetRecentErrMsg();
  std::fprintf(stderr, "calibration_probe: %s failed: %d %s\n", what, ret, msg ? msg : "");
  return false;
}
#define CHECK(call) \
  if (!check((call), #call)) return false

bool parseSizes(const char* text, std::vector<size_t>& sizes) {
  sizes.clear();
  std::string list(text);
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || v == 0) return false;
    sizes.push_back(static_cast<size_t>(v));
    start = comma + 1;
  }
  return !sizes.empty();
}

bool parseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    const char* value = argv[++i];
    if (arg == "--device") {
      o.device = std::atoi(value);
    } else if (arg == "--sizes") {
      if (!parseSizes(value, o.sizes)) return false;
    } else if (arg == "--repeat") {
      o.repeat = std::atoi(value);
      if (o.repeat < 1) return false;
    } else if (arg == "--out") {
      o.out = value;
    } else {
      return false;
    }
  }
  return true;
}

// Seconds one asynchronous copy of `size` bytes takes between two events on `stream`.
bool timeCopy(void* dst, const void* src, size_t size, aclrtMemcpyKind kind, aclrtStream stream,
              aclrtEvent start, aclrtEvent end, double& seconds) {
  CHECK(aclrtRecordEvent(start, stream));
  CHECK(aclrtMemcpyAsync(dst, size, src, size, kind, stream));
  CHECK(aclrtRecordEvent(end, stream));
  CHECK(aclrtSynchronizeEvent(end));
  float ms = 0;
  CHECK(aclrtEventElapsedTime(&ms, start, end));
  seconds = static_cast<double>(ms) * 1e-3;
  return true;
}

bool probe(const Options& o, FILE* out) {
  CHECK(aclrtSetDevice(o.device));
  aclrtStream stream = nullptr;
  aclrtEvent start = nullptr, end = nullptr;
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclrtCreateEvent(&start));
  CHECK(aclrtCreateEvent(&end));
  const size_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
  void *host = nullptr, *device = nullptr;
  CHECK(aclrtMallocHost(&host, largest));
  CHECK(aclrtMalloc(&device, largest, ACL_MEM_MALLOC_HUGE_FIRST));
  std::memset(host, 0x5a, largest);
  std::fprintf(out, "size,direction,seconds\n");
  struct Direction {
    const char* name;
    aclrtMemcpyKind kind;
    void* dst;
    const void* src;
  };
  const Direction directions[] = {{"h2d", ACL_MEMCPY_HOST_TO_DEVICE, device, host},
                                  {"d2h", ACL_MEMCPY_DEVICE_TO_HOST, host, device}};
  for (const Direction& d : directions) {
    for (size_t size : o.sizes) {
      double seconds = 0;
      if (!timeCopy(d.dst, d.src, size, d.kind, stream, start, end, seconds))
        return false;  // warm-up
      std::vector<double> runs;
      for (int r = 0; r < o.repeat; ++r) {
        if (!timeCopy(d.dst, d.src, size, d.kind, stream, start, end, seconds)) return false;
        runs.push_back(seconds);
      }
      std::nth_element(runs.begin(), runs.begin() + runs.size() / 2, runs.end());
      std::fprintf(out, "%zu,%s,%.9g\n", size, d.name, runs[runs.size() / 2]);
    }
  }
  CHECK(aclrtFree(device));
  CHECK(aclrtFreeHost(host));
  CHECK(aclrtDestroyEvent(start));
  CHECK(aclrtDestroyEvent(end));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(o.device));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parseArgs(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: %s [--device N] [--sizes BYTES,BYTES,...] [--repeat R] [--out FILE]\n",
                 argv[0]);
    return 2;
  }
  FILE* out = o.out.empty() ? stdout : std::fopen(o.out.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "calibration_probe: cannot write %s: %s\n", o.out.c_str(),
                 std::strerror(errno));
    return 1;
  }
  if (!check(aclInit(nullptr), "aclInit(nullptr)")) return 1;
  const bool ok = probe(o, out);
  aclFinalize();
  if (out != stdout && std::fclose(out) != 0) {
    std::fprintf(stderr, "calibration_probe: cannot write %s: %s\n", o.out.c_str(),
                 std::strerror(errno));
    return 1;
  }
  return ok ? 0 : 1;
}
