// HCCL with one rank per process under mpirun, all on one machine served by `ascendsim exec
// --shared`, written as hccl_test and the vendor's multi-process programs are: rank 0 makes the
// root info, MPI broadcasts it (the device count and SoC asked before aclInit, as there), every
// rank joins the communicator on device `rank`. Then, each checked byte for byte against values
// computed here:
//   AllReduce (sum) of 64 MiB of float32 per rank, timed with events behind an HcclBarrier;
//   AllGather of 1 MiB of int8 per rank;
//   AlltoAllV with (s + 1) x 1024 int32 from each rank to rank s (counts per rank travel);
//   a ring of HcclSend / HcclRecv of 256 KiB;
//   HcclGetRankSize / HcclGetRankId / HcclGetCommName; an operation on a destroyed communicator
//   gives HCCL_E_PARA with a message;
//   with RANK_TABLE_FILE set, a second communicator from that rank table and an AlltoAllV on it.
// Prints "rank R ok allreduce_us=T" (T: the AllReduce in simulated microseconds).

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
int rank = 0, size = 1;

void fail(const char* what, int code) {
  std::fprintf(stderr, "rank %d: %s failed with %d: %s\n", rank, what, code, aclGetRecentErrMsg());
  MPI_Abort(MPI_COMM_WORLD, 2);
}
void acl(aclError code, const char* what) {
  if (code != ACL_SUCCESS) fail(what, code);
}
void hccl(HcclResult code, const char* what) {
  if (code != HCCL_SUCCESS) fail(what, code);
}
void expect(bool ok, const char* what) {
  if (!ok) fail(what, -1);
}

