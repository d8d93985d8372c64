// Kernels of a binary loaded at run time and launched by handle (aclrtBinaryLoadFromFile,
// aclrtBinaryGetFunction, aclrtKernelArgs*, aclrtLaunchKernelWithConfig), over the module
// kernel_binary_module.cpp: each test states the bytes and codes it expects. The same tests run as
// a program of a served machine (runtime.shared_machine.served_kernels).
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl_fixture.h"

namespace {
const std::string kModule = ASCENDSIM_KERNEL_BINARY;

// What Fill(value) over `blocks` blocks leaves in `count` elements: block b's share holds value +
// b.
std::vector<uint32_t> filled(uint32_t value, uint64_t count, uint32_t blocks) {
  std::vector<uint32_t> v(count);
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint64_t i = count * b / blocks; i < count * (b + 1) / blocks; ++i) v[i] = value + b;
  }
  return v;
}

std::vector<uint32_t> readBack(const void* device, uint64_t count) {
  std::vector<uint32_t> back(count);
  EXPECT_EQ(aclrtMemcpy(back.data(), count * 4, device, count * 4, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  return back;
}
}  // namespace

class KernelBinaries : public AclTest {};

TEST_F(KernelBinaries, ALoadedKernelFillsDeviceMemoryOverItsBlocks) {
  // Fill over 4 blocks of 4096 elements with 0x5A000000: elements 0-1023 hold 0x5A000000,
  // 1024-2047 0x5A000001 ... (each block its quarter, value + block index).
  constexpr uint64_t kCount = 4096;
  aclrtBinHandle binary = nullptr;
  ASSERT_ACL_OK(aclrtBinaryLoadFromFile(kModule.c_str(), nullptr, &binary));
  aclrtFuncHandle fill = nullptr, missing = nullptr;
  ASSERT_ACL_OK(aclrtBinaryGetFunction(binary, "Fill", &fill));
  EXPECT_ACL_ERROR(aclrtBinaryGetFunction(binary, "NoSuchKernel", &missing),
                   ACL_ERROR_RT_KERNEL_LOOKUP);
  void* dst = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dst, kCount * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtArgsHandle args = nullptr;
  aclrtParamHandle param = nullptr;
  const uint32_t value = 0x5A000000u;
  const uint64_t count = kCount;
  ASSERT_ACL_OK(aclrtKernelArgsInit(fill, &args));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &dst, sizeof dst, &param));
  // Two of Fill's three arguments (16 of its 24 bytes): the launch is refused (107000).
  ASSERT_ACL_OK(aclrtKernelArgsAppend(args, const_cast<uint32_t*>(&value), sizeof value, &param));
  EXPECT_ACL_ERROR(aclrtLaunchKernelWithConfig(fill, 4, nullptr, nullptr, args, nullptr),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtKernelArgsAppend(args, const_cast<uint64_t*>(&count), sizeof count, &param));
  // Nothing fits after the 24 bytes, least of all SIZE_MAX of them (107000).
  EXPECT_ACL_ERROR(aclrtKernelArgsAppend(args, const_cast<uint64_t*>(&count), SIZE_MAX, &param),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtKernelArgsFinalize(args));
  ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(fill, 4, nullptr, nullptr, args, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(readBack(dst, kCount), filled(value, kCount, 4));

  // Unloaded, its handles are stale (107017): its functions and its argument lists.
  ASSERT_ACL_OK(aclrtBinaryUnLoad(binary));
  EXPECT_ACL_ERROR(aclrtBinaryGetFunction(binary, "Fill", &missing), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERROR(aclrtKernelArgsFinalize(args), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERROR(aclrtKernelArgsInit(fill, &args), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERROR(aclrtBinaryUnLoad(binary), ACL_ERROR_RT_INVALID_HANDLE);
  ASSERT_ACL_OK(aclrtFree(dst));
}

TEST_F(KernelBinaries, PlaceholderDataIsCopiedToTheDeviceAtLaunch) {
  // FillFromParams reads its value and count from a placeholder's buffer, which the program
  // writes after taking it: {7, 1000} over 2 blocks gives 7 in elements 0-499 and 8 in 500-999,
  // and the 24 elements after them keep the memset's 0xFFFFFFFF. Changing the buffer after the
  // launch changes nothing: the launch copied it.
  constexpr uint64_t kCount = 1024;
  aclrtBinHandle binary = nullptr;
  ASSERT_ACL_OK(aclrtBinaryLoadFromFile(kModule.c_str(), nullptr, &binary));
  aclrtFuncHandle fromParams = nullptr;
  ASSERT_ACL_OK(aclrtBinaryGetFunction(binary, "FillFromParams", &fromParams));
  void* dst = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dst, kCount * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(dst, kCount * 4, 0xFF, kCount * 4));
  aclrtArgsHandle args = nullptr;
  aclrtParamHandle param = nullptr, params = nullptr;
  ASSERT_ACL_OK(aclrtKernelArgsInit(fromParams, &args));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &dst, sizeof dst, &param));
  ASSERT_ACL_OK(aclrtKernelArgsAppendPlaceHolder(args, &params));
  void* buffer = nullptr;
  // A buffer of 0 bytes (100000); one for a plain argument (107000).
  EXPECT_ACL_ERROR(aclrtKernelArgsGetPlaceHolderBuffer(args, params, 0, &buffer),
                   ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtKernelArgsGetPlaceHolderBuffer(args, param, 8, &buffer),
                   ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(args, params, 8, &buffer));
  // The buffer comes zeroed, and nothing may be appended once it is taken (207000).
  const uint32_t zero[2] = {0, 0};
  EXPECT_EQ(std::memcmp(buffer, zero, sizeof zero), 0);
  EXPECT_ACL_ERROR(aclrtKernelArgsAppendPlaceHolder(args, &param),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  const uint32_t values[2] = {7, 1000};
  std::memcpy(buffer, values, sizeof values);
  ASSERT_ACL_OK(aclrtKernelArgsFinalize(args));
  ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(fromParams, 2, nullptr, nullptr, args, nullptr));
  const uint32_t later[2] = {100, 1024};
  std::memcpy(buffer, later, sizeof later);
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  std::vector<uint32_t> expected = filled(7, 1000, 2);
  expected.resize(kCount, 0xFFFFFFFFu);
  EXPECT_EQ(readBack(dst, kCount), expected);
  ASSERT_ACL_OK(aclrtBinaryUnLoad(binary));
  ASSERT_ACL_OK(aclrtFree(dst));
}

