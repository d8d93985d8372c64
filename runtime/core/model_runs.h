#pragma once
// Model run instances (aclmdlRI): task graphs a program builds on persistent streams
// (aclmdlRIBuildBegin, aclmdlRIBindStream ...) or captures from a stream (aclmdlRICaptureBegin ..
// End), with labels, stream switches and conditions, replayed by aclmdlRIExecute(Async) as one
// launch. The service keeps the models, their recorded steps, the captures and task groups in
// progress, labels and condition handles; the runtime hands it each task a recording stream
// receives, and a way to queue tasks on streams while the simulation runs (a replay queues its
// tasks as it goes: a condition, a label switch or a stream switch decides what comes next when
// it runs, on the device).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/task/task.h"
#include "runtime/core/handle_table.h"
#include "runtime/core/memory_manager.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime {

struct ModelRI;

// aclrtLabel: a place in one stream of a model being built (aclrtSetLabel puts it there).
struct Label {
  Device* device = nullptr;
  ModelRI* model = nullptr;  // set by aclrtSetLabel
  size_t stream = 0;         // its stream's index in the model
  size_t position = 0;       // the step it stands before
  uint32_t number = 0;       // the model's labels in the order they were set, from 0 (trace)
};

struct LabelList {
  std::vector<Label*> labels;
};

// aclmdlRICondHandle: 8 bytes of device memory a condition task reads; ASSIGN_DEFAULT sets them
// to the default value as each launch of the model begins.
struct CondHandle {
  ModelRI* model = nullptr;
  void* pointer = nullptr;
  models::MemoryPlace place;
  uint64_t defaultValue = 0;
};

// One step of a model's stream: a task to replay, or a control step.
struct ModelStep {
  enum class Kind { Task, SetLabel, SwitchLabel, ActiveStream, SwitchStream, Cond, EndGraph };
  Kind kind = Kind::Task;
  std::shared_ptr<models::Task> task;  // Task: the template (its `release` runs when it goes)
  bool waitsExternal = false;  // an event wait that takes the next record made outside the model
  Label* label = nullptr;      // SetLabel
  // SwitchLabel: the uint32 index at `value` picks a label of `labels` (below `maxValue`).
  models::MemoryPlace value;
  uint32_t maxValue = 0;
  std::vector<Label*> labels;
  // SwitchStream: activates `target` when `value` cond `right` (int32 or int64); ActiveStream
  // activates it unconditionally.
  models::MemoryPlace right;
  int32_t compare = 0;
  int32_t dataType = 0;
  size_t target = 0;  // the activated stream's index in the model
  // Cond: IF / WHILE / SWITCH over the handle's value, running one of `branches` inline.
  CondHandle* cond = nullptr;
  int32_t condType = 0;
  std::vector<ModelRI*> branches;
};

struct ModelStream {
  Stream* stream = nullptr;  // a bound persistent stream; the capturing stream (not run on)
  bool head = false;
  std::vector<ModelStep> steps;
};

struct ModelRI {
  uint32_t id = 0;
  std::string name;
  Device* device = nullptr;
  Context* context = nullptr;
  enum class Origin { Built, Captured, Branch };
  Origin origin = Origin::Built;
  bool complete = false;  // aclmdlRIBuildEnd / aclmdlRICaptureEnd done
  std::vector<ModelStream> streams;
  // Captured models replay their one stream on a stream of their own (`steps`); every model is
  // launched by aclmdlRIExecute from `launch`. Both are internal streams of the device.
  Stream* steps = nullptr;
  Stream* launch = nullptr;
  std::vector<CondHandle*> conds;  // (owned by the service)
  std::vector<ModelRI*> branches;  // sub-models of its condition tasks, destroyed with it
  ModelRI* parent = nullptr;
  std::shared_ptr<uint32_t> running = std::make_shared<uint32_t>(0);  // launches not ended
  std::string traceName() const { return name.empty() ? "modelRI " + std::to_string(id) : name; }
};

// aclrtTaskGrp: steps [begin, end) of one stream of a captured model.
struct TaskGroup {
  ModelRI* model = nullptr;
  size_t stream = 0, begin = 0, end = 0;
};

class ModelRuns {
 public:
  // Queues a task on a stream while the simulation runs (from a task's end), at `when`.
  using Queue = std::function<void(Stream&, std::unique_ptr<models::Task>, spec::Picoseconds)>;
  ModelRuns(MemoryManager& memory, Queue queue) : memory_(memory), queue_(std::move(queue)) {}

