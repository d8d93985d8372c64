// One process of a job launched by a script (no MPI): its rank (ASCENDSIM_RANK) picks its
// device; it copies 16 MiB of its own pattern host to device from pageable memory and back
// through pinned memory, runs a 4-block Ascend C kernel (in this process) that writes into the
// buffer, makes a 2D copy there and back, and checks every byte. Prints "rank R ok" on success;
// rank 0 also prints the codes of a failing asynchronous call and of the synchronisation after it,
// and of an array argument too long for a served call.

#include <acl/acl.h>
#include <unistd.h>

#include "ascendsim/ascendc.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main() {
  const char* r = std::getenv("ASCENDSIM_RANK");
  const int rank = r ? std::atoi(r) : 0;
  const size_t n = 16u << 20;
  std::vector<unsigned char> pattern(n), back(n);
  for (size_t i = 0; i < n; ++i) pattern[i] = static_cast<unsigned char>(i * 7 + rank);
  void* device = nullptr;
  void* pinned = nullptr;
  aclrtStream stream = nullptr;
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(rank) != ACL_SUCCESS ||
      aclrtMalloc(&device, n, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
      aclrtMallocHost(&pinned, n) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS ||
      aclrtMemcpy(device, n, pattern.data(), n, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS ||
      aclrtMemcpyAsync(pinned, n, device, n, ACL_MEMCPY_DEVICE_TO_HOST, stream) != ACL_SUCCESS ||
      aclrtSynchronizeStream(stream) != ACL_SUCCESS ||
      aclrtMemcpy(back.data(), n, device, n, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
    std::printf("rank %d failed: %s\n", rank, aclGetRecentErrMsg());
    return 1;
  }
  bool same = back == pattern && std::memcmp(pinned, pattern.data(), n) == 0;
  // A copy of ~16 EiB from the program's own memory is refused with a code (on a served machine
  // its bytes would be staged: no staging buffer that large is handed out), never a crash.
  const aclError hugeCode =
      aclrtMemcpy(device, n, pattern.data(), SIZE_MAX - (16u << 10), ACL_MEMCPY_HOST_TO_DEVICE);
  if (hugeCode == ACL_SUCCESS) {
    std::printf("rank %d: a copy of ~16 EiB was accepted\n", rank);
    return 1;
  }
  // An Ascend C kernel: its 4 blocks run here, in this process (the machine is the server's), and
  // each writes rank * 100 + its index into its quarter of the first 4 KiB of the buffer.
  auto* words = static_cast<int32_t*>(device);
  pid_t ranIn = 0;
  pid_t* ranInPtr = &ranIn;
  const uint32_t launched = ascendsim::ascendc::launch("Quarters", 4, nullptr, stream, [=]() {
    const int64_t b = ascendsimAscendCBlockIdx();
    for (int64_t i = b * 256; i < (b + 1) * 256; ++i)
      words[i] = rank * 100 + static_cast<int32_t>(b);
    *ranInPtr = getpid();
  });
  std::vector<int32_t> quarters(1024);
  if (launched != 0 || aclrtSynchronizeStream(stream) != ACL_SUCCESS ||
      aclrtMemcpy(quarters.data(), 4096, device, 4096, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
    std::printf("rank %d kernel failed: %s\n", rank, aclGetRecentErrMsg());
    return 1;
  }
  for (size_t i = 0; i < quarters.size(); ++i)
    same = same && quarters[i] == rank * 100 + static_cast<int32_t>(i / 256);
  same = same && ranIn == getpid();
  // A 2D copy of 16 rows of 48 bytes, 64 apart, there and back through the program's own memory:
  // the rows come back, the 16 bytes between them stay as they were (0xEE).
  std::vector<uint8_t> rows(64 * 16), rowsBack(64 * 16, 0xEE);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<uint8_t>(i * 3 + rank);
  if (aclrtMemcpy2d(device, 64, rows.data(), 64, 48, 16, ACL_MEMCPY_HOST_TO_DEVICE) !=
          ACL_SUCCESS ||
      aclrtMemcpy2d(rowsBack.data(), 64, device, 64, 48, 16, ACL_MEMCPY_DEVICE_TO_HOST) !=
          ACL_SUCCESS) {
    std::printf("rank %d 2D copy failed: %s\n", rank, aclGetRecentErrMsg());
    return 1;
  }
  for (size_t i = 0; i < rows.size(); ++i)
    same = same && rowsBack[i] == (i % 64 < 48 ? rows[i] : 0xEE);
  // An array longer than a call to the shared machine carries (1 MiB; here 300,000 process ids,
  // 1.2 MB) is refused with ACL_ERROR_INVALID_PARAM before it is sent, and the connection goes on
  // (it used to be cut by the server, failing every later call).
  char key[65] = {};
  std::vector<int32_t> pids(300000, static_cast<int32_t>(getpid()));
  const aclError exportCode = aclrtIpcMemGetExportKey(device, n, key, sizeof key, 0);
  const aclError longCode = aclrtIpcMemSetImportPid(key, pids.data(), pids.size());
  if (rank == 0) std::printf("long array: %d %d %s\n", exportCode, longCode, aclGetRecentErrMsg());
  // An asynchronous call that fails (a memset past its buffer's end): sent without waiting on a
  // served machine, its code comes back from the next call that waits (here the sync).
  const aclError now = aclrtMemsetAsync(device, n, 0, 2 * n, stream);
  const aclError later = aclrtSynchronizeStream(stream);
  if (rank == 0) std::printf("bad memset: %d then %d\n", now, later);
  aclrtDestroyStream(stream);
  aclrtFreeHost(pinned);
  aclrtFree(device);
  aclrtResetDevice(rank);
  aclFinalize();
  std::printf(same ? "rank %d ok\n" : "rank %d: wrong bytes\n", rank);
  return same ? 0 : 1;
}
