// Contexts: explicit ones, the default one, and the per-thread current context.
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "acl_fixture.h"

class Context : public AclTest {};

TEST_F(Context, CreateMakesCurrentAndDestroyReleases) {
  aclrtContext def = nullptr, ctx = nullptr, cur = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  ASSERT_ACL_OK(aclrtGetCurrentContext(&cur));
  EXPECT_EQ(cur, ctx);
  EXPECT_NE(ctx, def);
  ASSERT_ACL_OK(aclrtSetCurrentContext(def));
  ASSERT_ACL_OK(aclrtGetCurrentContext(&cur));
  EXPECT_EQ(cur, def);
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  EXPECT_ACL_ERROR(aclrtSetCurrentContext(ctx), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_ACL_ERROR(aclrtDestroyContext(ctx), ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(Context, ErrorCodes) {
  aclrtContext ctx = nullptr, def = nullptr;
  EXPECT_ACL_ERROR(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtCreateContext(&ctx, 3), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERROR(aclrtDestroyContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtSetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERROR(aclrtGetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  EXPECT_ACL_ERROR(aclrtDestroyContext(def), ACL_ERROR_INVALID_PARAM);  // default: aclrtResetDevice
  int dummy = 0;
  EXPECT_ACL_ERROR(aclrtSetCurrentContext(&dummy), ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(Context, CurrentContextIsPerThread) {
  aclrtContext mine = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&mine));
  aclError other = ACL_SUCCESS;
  std::thread t([&] {
    aclrtContext c = nullptr;
    other = aclrtGetCurrentContext(&c);  // a new thread has none until it sets one
    if (other == ACL_ERROR_RT_CONTEXT_NULL) other = aclrtSetCurrentContext(mine);
  });
  t.join();
  EXPECT_EQ(other, ACL_SUCCESS);
}

TEST_F(Context, StreamsBelongToTheirContext) {
  aclrtContext def = nullptr, ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtSetCurrentContext(def));
  EXPECT_ACL_ERROR(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CONTEXT);
  ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
}

TEST_F(Context, DestroyWaitsForTheTasksOfItsStreams) {
  // A copy queued on a context's stream still runs to its end when the context is destroyed
  // (the device stays held by its default context, so its memory lives on): every one of the
  // n bytes read back afterwards is the pattern written. Dropped instead, the copy would have left
  // the never-written memory reading as zero.
  const size_t n = 8 << 20;
  aclrtContext def = nullptr, ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  void* host = nullptr;
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&host, n));
  std::memset(host, 0x3C, n);
  ASSERT_ACL_OK(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  aclrtContext cur = nullptr;
  EXPECT_ACL_ERROR(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);  // it was current
  ASSERT_ACL_OK(aclrtSetCurrentContext(def));
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);  // gone with it
  std::vector<unsigned char> back(n);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(std::count(back.begin(), back.end(), 0x3C), static_cast<long>(n));
  ASSERT_ACL_OK(aclrtFree(dev));
  ASSERT_ACL_OK(aclrtFreeHost(host));
}
