// Data queues and channels of processes sharing one machine served by `ascendsim exec --shared`
// (docs/multiprocess.md). A queue is its device's, by id (CANN's host side has no
// acltdtGrantQueue / acltdtAttachQueue and leaves passing queue ids to the program): one process
// enqueues and another dequeues, exact bytes; a channel's handle is its process's own and its
// name its device's. Three processes, meeting through files in DIR:
//   owner  makes queue "shared" (depth 2) and channel "owner_channel"; dequeues the 3 MiB the
//          other enqueued (every byte (i * 7 + 3) mod 256) and its 11 bytes of user data; then
//          waits without limit on the empty queue, which the other destroys: 107000
//          (ACL_ERROR_RT_PARAM_INVALID), saying it was destroyed while the call waited. It
//          enqueues 1 MiB into the victim's queue and dequeues it back, then waits on it without
//          limit; the victim is killed (by the job script) while it waits itself, and the server
//          destroys what it left: the owner's dequeue ends with 107000 the same way, the victim's
//          channel name is free again and its queue no longer exists (107000).
//   other  is refused the owner's channel name on device 0 (NULL, "already exists") and its
//          handle (100000, "this process"); sends 1 MiB of floats and an end-of-sequence marker
//          through a channel of its own and receives them, exact; enqueues the 3 MiB; destroys
//          the owner's queue while the owner waits on it.
//   victim makes queue "victim" and channel "victim_channel", then receives from its empty
//          channel without limit until it is killed.
// Prints "<role> ok", or what went wrong.
//   tdt_pair owner|other|victim DIR

#include <acl/acl.h>
#include <acl/acl_tdt.h>
#include <acl/acl_tdt_queue.h>
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
using job::refused;
using job::role;
std::string dir;

void put(const std::string& name, const std::string& value) {
  const std::string path = dir + "/" + name;
  { std::ofstream(path + ".tmp") << value; }
  std::rename((path + ".tmp").c_str(), path.c_str());
}

// Waits (outside AscendCL) for the file another process writes; its contents.
std::string get(const std::string& name) {
  for (int i = 0; i < 1200; ++i) {
    std::ifstream in(dir + "/" + name);
    std::string value;
    if (in && std::getline(in, value)) return value;
    usleep(50000);
  }
  die("no " + name + " within 60 s");
}

uint8_t pattern(size_t i) {
  return static_cast<uint8_t>(i * 7 + 3);
}

acltdtChannelHandle* channel(const char* name) {
  acltdtChannelHandle* made = acltdtCreateChannelWithCapacity(0, name, 2);
  if (!made) die(std::string("acltdtCreateChannelWithCapacity ") + name);
  return made;
}

uint32_t queue(const char* name) {
  acltdtQueueAttr* attr = acltdtCreateQueueAttr();
  uint32_t depth = 2;
  check(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof name, &name), "set name");
  check(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &depth), "set depth");
  uint32_t qid = 0;
  check(acltdtCreateQueue(attr, &qid), "acltdtCreateQueue");
  acltdtDestroyQueueAttr(attr);
  return qid;
}

void owner() {
  const uint32_t shared = queue("shared");
  acltdtChannelHandle* own = channel("owner_channel");
  put("qid", std::to_string(shared));
  put("handle", std::to_string(reinterpret_cast<uintptr_t>(own)));
  get("sent");
  std::vector<uint8_t> data(3 << 20, 0);
  char user[32] = {};
  size_t size = 0;
  check(acltdtDequeueData(shared, data.data(), data.size(), &size, user, sizeof user, 0),
        "acltdtDequeueData of the other's buffer");
  if (size != data.size()) die("dequeued " + std::to_string(size) + " bytes");
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] != pattern(i)) die("byte " + std::to_string(i) + " differs");
  }
  if (std::string(user) != "from other") die(std::string("user data: ") + user);
  // Waiting on the empty queue, which the other destroys.
  put("owner_waiting", "1");
  refused(acltdtDequeueData(shared, data.data(), data.size(), &size, nullptr, 0, -1),
          ACL_ERROR_RT_PARAM_INVALID, "destroyed while the call waited",
          "a dequeue waiting on a queue the other destroyed");
  // The victim's queue, by id: used from here, then waited on while the victim is killed.
  const uint32_t victims = static_cast<uint32_t>(std::stoul(get("victim_qid")));
  std::vector<uint8_t> mega(1 << 20), back(1 << 20, 0);
  for (size_t i = 0; i < mega.size(); ++i) mega[i] = pattern(i + 1);
  check(acltdtEnqueueData(victims, mega.data(), mega.size(), nullptr, 0, 0, 0),
        "acltdtEnqueueData into the victim's queue");
  check(acltdtDequeueData(victims, back.data(), back.size(), &size, nullptr, 0, 0),
        "acltdtDequeueData from the victim's queue");
  if (back != mega) die("the victim's queue gave other bytes");
  put("owner_blocking", "1");
  refused(acltdtDequeueData(victims, back.data(), back.size(), &size, nullptr, 0, -1),
          ACL_ERROR_RT_PARAM_INVALID, "destroyed while the call waited",
          "a dequeue waiting on the killed victim's queue");
  // What the victim left is gone: its channel's name is free, its queue no longer exists.
  acltdtChannelHandle* again = channel("victim_channel");
  check(acltdtDestroyChannel(again), "acltdtDestroyChannel of the victim's name");
  refused(acltdtEnqueueData(victims, mega.data(), 16, nullptr, 0, 0, 0), ACL_ERROR_RT_PARAM_INVALID,
          "does not exist", "an enqueue into the victim's queue");
  check(acltdtDestroyChannel(own), "acltdtDestroyChannel");
  put("done", "1");
}

