// One rank per process under mpirun, all on one machine served by `ascendsim exec --shared`:
// rank r copies a pattern of its own to its device (rank % DEVICES), exports that buffer, copies
// the pattern on within its device (timed with events: the contention two ranks on one device
// feel) and into the buffer its right-hand neighbour exported (imported by key, the neighbour
// having named this rank's process id), then reads both back and checks them byte for byte.
// The ranks meet (MPI) only to exchange process ids and keys; the exporter's aclrtFree does not
// take the memory from an importer, so nobody waits for anybody at the end.
// KILL_RANK=k makes rank k die (SIGKILL) after importing, mid-run.
// Prints "rank R ok d2d_us=T" on success; T is its copy within the device, in simulated us.

#include <acl/acl.h>
#include <mpi.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
int check(aclError code, const char* what, int rank) {
  if (code == ACL_SUCCESS) return 0;
  std::fprintf(stderr, "rank %d: %s failed with %d: %s\n", rank, what, code, aclGetRecentErrMsg());
  MPI_Abort(MPI_COMM_WORLD, 2);
  return 1;
}
unsigned char patternByte(int rank, size_t i) {
  return static_cast<unsigned char>((i * 131 + static_cast<size_t>(rank) * 17 + 1) & 0xff);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int devices = std::getenv("DEVICES") ? std::atoi(std::getenv("DEVICES")) : size;
  const int killRank = std::getenv("KILL_RANK") ? std::atoi(std::getenv("KILL_RANK")) : -1;
  const size_t half = 32u << 20;

  check(aclInit(nullptr), "aclInit", rank);
  check(aclrtSetDevice(rank % devices), "aclrtSetDevice", rank);
  aclrtStream stream = nullptr;
  check(aclrtCreateStream(&stream), "aclrtCreateStream", rank);
  void* mine = nullptr;
  check(aclrtMalloc(&mine, 3 * half, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc", rank);

  // Export to the left-hand neighbour, who writes into the second half.
  int32_t pid = 0;
  check(aclrtDeviceGetBareTgid(&pid), "aclrtDeviceGetBareTgid", rank);
  std::vector<int32_t> pids(static_cast<size_t>(size));
  MPI_Allgather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, MPI_COMM_WORLD);
  char key[65] = {};
  check(
      aclrtIpcMemGetExportKey(mine, 2 * half, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT),
      "aclrtIpcMemGetExportKey", rank);
  int32_t left = pids[static_cast<size_t>((rank + size - 1) % size)];
  check(aclrtIpcMemSetImportPid(key, &left, 1), "aclrtIpcMemSetImportPid", rank);
  std::vector<char> keys(static_cast<size_t>(size) * sizeof key);
  MPI_Allgather(key, sizeof key, MPI_CHAR, keys.data(), sizeof key, MPI_CHAR, MPI_COMM_WORLD);
  const char* rightKey = &keys[static_cast<size_t>((rank + 1) % size) * sizeof key];
  void* right = nullptr;
  check(aclrtIpcMemImportByKey(&right, rightKey, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT),
        "aclrtIpcMemImportByKey", rank);
  if (rank == killRank) raise(SIGKILL);
  const int rightDevice = (rank + 1) % size % devices;
  if (rightDevice != rank % devices)
    check(aclrtDeviceEnablePeerAccess(rightDevice, 0), "aclrtDeviceEnablePeerAccess", rank);

  std::vector<unsigned char> pattern(half);
  for (size_t i = 0; i < half; ++i) pattern[i] = patternByte(rank, i);
  aclrtEvent start = nullptr, end = nullptr;
  check(aclrtCreateEvent(&start), "aclrtCreateEvent", rank);
  check(aclrtCreateEvent(&end), "aclrtCreateEvent", rank);
  void* pinned = nullptr;
  check(aclrtMallocHost(&pinned, half), "aclrtMallocHost", rank);
  std::memcpy(pinned, pattern.data(), half);
  check(aclrtMemcpyAsync(mine, half, pinned, half, ACL_MEMCPY_HOST_TO_DEVICE, stream),
        "aclrtMemcpyAsync H2D", rank);
  check(aclrtRecordEvent(start, stream), "aclrtRecordEvent", rank);
  check(aclrtMemcpyAsync(static_cast<char*>(mine) + 2 * half, half, mine, half,
                         ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
        "aclrtMemcpyAsync within the device", rank);
  check(aclrtRecordEvent(end, stream), "aclrtRecordEvent", rank);
  check(aclrtMemcpyAsync(static_cast<char*>(right) + half, half, mine, half,
                         ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
        "aclrtMemcpyAsync to the neighbour", rank);
  check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream", rank);
  float ms = 0;
  check(aclrtEventElapsedTime(&ms, start, end), "aclrtEventElapsedTime", rank);

  std::vector<unsigned char> local(half), remote(half);
  check(aclrtMemcpy(local.data(), half, static_cast<char*>(mine) + 2 * half, half,
                    ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy D2H", rank);
  check(aclrtMemcpy(remote.data(), half, static_cast<char*>(right) + half, half,
                    ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy D2H from the neighbour", rank);
  size_t wrong = 0;
  for (size_t i = 0; i < half; ++i) {
    wrong += local[i] != patternByte(rank, i);
    wrong += remote[i] != patternByte(rank, i);
  }
  check(aclrtIpcMemClose(rightKey), "aclrtIpcMemClose (import)", rank);
  check(aclrtIpcMemClose(key), "aclrtIpcMemClose (export)", rank);
  check(aclrtFree(mine), "aclrtFree", rank);
  check(aclrtFreeHost(pinned), "aclrtFreeHost", rank);
  check(aclrtDestroyStream(stream), "aclrtDestroyStream", rank);
  check(aclrtResetDevice(rank % devices), "aclrtResetDevice", rank);
  check(aclFinalize(), "aclFinalize", rank);
  if (wrong) {
    std::printf("rank %d: %zu wrong bytes\n", rank, wrong);
  } else {
    std::printf("rank %d ok d2d_us=%.3f\n", rank, static_cast<double>(ms) * 1000.0);
  }
  MPI_Finalize();
  return wrong ? 1 : 0;
}
