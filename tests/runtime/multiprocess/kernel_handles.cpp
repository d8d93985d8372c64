// Handles of kernel binaries, their functions and argument lists are the process's own on one
// machine served by `ascendsim exec --shared` (docs/multiprocess.md), as on hardware, where they
// are addresses in the process's memory. The owner loads the binary (tests/runtime/
// kernel_binary_module.cpp), looks up Fill and starts an argument list, writes the three handles
// to a file and waits; the other process is refused each of them with ACL_ERROR_RT_INVALID_HANDLE
// (107017) in every call that takes it, with a message, then loads the binary itself and runs
// Fill over 2 blocks on 256 elements of its device memory (value 40: 40 in elements 0-127, 41 in
// 128-255, every one checked), and says it is done. The owner then exits without unloading: the
// server unloads its binary for it. Prints "owner ok" / "other ok", or what went wrong.
//   kernel_handles owner|other MODULE DIR

#include <acl/acl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "job_process.h"

namespace {
using job::check;
using job::die;
using job::role;
using job::waitForFile;

// `code` must be 107017 with a message naming the other process.
void refused(aclError code, const char* what) {
  job::refused(code, ACL_ERROR_RT_INVALID_HANDLE, "another process", what);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  role = argv[1];
  const std::string module = argv[2], dir = argv[3];
  const bool owner = std::strcmp(role, "owner") == 0;
  check(aclInit(nullptr), "aclInit");
  check(aclrtSetDevice(0), "aclrtSetDevice");
  if (owner) {
    aclrtBinHandle binary = nullptr;
    aclrtFuncHandle fill = nullptr;
    aclrtArgsHandle args = nullptr;
    check(aclrtBinaryLoadFromFile(module.c_str(), nullptr, &binary), "load");
    check(aclrtBinaryGetFunction(binary, "Fill", &fill), "get function");
    check(aclrtKernelArgsInit(fill, &args), "args init");
    {
      std::ofstream out(dir + "/handles.tmp");
      out << reinterpret_cast<uintptr_t>(binary) << ' ' << reinterpret_cast<uintptr_t>(fill) << ' '
          << reinterpret_cast<uintptr_t>(args) << '\n';
    }
    std::rename((dir + "/handles.tmp").c_str(), (dir + "/handles").c_str());
    if (!waitForFile(dir + "/done")) die("the other process never finished");
    std::printf("owner ok\n");
    return 0;  // without unloading: the server unloads the binary for it
  }
  if (!waitForFile(dir + "/handles")) die("no handles from the owner");
  uintptr_t b = 0, f = 0, a = 0;
  {
    std::ifstream in(dir + "/handles");
    in >> b >> f >> a;
  }
  auto binary = reinterpret_cast<aclrtBinHandle>(b);
  auto fill = reinterpret_cast<aclrtFuncHandle>(f);
  auto args = reinterpret_cast<aclrtArgsHandle>(a);
  aclrtFuncHandle function = nullptr;
  aclrtArgsHandle mine = nullptr;
  aclrtParamHandle param = nullptr;
  uint64_t value = 1;
  void* buffer = nullptr;
  refused(aclrtBinaryGetFunction(binary, "Fill", &function), "another's binary");
  refused(aclrtKernelArgsInit(fill, &mine), "another's function");
  refused(aclrtKernelArgsAppend(args, &value, sizeof value, &param), "append to another's args");
  refused(aclrtKernelArgsAppendPlaceHolder(args, &param), "placeholder in another's args");
  refused(aclrtKernelArgsGetPlaceHolderBuffer(args, param, 8, &buffer), "another's buffer");
  refused(aclrtKernelArgsFinalize(args), "finalize another's args");
  refused(aclrtLaunchKernelWithConfig(fill, 1, nullptr, nullptr, args, nullptr),
          "launch another's function");
  refused(aclrtBinaryUnLoad(binary), "unload another's binary");

  // Its own binary works, beside the owner's.
  constexpr uint64_t kCount = 256;
  aclrtBinHandle own = nullptr;
  check(aclrtBinaryLoadFromFile(module.c_str(), nullptr, &own), "own load");
  check(aclrtBinaryGetFunction(own, "Fill", &function), "own function");
  void* dst = nullptr;
  check(aclrtMalloc(&dst, kCount * 4, ACL_MEM_MALLOC_HUGE_FIRST), "malloc");
  uint32_t fillValue = 40;
  uint64_t count = kCount;
  check(aclrtKernelArgsInit(function, &mine), "own args");
  check(aclrtKernelArgsAppend(mine, &dst, sizeof dst, &param), "append dst");
  check(aclrtKernelArgsAppend(mine, &fillValue, sizeof fillValue, &param), "append value");
  check(aclrtKernelArgsAppend(mine, &count, sizeof count, &param), "append count");
  check(aclrtKernelArgsFinalize(mine), "finalize");
  check(aclrtLaunchKernelWithConfig(function, 2, nullptr, nullptr, mine, nullptr), "launch");
  check(aclrtSynchronizeStream(nullptr), "synchronize");
  std::vector<uint32_t> back(kCount);
  check(aclrtMemcpy(back.data(), kCount * 4, dst, kCount * 4, ACL_MEMCPY_DEVICE_TO_HOST), "copy");
  for (uint64_t i = 0; i < kCount; ++i) {
    const uint32_t expected = i < kCount / 2 ? 40 : 41;
    if (back[i] != expected)
      die("element " + std::to_string(i) + " is " + std::to_string(back[i]) + ", expected " +
          std::to_string(expected));
  }
  check(aclrtFree(dst), "free");
  check(aclrtBinaryUnLoad(own), "own unload");
  check(aclrtResetDevice(0), "reset");
  check(aclFinalize(), "finalize");
  std::ofstream(dir + "/done") << "done\n";
  std::printf("other ok\n");
  return 0;
}
