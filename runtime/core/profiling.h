#pragma once
// Profiling as AscendCL's aclprof* calls drive it (acl/acl_prof.h): a program sets a result
// folder (aclprofInit), then each aclprofStart .. aclprofStop collection writes what the machine
// did meanwhile on the devices it names into a folder of its own there, in msprof's layout:
//   DIR/PROF_<n>_<yyyymmddhhmmssmmm>_<16 letters>/mindstudio_profiler_output/msprof_<stamp>.json
// a Chrome trace (what --trace writes, through a TraceRecorder of its own) that Perfetto and
// MindStudio Insight open. A program on a served machine (exec --shared) profiles on its own: its
// calls, with the tasks of its collection's devices.
// `msprof` (tools/msprof) profiles a whole run without aclprof* calls: ASCENDSIM_PROFILE names the
// result folder and ASCENDSIM_PROFILE_TYPES the ACL_PROF_* bits, and the runtime starts one
// collection of every device at aclInit (startWholeRun), written at aclFinalize or exit.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/sched/device_scheduler.h"
#include "runtime/trace/trace_recorder.h"
#include "spec/system_spec.h"

namespace ascendsim::runtime {

class Profiling : public models::TaskListener {
 public:
  // What one configuration (aclprofConfig) asks for.
  struct Collection {
    std::vector<uint32_t> devices;
    int32_t aicoreMetrics = 0;  // aclprofAicoreMetrics
    uint64_t dataTypes = 0;     // ACL_PROF_* bits
  };
  // The devices a collection may name: the machine's.
  void attach(const spec::SystemSpec& spec) { spec_ = &spec; }

  // `program`: the trace process of the calling program (0 for one on its own machine). Each
  // throws AclFailure with CANN's code when refused.
  void init(int program, const std::string& path);
  void finalize(int program);
  void start(int program, const Collection& what);
  void stop(int program, const Collection& what);
  // One collection of every device and every program's calls into `dir`, until closeAll (msprof).
  void startWholeRun(const std::string& dir, uint64_t dataTypes);
  bool wholeRunActive() const { return programs_.count(kWholeRun) != 0; }

  // The calls and tasks collections record.
  void apiCall(const HostTrack& who, const char* name, spec::Picoseconds start,
               spec::Picoseconds end, int code, TraceArgs& args,
               const std::vector<uint64_t>& tasks);
  void taskStarted(int device, const models::StreamQueue& stream,
                   const models::Task& task) override;
  void taskEnded(int device, const models::StreamQueue& stream, const models::Task& task) override;

  // At the end of the process: every collection still running is written.
  void closeAll();
  void closeFromSignal();

 private:
  static constexpr int kWholeRun = -1;  // the `program` of msprof's collection
  struct Session {
    int program = 0;
    Collection what;
    std::string file;
    TraceRecorder trace;
    bool calls = false, tasks = false;  // what it records
  };
  void check(const Collection& what) const;
  Session* find(int program, const Collection& what);
  std::string newFolder(const std::string& dir);
  bool end(Session& s, std::string& why);

  const spec::SystemSpec* spec_ = nullptr;
  std::map<int, std::string> programs_;  // initialised programs: their result folders
  std::vector<std::unique_ptr<Session>> sessions_;
  uint32_t folders_ = 0;
};

}  // namespace ascendsim::runtime