TEST_F(KernelBinaries, ABareNameIsInTheProgramsWorkingDirectory) {
  // A bare file name is looked for in the working directory (not on the loader's path), and it
  // is the calling program's: from the module's folder its name loads; from / it does not
  // (107009), nor does a path with nothing there.
  const size_t slash = kModule.rfind('/');
  const std::string folder = kModule.substr(0, slash), name = kModule.substr(slash + 1);
  char was[PATH_MAX];
  ASSERT_NE(getcwd(was, sizeof was), nullptr);
  aclrtBinHandle binary = nullptr;
  ASSERT_EQ(chdir("/"), 0);
  EXPECT_ACL_ERROR(aclrtBinaryLoadFromFile(name.c_str(), nullptr, &binary), ACL_ERROR_RT_FILE_OPEN);
  ASSERT_EQ(chdir(folder.c_str()), 0);
  const aclError loaded = aclrtBinaryLoadFromFile(name.c_str(), nullptr, &binary);
  ASSERT_EQ(chdir(was), 0);
  ASSERT_ACL_OK(loaded);
  EXPECT_ACL_ERROR(aclrtBinaryLoadFromFile((kModule + ".missing").c_str(), nullptr, &binary),
                   ACL_ERROR_RT_FILE_OPEN);
  aclrtFuncHandle fill = nullptr;
  ASSERT_ACL_OK(aclrtBinaryGetFunction(binary, "Fill", &fill));
  ASSERT_ACL_OK(aclrtBinaryUnLoad(binary));
}

TEST_F(KernelBinaries, ALoadedKernelWritesRegisteredHostMemoryInPlace) {
  // Three 64 KiB buffers of the program's heap registered for the device (ACL_HOST_REG_MAPPED;
  // neighbours, so that they may share pages): Fill over 2 blocks of each one's 16384 elements,
  // through its device pointer, with 9, 19 and 29 leaves value in elements 0-8191 and value + 1
  // in 8192-16383 of the program's own buffer, no copy back.
  constexpr uint64_t kCount = 16384;
  std::vector<std::vector<uint32_t>> host(3, std::vector<uint32_t>(kCount, 0));
  std::vector<void*> mapped(3);
  for (int i = 0; i < 3; ++i) {
    ASSERT_ACL_OK(aclrtHostRegisterV2(host[i].data(), kCount * 4, ACL_HOST_REG_MAPPED));
    ASSERT_ACL_OK(aclrtHostGetDevicePointer(host[i].data(), &mapped[i], 0));
  }
  aclrtBinHandle binary = nullptr;
  aclrtFuncHandle fill = nullptr;
  ASSERT_ACL_OK(aclrtBinaryLoadFromFile(kModule.c_str(), nullptr, &binary));
  ASSERT_ACL_OK(aclrtBinaryGetFunction(binary, "Fill", &fill));
  for (int i = 0; i < 3; ++i) {
    aclrtArgsHandle args = nullptr;
    aclrtParamHandle param = nullptr;
    uint32_t value = 9 + 10 * i;
    uint64_t count = kCount;
    ASSERT_ACL_OK(aclrtKernelArgsInit(fill, &args));
    ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &mapped[i], sizeof mapped[i], &param));
    ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &value, sizeof value, &param));
    ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &count, sizeof count, &param));
    ASSERT_ACL_OK(aclrtKernelArgsFinalize(args));
    ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(fill, 2, nullptr, nullptr, args, nullptr));
    ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
    EXPECT_EQ(host[i], filled(value, kCount, 2)) << i;
  }
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(aclrtHostUnregister(host[i].data()));
  ASSERT_ACL_OK(aclrtBinaryUnLoad(binary));
}
