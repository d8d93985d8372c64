// Models, labels and label lists are the process's own on one machine served by
// `ascendsim exec --shared` (docs/multiprocess.md), as on hardware, where their handles are
// addresses in the process's memory. The owner captures a model (a memset of 0x5A over 64 bytes),
// makes a label and a label list of it, writes the three handles to a file and waits; the other
// process is refused each of them with ACL_ERROR_RT_PARAM_INVALID (107000, what a destroyed
// handle gets on a machine of its own) in every call that takes it, with a message, then captures
// and launches a model of its own twice (64 bytes of 0x2B, every one checked) and says it is
// done. The owner then launches its model once more, whose second step is a captured Ascend C
// kernel (its blocks run in the owner), and exits at once without waiting for it or destroying
// anything: the server ends the launch (the kernel fails, its program gone) and destroys the
// owner's model, list and label for it. Prints "owner ok" / "other ok", or what went wrong. Run
// with ASCENDSIM_PIPELINE=0 (every call returns its own code).
//   model_handles owner|other DIR

#include <acl/acl.h>
#include <unistd.h>

#include "ascendsim/ascendc.h"

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

// `code` must be 107000 with a message saying whose the handle is.
void refused(aclError code, const char* what) {
  job::refused(code, ACL_ERROR_RT_PARAM_INVALID, "another process", what);
}

// A model of one memset of `value` over 64 bytes at `d`, captured on `s`.
aclmdlRI captureMemset(aclrtStream s, void* d, int value) {
  aclmdlRI model = nullptr;
  check(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), "capture begin");
  check(aclrtMemsetAsync(d, 64, value, 64, s), "captured memset");
  check(aclmdlRICaptureEnd(s, &model), "capture end");
  return model;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  role = argv[1];
  const std::string dir = argv[2];
  const bool owner = std::strcmp(role, "owner") == 0;
  check(aclInit(nullptr), "aclInit");
  check(aclrtSetDevice(0), "aclrtSetDevice");
  aclrtStream s = nullptr;
  check(aclrtCreateStream(&s), "create stream");
  void* d = nullptr;
  check(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), "malloc");
  if (owner) {
    // A memset, then a 2-block kernel adding 1 to each of the 64 bytes.
    aclmdlRI model = nullptr;
    auto* bytes = static_cast<uint8_t*>(d);
    check(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), "capture begin");
    check(aclrtMemsetAsync(d, 64, 0x5A, 64, s), "captured memset");
    if (ascendsim::ascendc::launch("AddOne", 2, nullptr, s, [=]() {
          const int64_t b = ascendsimAscendCBlockIdx();
          for (int64_t i = b * 32; i < (b + 1) * 32; ++i)
            bytes[i] = static_cast<uint8_t>(bytes[i] + 1);
        }) != 0)
      die("captured kernel");
    check(aclmdlRICaptureEnd(s, &model), "capture end");
    check(aclmdlRIExecuteAsync(model, s), "launch");
    check(aclrtSynchronizeStream(s), "synchronize");
    std::vector<uint8_t> back(64);
    check(aclrtMemcpy(back.data(), 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST), "copy");
    for (size_t i = 0; i < back.size(); ++i) {
      if (back[i] != 0x5B)
        die("byte " + std::to_string(i) + " is " + std::to_string(back[i]) + ", expected 91");
    }
    aclrtLabel label = nullptr;
    aclrtLabelList list = nullptr;
    check(aclrtCreateLabel(&label), "create label");
    check(aclrtCreateLabelList(&label, 1, &list), "create label list");
    {
      std::ofstream out(dir + "/handles.tmp");
      out << reinterpret_cast<uintptr_t>(model) << ' ' << reinterpret_cast<uintptr_t>(label) << ' '
          << reinterpret_cast<uintptr_t>(list) << '\n';
    }
    std::rename((dir + "/handles.tmp").c_str(), (dir + "/handles").c_str());
    if (!waitForFile(dir + "/done")) die("the other process never finished");
    check(aclmdlRIExecuteAsync(model, s), "last launch");
    std::printf("owner ok\n");
    std::fflush(stdout);
    std::_Exit(0);  // at once, without destroying anything: the server destroys them for it
  }
  if (!waitForFile(dir + "/handles")) die("no handles from the owner");
  uintptr_t m = 0, l = 0, ll = 0;
  {
    std::ifstream in(dir + "/handles");
    in >> m >> l >> ll;
  }
  auto model = reinterpret_cast<aclmdlRI>(m);
  auto label = reinterpret_cast<aclrtLabel>(l);
  auto list = reinterpret_cast<aclrtLabelList>(ll);
  uint32_t id = 0;
  aclrtLabelList mine = nullptr;
  aclmdlRICondHandle cond = nullptr;
  refused(aclmdlRIExecuteAsync(model, s), "launch another's model");
  refused(aclmdlRIExecute(model, -1), "run another's model");
  refused(aclmdlRIGetId(model, &id), "another's model's id");
  refused(aclmdlRISetName(model, "mine"), "name another's model");
  refused(aclmdlRICondHandleCreate(model, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &cond),
          "a condition of another's model");
  refused(aclmdlRIDestroy(model), "destroy another's model");
  refused(aclrtCreateLabelList(&label, 1, &mine), "a list of another's label");
  refused(aclrtSwitchLabelByIndex(d, 1, list, s), "switch by another's list");
  refused(aclrtDestroyLabelList(list), "destroy another's list");
  refused(aclrtDestroyLabel(label), "destroy another's label");

  // Its own model runs, beside the owner's.
  aclmdlRI own = captureMemset(s, d, 0x2B);
  check(aclrtMemset(d, 64, 0, 64), "clear");
  for (int launch = 0; launch < 2; ++launch) {
    check(aclmdlRIExecuteAsync(own, s), "launch");
    check(aclrtSynchronizeStream(s), "synchronize");
  }
  std::vector<uint8_t> back(64);
  check(aclrtMemcpy(back.data(), 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST), "copy");
  for (size_t i = 0; i < back.size(); ++i) {
    if (back[i] != 0x2B)
      die("byte " + std::to_string(i) + " is " + std::to_string(back[i]) + ", expected 43");
  }
  check(aclmdlRIDestroy(own), "destroy own");
  check(aclrtDestroyStream(s), "destroy stream");
  check(aclrtFree(d), "free");
  check(aclrtResetDevice(0), "reset");
  check(aclFinalize(), "finalize");
  std::ofstream(dir + "/done") << "done\n";
  std::printf("other ok\n");
  return 0;
}