struct Device {
  void* p = nullptr;
  explicit Device(size_t bytes) {
    acl(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  }
  ~Device() { aclrtFree(p); }
};

template <class T>
void toDevice(void* device, const std::vector<T>& host) {
  acl(aclrtMemcpy(device, host.size() * sizeof(T), host.data(), host.size() * sizeof(T),
                  ACL_MEMCPY_HOST_TO_DEVICE),
      "aclrtMemcpy to the device");
}
template <class T>
std::vector<T> fromDevice(const void* device, size_t n) {
  std::vector<T> host(n);
  acl(aclrtMemcpy(host.data(), n * sizeof(T), device, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST),
      "aclrtMemcpy from the device");
  return host;
}

double timedAllReduce(HcclComm comm, aclrtStream stream) {
  const size_t n = (64u << 20) / sizeof(float);
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(rank + 1 + static_cast<int>(i % 251));
  Device send(n * sizeof(float)), recv(n * sizeof(float));
  toDevice(send.p, in);
  aclrtEvent before = nullptr, after = nullptr;
  acl(aclrtCreateEventWithFlag(&before, ACL_EVENT_TIME_LINE), "aclrtCreateEventWithFlag");
  acl(aclrtCreateEventWithFlag(&after, ACL_EVENT_TIME_LINE), "aclrtCreateEventWithFlag");
  hccl(HcclBarrier(comm, stream), "HcclBarrier");
  acl(aclrtRecordEvent(before, stream), "aclrtRecordEvent");
  hccl(HcclAllReduce(send.p, recv.p, n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream),
       "HcclAllReduce");
  acl(aclrtRecordEvent(after, stream), "aclrtRecordEvent");
  acl(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  float ms = 0;
  acl(aclrtEventElapsedTime(&ms, before, after), "aclrtEventElapsedTime");
  const std::vector<float> out = fromDevice<float>(recv.p, n);
  const int ranks = size * (size + 1) / 2;  // 1 + 2 + ... + size
  for (size_t i = 0; i < n; ++i) {
    if (out[i] != static_cast<float>(ranks + size * static_cast<int>(i % 251))) {
      std::fprintf(stderr, "rank %d: AllReduce element %zu is %g\n", rank, i, out[i]);
      fail("AllReduce result", -1);
    }
  }
  aclrtDestroyEvent(before);
  aclrtDestroyEvent(after);
  return ms * 1000.0;
}

uint8_t gatherByte(int from, size_t i) {
  return static_cast<uint8_t>((i * 7 + static_cast<size_t>(from) * 61 + 3) & 0xff);
}

void allGather(HcclComm comm, aclrtStream stream) {
  const size_t n = 1u << 20;
  std::vector<uint8_t> mine(n);
  for (size_t i = 0; i < n; ++i) mine[i] = gatherByte(rank, i);
  Device send(n), recv(n * static_cast<size_t>(size));
  toDevice(send.p, mine);
  hccl(HcclAllGather(send.p, recv.p, n, HCCL_DATA_TYPE_INT8, comm, stream), "HcclAllGather");
  acl(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  const std::vector<uint8_t> all = fromDevice<uint8_t>(recv.p, n * static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    for (size_t i = 0; i < n; ++i) expect(all[r * n + i] == gatherByte(r, i), "AllGather bytes");
}

void allToAllV(HcclComm comm, aclrtStream stream) {
  // Rank r sends (s + 1) x 1024 elements valued r * 1000 + s to rank s: it receives (r + 1) x 1024
  // from every rank.
  const auto p = static_cast<size_t>(size), me = static_cast<size_t>(rank);
  std::vector<uint64_t> sendCounts(p), sdispls(p), recvCounts(p), rdispls(p);
  std::vector<int32_t> out;
  for (size_t s = 0; s < p; ++s) {
    sendCounts[s] = (s + 1) * 1024;
    sdispls[s] = out.size();
    out.insert(out.end(), sendCounts[s], static_cast<int32_t>(me * 1000 + s));
    recvCounts[s] = (me + 1) * 1024;
    rdispls[s] = s * recvCounts[s];
  }
  const size_t received = p * (me + 1) * 1024;
  Device send(out.size() * 4), recv(received * 4);
  toDevice(send.p, out);
  hccl(HcclAlltoAllV(send.p, sendCounts.data(), sdispls.data(), HCCL_DATA_TYPE_INT32, recv.p,
                     recvCounts.data(), rdispls.data(), HCCL_DATA_TYPE_INT32, comm, stream),
       "HcclAlltoAllV");
  acl(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  const std::vector<int32_t> in = fromDevice<int32_t>(recv.p, received);
  for (size_t s = 0; s < p; ++s)
    for (size_t i = 0; i < recvCounts[s]; ++i)
      expect(in[rdispls[s] + i] == static_cast<int32_t>(s * 1000 + me), "AlltoAllV elements");
}

void ring(HcclComm comm, aclrtStream stream) {
  const size_t n = (256u << 10) / sizeof(int32_t);
  const auto right = static_cast<uint32_t>((rank + 1) % size),
             left = static_cast<uint32_t>((rank + size - 1) % size);
  std::vector<int32_t> mine(n);
  for (size_t i = 0; i < n; ++i) mine[i] = static_cast<int32_t>(rank * 100000 + i);
  Device send(n * 4), recv(n * 4);
  toDevice(send.p, mine);
  // Even ranks send first, odd ranks receive first: each send meets its receive.
  auto sendRight = [&] {
    hccl(HcclSend(send.p, n, HCCL_DATA_TYPE_INT32, right, comm, stream), "HcclSend");
  };
  auto recvLeft = [&] {
    hccl(HcclRecv(recv.p, n, HCCL_DATA_TYPE_INT32, left, comm, stream), "HcclRecv");
  };
  if (rank % 2 == 0) {
    sendRight();
    recvLeft();
  } else {
    recvLeft();
    sendRight();
  }
  acl(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  const std::vector<int32_t> got = fromDevice<int32_t>(recv.p, n);
  for (size_t i = 0; i < n; ++i)
    expect(got[i] == static_cast<int32_t>(left * 100000 + i), "Send/Recv elements");
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // As hccl_test does: the SoC and the devices asked before aclInit (atlas-800t-a2: 8 x
  // Ascend910B3), a stream that stops at its first failure.
  uint32_t devices = 0;
  acl(aclrtGetDeviceCount(&devices), "aclrtGetDeviceCount before aclInit");
  const char* soc = aclrtGetSocName();
  expect(devices == 8 && soc && std::strcmp(soc, "Ascend910B3") == 0,
         "the machine's devices and SoC");
  acl(aclInit(nullptr), "aclInit");
  acl(aclrtSetDevice(rank), "aclrtSetDevice");
  aclrtStream stream = nullptr;
  acl(aclrtCreateStream(&stream), "aclrtCreateStream");
  acl(aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE), "aclrtSetStreamFailureMode");

  HcclRootInfo root;
  if (rank == 0) hccl(HcclGetRootInfo(&root), "HcclGetRootInfo");
  MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD);
  HcclComm comm = nullptr;
  hccl(HcclCommInitRootInfo(static_cast<uint32_t>(size), &root, static_cast<uint32_t>(rank), &comm),
       "HcclCommInitRootInfo");
  uint32_t ranks = 0, id = 0;
  hccl(HcclGetRankSize(comm, &ranks), "HcclGetRankSize");
  hccl(HcclGetRankId(comm, &id), "HcclGetRankId");
  expect(ranks == static_cast<uint32_t>(size) && id == static_cast<uint32_t>(rank), "rank queries");
  char name[COMM_NAME_MAX_LENGTH] = {};
  hccl(HcclGetCommName(comm, name), "HcclGetCommName");
  expect(name[0] != '\0', "a communicator name");

  const double us = timedAllReduce(comm, stream);
  allGather(comm, stream);
  allToAllV(comm, stream);
  ring(comm, stream);

  hccl(HcclCommDestroy(comm), "HcclCommDestroy");

  // A second communicator, from the rank table the job script wrote (RANK_TABLE_FILE, as
  // TensorFlow's launch scripts name it): rank r on device r.
  if (const char* table = std::getenv("RANK_TABLE_FILE")) {
    HcclComm world = nullptr;
    hccl(HcclCommInitClusterInfo(table, static_cast<uint32_t>(rank), &world),
         "HcclCommInitClusterInfo");
    uint32_t tableRanks = 0;
    hccl(HcclGetRankSize(world, &tableRanks), "HcclGetRankSize");
    expect(tableRanks == static_cast<uint32_t>(size), "the rank table's size");
    allToAllV(world, stream);
    hccl(HcclCommDestroy(world), "HcclCommDestroy");
  }

  Device spare(64);
  const HcclResult late =
      HcclAllReduce(spare.p, spare.p, 16, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream);
  expect(late == HCCL_E_PARA && std::strlen(aclGetRecentErrMsg()) > 0,
         "an operation on a destroyed communicator");

  acl(aclrtDestroyStream(stream), "aclrtDestroyStream");
  acl(aclrtResetDevice(rank), "aclrtResetDevice");
  acl(aclFinalize(), "aclFinalize");
  std::printf("rank %d ok allreduce_us=%.3f\n", rank, us);
  MPI_Finalize();
  return 0;
}
