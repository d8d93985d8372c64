// Contexts: explicit ones, the default one, and the per-thread current context.
#include <algorithm>
#include <cstdlib>
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

// ---------------------------------------------------------------- stream state callbacks

namespace {
using StateEvents = std::vector<std::pair<aclrtStream, aclrtStreamState>>;
StateEvents gEvents;
std::vector<aclError> gReadsAtDestroy;  // aclrtStreamGetId from each DESTROY_PRE callback

void recordState(aclrtStream s, aclrtStreamState state, void* args) {
  EXPECT_EQ(args, &gEvents);
  gEvents.emplace_back(s, state);
  if (state == ACL_RT_STREAM_STATE_DESTROY_PRE) {
    int32_t id = -1;
    gReadsAtDestroy.push_back(aclrtStreamGetId(s, &id));
  }
}

aclrtStream currentDefaultStream() {
  aclrtStream s = nullptr;
  EXPECT_EQ(aclrtCtxGetCurrentDefaultStream(&s), ACL_SUCCESS);
  return s;
}
}  // namespace

TEST(ContextStreamStates, DefaultStreamsAndTeardownsAreAnnouncedAsInCann) {
  // The sequence CANN's runtime gives (hicann/runtime, src/runtime; C: CREATE_POST, D:
  // DESTROY_PRE):
  // - aclrtSetDevice(0): the device's default stream d0 is set up, C (RawDevice::Start ->
  //   Stream::Setup: core/src/device/raw_device.cc, core/src/stream/stream.cc);
  // - aclrtCreateStream a: C (Stream::Setup);
  // - aclrtCreateContext: its default stream c0, C (Context::Setup, core/src/context/context.cc);
  //   then streams b and c in it: C, C;
  // - aclrtDestroyContext: D for c0 first (ApiImpl::ContextDestroy, api/impl/api_impl.cc), then
  //   Context::TearDown: D for b and c in creation order, each before it goes
  //   (TearDownOwnedStreamsOnContextTearDown -> TearDownStreamAndFinalize ->
  //   NotifyStreamDestroyPre), and D for c0 again as it goes (TearDownContextStream): c0 b c c0;
  // - aclrtResetDevice(0), the thread's only hold: D for d0 (Runtime::ExecutePrimaryTearDown ->
  //   PrimaryContextCallBack, core/src/runtime.cc), then Context::TearDown: D for a; the default
  //   stream of the device's own context is not torn down there (isPrimary_): d0 a;
  // - aclrtSetDevice(0) again: a new default stream d1, C; aclrtCreateStream e: C;
  // - aclFinalize: nothing (aclFinalizeInternal, src/acl/aclrt_impl/acl.cpp, releases no context
  //   or device; at process exit the runtime announces none).
  // Each D runs while its stream is still there: its id reads back (ACL_SUCCESS) in the callback.
  unsetenv("ASCENDSIM_CONFIG");
  gEvents.clear();
  gReadsAtDestroy.clear();
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtRegStreamStateCallback("order", recordState, &gEvents));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  const aclrtStream d0 = currentDefaultStream();
  aclrtContext def = nullptr, ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  aclrtStream a = nullptr, b = nullptr, c = nullptr, e = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  const aclrtStream c0 = currentDefaultStream();
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  ASSERT_ACL_OK(aclrtCreateStream(&c));
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  ASSERT_ACL_OK(aclrtSetCurrentContext(def));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  const aclrtStream d1 = currentDefaultStream();
  ASSERT_ACL_OK(aclrtCreateStream(&e));
  ASSERT_ACL_OK(aclFinalize());
  const aclrtStreamState C = ACL_RT_STREAM_STATE_CREATE_POST, D = ACL_RT_STREAM_STATE_DESTROY_PRE;
  const StateEvents expected = {{d0, C}, {a, C},  {c0, C}, {b, C}, {c, C},  {c0, D}, {b, D},
                                {c, D},  {c0, D}, {d0, D}, {a, D}, {d1, C}, {e, C}};
  EXPECT_EQ(gEvents, expected);
  EXPECT_EQ(gReadsAtDestroy, std::vector<aclError>(6, ACL_SUCCESS));
  ASSERT_ACL_OK(aclrtRegStreamStateCallback("order", nullptr, nullptr));
}

namespace {
// What the calls made from the first DESTROY_PRE callback of a teardown returned.
std::vector<aclError> gNested;
aclrtContext gGoing = nullptr;
bool gServed = false;
void tearDownAgain(aclrtStream, aclrtStreamState state, void*) {
  if (state != ACL_RT_STREAM_STATE_DESTROY_PRE || !gNested.empty()) return;
  if (gGoing) {
    gNested.push_back(aclrtDestroyContext(gGoing));
    // (Served, the callbacks run before the destruction is sent: aclFinalize would end the
    // program's machine first.)
    if (!gServed) gNested.push_back(aclFinalize());
  } else {
    gNested.push_back(aclrtResetDevice(0));
    gNested.push_back(aclrtResetDeviceForce(0));
  }
}
}  // namespace

TEST(ContextStreamStates, ATeardownIsNotStartedAgainFromItsOwnCallbacks) {
  // A context whose teardown runs its callbacks is being destroyed: CANN refuses to destroy it
  // again (ApiImpl::ContextDestroy: RT_ERROR_CONTEXT_DEL, mapped to
  // ACL_ERROR_RT_CONTEXT_RELEASE_ERROR 507007 in core/src/common/errcode_manage.cc), and so is
  // a reset of the device whose own context goes; aclFinalize, which would release the context,
  // is refused alike (in-process). The first teardown then completes: the context
  // is gone (107000 for a third destruction, ACL_ERROR_RT_INVALID_HANDLE as for any destroyed
  // context) and the device's default stream is a new one after the next aclrtSetDevice.
  unsetenv("ASCENDSIM_CONFIG");
  gServed = std::getenv("ASCENDSIM_MACHINE_SOCKET") != nullptr;
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtRegStreamStateCallback("again", tearDownAgain, nullptr));
  ASSERT_ACL_OK(aclrtCreateContext(&gGoing, 0));
  gNested.clear();
  ASSERT_ACL_OK(aclrtDestroyContext(gGoing));
  EXPECT_EQ(gNested, std::vector<aclError>(gServed ? 1 : 2, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR));
  EXPECT_ACL_ERROR(aclrtDestroyContext(gGoing), ACL_ERROR_RT_INVALID_HANDLE);
  gGoing = nullptr;
  gNested.clear();
  ASSERT_ACL_OK(aclrtResetDevice(0));
  EXPECT_EQ(gNested, (std::vector<aclError>{ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                                            ACL_ERROR_RT_CONTEXT_RELEASE_ERROR}));
  aclrtContext cur = nullptr;
  EXPECT_ACL_ERROR(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);  // it went
  ASSERT_ACL_OK(aclrtRegStreamStateCallback("again", nullptr, nullptr));
  ASSERT_ACL_OK(aclFinalize());
}
