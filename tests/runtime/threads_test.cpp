// Several host threads: one device per thread, and threads sharing a device's default stream.
#include <chrono>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

#include "acl_fixture.h"

TEST(Threads, ThreadsShareTheDefaultStreamAndKeepTheirData) {
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  constexpr int kThreads = 4;
  constexpr size_t n = 1 << 20;
  std::vector<int> ok(kThreads, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) return;
      void *h = nullptr, *d = nullptr;
      std::vector<unsigned char> back(n);
      if (aclrtMallocHost(&h, n) || aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST)) return;
      std::memset(h, i + 1, n);
      for (int round = 0; round < 5; ++round) {
        if (aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr)) return;
        if (aclrtSynchronizeStream(nullptr)) return;
        if (aclrtMemcpy(back.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST)) return;
        if (back != std::vector<unsigned char>(n, static_cast<unsigned char>(i + 1))) return;
      }
      ok[static_cast<size_t>(i)] = aclrtFree(d) == ACL_SUCCESS && aclrtFreeHost(h) == ACL_SUCCESS;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(ok[static_cast<size_t>(i)], 1) << "thread " << i;
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Threads, OneDevicePerThread) {
  setenv("ASCENDSIM_CONFIG", "atlas-800t-a2", 1);
  ASSERT_ACL_OK(aclInit(nullptr));
  std::vector<int> ok(8, 0);
  std::vector<std::thread> threads;
  for (int dev = 0; dev < 8; ++dev) {
    threads.emplace_back([&, dev] {
      if (aclrtSetDevice(dev)) return;
      int32_t current = -1;
      aclrtGetDevice(&current);
      aclrtStream s = nullptr;
      void *h = nullptr, *d = nullptr;
      const size_t n = 4 << 20;
      if (aclrtCreateStream(&s) || aclrtMallocHost(&h, n) || aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST)) return;
      std::memset(h, dev * 3 + 1, n);
      std::vector<unsigned char> back(n);
      aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s);
      aclrtSynchronizeStream(s);
      aclrtMemcpy(back.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST);
      ok[static_cast<size_t>(dev)] = current == dev && back == std::vector<unsigned char>(n, static_cast<unsigned char>(dev * 3 + 1)) &&
                                     aclrtDestroyStream(s) == ACL_SUCCESS && aclrtFree(d) == ACL_SUCCESS &&
                                     aclrtFreeHost(h) == ACL_SUCCESS && aclrtResetDevice(dev) == ACL_SUCCESS;
    });
  }
  for (auto& t : threads) t.join();
  for (int dev = 0; dev < 8; ++dev) EXPECT_EQ(ok[static_cast<size_t>(dev)], 1) << "device " << dev;
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Threads, AWaitOnAnotherThreadsRecordCompletes) {
  // Thread B waits for an event that thread A records later (in real time): no false deadlock.
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext ctx = nullptr;
  aclrtEvent e = nullptr;
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtRecordEvent(e, s));  // record #1, so B's wait has a target from the start
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  aclrtEvent gate = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&gate));
  aclrtStream waiting = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&waiting));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(waiting, gate));  // gate not yet recorded by anyone
  aclError waiterResult = -1;
  std::thread b([&] {
    aclrtSetCurrentContext(ctx);
    waiterResult = aclrtSynchronizeStream(waiting);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_ACL_OK(aclrtRecordEvent(gate, s));
  b.join();
  EXPECT_EQ(waiterResult, ACL_SUCCESS);
  ASSERT_ACL_OK(aclrtDestroyStream(waiting));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Threads, AWaitOnAThreadThatHasNotCalledYetIsNotADeadlock) {
  // #16 item 8: the worker makes its first AscendCL call 100 ms after it starts; until then the
  // runtime had not seen it and called the main thread's wait a deadlock.
  unsetenv("ASCENDSIM_CONFIG");
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext ctx = nullptr;
  aclrtEvent gate = nullptr;
  aclrtStream waiting = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  ASSERT_ACL_OK(aclrtCreateEvent(&gate));
  ASSERT_ACL_OK(aclrtCreateStream(&waiting));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(waiting, gate));
  std::thread worker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    aclrtSetCurrentContext(ctx);
    aclrtRecordEvent(gate, nullptr);
  });
  EXPECT_EQ(aclrtSynchronizeStream(waiting), ACL_SUCCESS);
  worker.join();
  ASSERT_ACL_OK(aclrtDestroyStream(waiting));
  ASSERT_ACL_OK(aclrtDestroyEvent(gate));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}

TEST(Threads, AnIdleThreadDoesNotHideADeadlock) {
  // #16 item 8: a worker that made a call and then sits idle outside AscendCL (here on a future
  // the main thread sets only afterwards, as a thread in join() would) used to make a wait that
  // nobody can end hang forever. With 0.3 s of patience it is a deadlock error within a second.
  unsetenv("ASCENDSIM_CONFIG");
  setenv("ASCENDSIM_DEADLOCK_PATIENCE", "0.3", 1);
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtEvent never = nullptr;
  aclrtStream stuck = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&never));
  ASSERT_ACL_OK(aclrtCreateStream(&stuck));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(stuck, never));
  std::promise<void> release;
  std::thread idle([&, f = release.get_future()]() mutable {
    aclrtSetDevice(0);
    f.wait();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // (it has made its call)
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(aclrtSynchronizeStream(stuck), ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  release.set_value();
  idle.join();
  unsetenv("ASCENDSIM_DEADLOCK_PATIENCE");
  ASSERT_ACL_OK(aclrtRecordEvent(never, nullptr));  // releases the stream
  ASSERT_ACL_OK(aclrtSynchronizeStream(stuck));
  ASSERT_ACL_OK(aclrtDestroyStream(stuck));
  ASSERT_ACL_OK(aclrtDestroyEvent(never));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclFinalize());
}