void other() {
  const uint32_t shared = static_cast<uint32_t>(std::stoul(get("qid")));
  auto* owners = reinterpret_cast<acltdtChannelHandle*>(std::stoull(get("handle")));
  if (acltdtCreateChannelWithCapacity(0, "owner_channel", 2))
    die("a second channel named owner_channel on device 0 was made");
  refused(ACL_ERROR_INVALID_PARAM, ACL_ERROR_INVALID_PARAM, "already exists on device 0",
          "acltdtCreateChannelWithCapacity of the owner's name");
  size_t n = 0;
  refused(acltdtQueryChannelSize(owners, &n), ACL_ERROR_INVALID_PARAM, "this process",
          "acltdtQueryChannelSize of the owner's channel");
  // A channel of its own: 1 MiB of floats and an end-of-sequence marker, there and back.
  acltdtChannelHandle* own = channel("other_channel");
  std::vector<float> floats(1 << 18);
  for (size_t i = 0; i < floats.size(); ++i) floats[i] = static_cast<float>(i) * 0.5f - 7.0f;
  const int64_t dims[] = {512, 512};
  acltdtDataItem* tensor = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT,
                                                floats.data(), floats.size() * sizeof(float));
  acltdtDataItem* end =
      acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, nullptr, 0, ACL_FLOAT, nullptr, 0);
  acltdtDataset* sent = acltdtCreateDataset();
  check(acltdtAddDataItem(sent, tensor), "acltdtAddDataItem");
  check(acltdtAddDataItem(sent, end), "acltdtAddDataItem");
  refused(acltdtSendTensor(owners, sent, 0), ACL_ERROR_INVALID_PARAM, "this process",
          "acltdtSendTensor into the owner's channel");
  check(acltdtSendTensor(own, sent, 0), "acltdtSendTensor");
  acltdtDataset* got = acltdtCreateDataset();
  check(acltdtReceiveTensor(own, got, 0), "acltdtReceiveTensor");
  if (acltdtGetDatasetSize(got) != 2) die("received " + std::to_string(acltdtGetDatasetSize(got)));
  const acltdtDataItem* item = acltdtGetDataItem(got, 0);
  int64_t shape[2] = {0, 0};
  check(acltdtGetDimsFromItem(item, shape, 2), "acltdtGetDimsFromItem");
  if (shape[0] != 512 || shape[1] != 512 || acltdtGetDataTypeFromItem(item) != ACL_FLOAT ||
      acltdtGetDataSizeFromItem(item) != floats.size() * sizeof(float) ||
      std::memcmp(acltdtGetDataAddrFromItem(item), floats.data(), floats.size() * 4) != 0)
    die("the received tensor differs");
  if (acltdtGetTensorTypeFromItem(acltdtGetDataItem(got, 1)) != ACL_TENSOR_DATA_END_OF_SEQUENCE)
    die("the received marker differs");
  acltdtDestroyDataset(got);
  acltdtDestroyDataset(sent);
  acltdtDestroyDataItem(tensor);
  acltdtDestroyDataItem(end);
  check(acltdtDestroyChannel(own), "acltdtDestroyChannel");
  // Into the owner's queue, by id.
  std::vector<uint8_t> data(3 << 20);
  for (size_t i = 0; i < data.size(); ++i) data[i] = pattern(i);
  const char user[] = "from other";
  check(acltdtEnqueueData(shared, data.data(), data.size(), user, sizeof user, -1, 0),
        "acltdtEnqueueData into the owner's queue");
  put("sent", "1");
  get("owner_waiting");
  usleep(1000000);  // (the owner's dequeue is waiting by now)
  check(acltdtDestroyQueue(shared), "acltdtDestroyQueue of the owner's queue");
  get("done");
}

void victim() {
  get("owner_waiting");
  const uint32_t mine = queue("victim");
  acltdtChannelHandle* own = channel("victim_channel");
  put("victim_qid", std::to_string(mine));
  get("owner_blocking");
  put("victim_blocking", "1");
  acltdtDataset* got = acltdtCreateDataset();
  const aclError code = acltdtReceiveTensor(own, got, -1);
  die("the receive returned " + std::to_string(code) + " instead of waiting");
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  role = argv[1];
  dir = argv[2];
  check(aclInit(nullptr), "aclInit");
  check(aclrtSetDevice(0), "aclrtSetDevice");
  const std::string r = role;
  if (r == "owner") {
    owner();
  } else if (r == "other") {
    other();
  } else if (r == "victim") {
    victim();
  } else {
    return 2;
  }
  check(aclrtResetDevice(0), "aclrtResetDevice");
  check(aclFinalize(), "aclFinalize");
  std::printf("%s ok\n", role);
  return 0;
}