  // ---- models
  ModelRI& create(Device& device, Context* context, ModelRI::Origin origin);
  ModelRI& model(const void* handle);  // fails (107000) for a handle that names no model
  ModelRI* findModel(const void* handle) { return models_.find(handle); }
  // Releases the model, its branches and their recorded tasks; returns its internal streams for
  // the runtime to release.
  std::vector<Stream*> destroy(ModelRI& m);
  void bind(ModelRI& m, Stream& s, uint32_t flag);
  void unbind(ModelRI& m, Stream& s);
  void buildEnd(ModelRI& m);
  // The stream is going (destroyed, or its device reset): it records nothing more, and models
  // bound to it run nothing on it.
  void forgetStream(const Stream& s);
  std::vector<const ModelStream*> boundStreams(const ModelRI& m) const;

  // ---- what a stream records instead of running
  // The model and stream index `s`'s tasks go to now (capture, building or a task update), or
  // none.
  bool recording(const Stream& s) const { return recordings_.count(&s) > 0; }
  void record(const Stream& s, std::unique_ptr<models::Task> task, bool waitsExternal = false);
  // Control steps of a model being built (or captured): fail when `s` records nothing.
  void addStep(const Stream& s, ModelStep step);
  size_t streamIndex(const ModelRI& m, const Stream& s) const;  // fails 107005 if not bound
  ModelRI& recordingModel(const Stream& s);  // fails 107029 when `s` records nothing

  // ---- capture
  void captureBegin(Stream& s, int32_t mode, uint32_t thread, ModelRI& into);
  ModelRI* captureEnd(const Stream& s, uint32_t thread);
  bool capturing(const Stream& s) const;
  ModelRI* captureModel(const Stream& s) const;
  // aclmdlRICaptureThreadExchangeMode: the thread's new mode in, its old one out.
  int32_t exchangeMode(uint32_t thread, int32_t mode);
  // Whether a call that would block (a synchronous copy or memset) may run on `thread` while
  // captures are active in `context` (CANN's rule: the thread's exchange mode against the modes
  // of the context's captures and of the thread's own).
  bool unsafeCallAllowed(const Context* context, uint32_t thread) const;
  void taskGroupBegin(const Stream& s);
  TaskGroup& taskGroupEnd(const Stream& s);
  TaskGroup& taskGroup(const void* handle);
  void updateBegin(const Stream& s, TaskGroup& group);
  void updateEnd(const Stream& s);

  // ---- labels and conditions
  Label& createLabel(Device& device);
  Label& label(const void* handle);
  void destroyLabel(const void* handle);
  LabelList& createLabelList(std::vector<Label*> labels);
  LabelList& labelList(const void* handle);
  void destroyLabelList(const void* handle);
  void setLabel(Label& label, const Stream& s);
  CondHandle& addCond(ModelRI& m, void* pointer, models::MemoryPlace place, uint64_t value);
  CondHandle& cond(const void* handle);

  // ---- replay
  // Starts one launch of `m` as the task that launches it ends (at `now`): queues the head
  // streams' first steps; `ended` is recorded when every stream it activated has run out.
  void start(ModelRI& m, std::shared_ptr<models::SyncPoint> ended, spec::Picoseconds now);
  std::string describe(const ModelRI& m, bool verbose) const;  // aclmdlRIDebugJsonPrint's JSON

 private:
  struct Recording {
    ModelRI* model = nullptr;
    size_t stream = 0;
    bool capture = false;
    int32_t mode = 0;
    uint32_t thread = 0;
    bool grouping = false;
    size_t groupBegin = 0;
    TaskGroup* update = nullptr;  // aclmdlRICaptureTaskUpdateBegin: its new tasks go here
    std::vector<std::shared_ptr<models::Task>> updated;
  };
  struct Run;
  struct Cursor;
  void startStream(const std::shared_ptr<Run>& run, size_t stream, spec::Picoseconds now);
  void pump(const std::shared_ptr<Cursor>& c, spec::Picoseconds now);
  void pushControl(const std::shared_ptr<Cursor>& c, const std::string& name,
                   std::function<void(spec::Picoseconds)> then, spec::Picoseconds now);
  uint64_t readValue(const models::MemoryPlace& place, uint64_t bytes);
  Recording& recordingOf(const Stream& s);

  MemoryManager& memory_;
  Queue queue_;
  HandleTable<ModelRI> models_;
  HandleTable<Label> labels_;
  HandleTable<LabelList> labelLists_;
  HandleTable<CondHandle> conds_;
  HandleTable<TaskGroup> groups_;
  std::map<const Stream*, Recording> recordings_;
  std::map<uint32_t, int32_t> exchangeModes_;  // by host thread; GLOBAL when absent
  uint32_t nextModelId_ = 0;
};

}  // namespace ascendsim::runtime
