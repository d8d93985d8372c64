// A data channel receive of a program whose main thread has ended with pthread_exit while its
// other threads run (the process's leader is then a zombie in /proc until the last thread ends).
// The process lives on: on a machine served by `ascendsim exec --shared`, the receive waits for
// the data as on a machine of its own (the machine tells a gone caller by its connection closing,
// not by the leader's state, which a process id reused by another program could also fool).
//  1. The main thread makes channel "leader_exit" (capacity 2) on device 0, starts the receiver
//     and ends with pthread_exit.
//  2. The receiver waits until /proc shows the leader as a zombie (Z), starts the sender and
//     receives from the empty channel without limit.
//  3. The sender sleeps 300 ms outside AscendCL and sends one tensor of 256 floats, i * 0.25.
//  4. The receiver gets exactly those floats, then destroys the channel, finalises and ends the
//     process: "leader exit ok".
// Prints "leader exit ok", or what went wrong.

#include <acl/acl.h>
#include <acl/acl_tdt.h>
#include <pthread.h>
#include <unistd.h>

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

constexpr size_t kFloats = 256;
acltdtChannelHandle* gChannel = nullptr;

// The state letter /proc gives the process's leader (its main thread).
char leaderState() {
  std::ifstream in("/proc/" + std::to_string(getpid()) + "/stat");
  std::string line;
  std::getline(in, line);
  const size_t name = line.rfind(')');
  return name == std::string::npos || name + 2 >= line.size() ? '?' : line[name + 2];
}

void* sender(void*) {
  usleep(300000);
  std::vector<float> values(kFloats);
  for (size_t i = 0; i < kFloats; ++i) values[i] = static_cast<float>(i) * 0.25f;
  const int64_t dims[] = {static_cast<int64_t>(kFloats)};
  acltdtDataItem* item = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_FLOAT,
                                              values.data(), values.size() * sizeof(float));
  acltdtDataset* dataset = acltdtCreateDataset();
  check(acltdtAddDataItem(dataset, item), "acltdtAddDataItem");
  check(acltdtSendTensor(gChannel, dataset, -1), "acltdtSendTensor");
  acltdtDestroyDataset(dataset);
  acltdtDestroyDataItem(item);
  return nullptr;
}

void* receiver(void*) {
  for (int i = 0; i < 200 && leaderState() != 'Z'; ++i) usleep(10000);
  if (leaderState() != 'Z') die("the main thread did not end within 2 s");
  pthread_t send;
  if (pthread_create(&send, nullptr, &sender, nullptr) != 0) die("pthread_create");
  acltdtDataset* got = acltdtCreateDataset();
  check(acltdtReceiveTensor(gChannel, got, -1),
        "acltdtReceiveTensor while the main thread has ended");
  pthread_join(send, nullptr);
  if (acltdtGetDatasetSize(got) != 1) die("received " + std::to_string(acltdtGetDatasetSize(got)));
  acltdtDataItem* item = acltdtGetDataItem(got, 0);
  if (acltdtGetDataSizeFromItem(item) != kFloats * sizeof(float)) die("received other bytes");
  const auto* values = static_cast<const float*>(acltdtGetDataAddrFromItem(item));
  for (size_t i = 0; i < kFloats; ++i) {
    if (values[i] != static_cast<float>(i) * 0.25f) die("float " + std::to_string(i) + " differs");
  }
  acltdtDestroyDataset(got);
  check(acltdtDestroyChannel(gChannel), "acltdtDestroyChannel");
  check(aclFinalize(), "aclFinalize");
  std::printf("leader exit ok\n");
  std::fflush(stdout);
  std::exit(0);
}
}  // namespace

int main() {
  job::role = "leader exit";
  check(aclInit(nullptr), "aclInit");
  check(aclrtSetDevice(0), "aclrtSetDevice");
  gChannel = acltdtCreateChannelWithCapacity(0, "leader_exit", 2);
  if (!gChannel) die("acltdtCreateChannelWithCapacity");
  pthread_t receive;
  if (pthread_create(&receive, nullptr, &receiver, nullptr) != 0) die("pthread_create");
  pthread_exit(nullptr);
}
