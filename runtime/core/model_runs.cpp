#include "runtime/core/model_runs.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "acl/acl_rt.h"
#include "models/task/sim_time.h"
#include "runtime/core/errors.h"

namespace ascendsim::runtime {

using models::Task;
using models::TaskKind;

// ---------------------------------------------------------------- models

ModelRI& ModelRuns::create(Device& device, Context* context, ModelRI::Origin origin) {
  auto m = std::make_unique<ModelRI>();
  m->id = nextModelId_++;
  m->device = &device;
  m->context = context;
  m->origin = origin;
  return models_.add(std::move(m));
}

ModelRI& ModelRuns::model(const void* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
  ModelRI* m = models_.find(handle);
  if (!m) fail(ACL_ERROR_RT_PARAM_INVALID, "modelRI does not exist (destroyed already?)");
  return *m;
}

std::vector<Stream*> ModelRuns::destroy(ModelRI& m) {
  std::vector<Stream*> internal;
  for (ModelRI* branch : m.branches) {
    std::vector<Stream*> more = destroy(*branch);
    internal.insert(internal.end(), more.begin(), more.end());
  }
  for (auto it = recordings_.begin(); it != recordings_.end();) {
    it = it->second.model == &m ? recordings_.erase(it) : std::next(it);
  }
  for (ModelStream& ms : m.streams) {
    for (ModelStep& step : ms.steps) {
      if (step.task && step.task->release) step.task->release();  // the memories it held
    }
  }
  for (Label* l : labels_.all()) {
    if (l->model == &m) l->model = nullptr;
  }
  for (TaskGroup* g : groups_.all()) {
    if (g->model == &m) groups_.erase(g);
  }
  for (CondHandle* c : m.conds) conds_.erase(c);
  if (m.steps) internal.push_back(m.steps);
  if (m.launch) internal.push_back(m.launch);
  models_.erase(&m);
  return internal;
}

void ModelRuns::bind(ModelRI& m, Stream& s, uint32_t flag) {
  if (m.origin != ModelRI::Origin::Built)
    fail(ACL_ERROR_RT_PARAM_INVALID, "only a model made by aclmdlRIBuildBegin binds streams");
  if (m.complete)
    fail(ACL_ERROR_RT_PARAM_INVALID, "the model's build has ended (aclmdlRIBuildEnd)");
  if (!(s.flags & ACL_STREAM_PERSISTENT)) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "only ACL_STREAM_PERSISTENT streams are bound to a model "
         "(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT))");
  }
  if (flag != ACL_MODEL_STREAM_FLAG_HEAD && flag != ACL_MODEL_STREAM_FLAG_DEFAULT) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "flag " + std::to_string(flag) +
             " is neither ACL_MODEL_STREAM_FLAG_HEAD (0) nor ACL_MODEL_STREAM_FLAG_DEFAULT");
  }
  if (s.device != m.device)
    fail(ACL_ERROR_RT_STREAM_CONTEXT, "the stream and the model are on different devices");
  if (recording(s)) fail(ACL_ERROR_RT_PARAM_INVALID, "the stream is bound to a model already");
  ModelStream ms;
  ms.stream = &s;
  ms.head = flag == ACL_MODEL_STREAM_FLAG_HEAD;
  m.streams.push_back(std::move(ms));
  Recording r;
  r.model = &m;
  r.stream = m.streams.size() - 1;
  recordings_[&s] = r;
}

void ModelRuns::unbind(ModelRI& m, Stream& s) {
  auto it = std::find_if(m.streams.begin(), m.streams.end(),
                         [&](const ModelStream& ms) { return ms.stream == &s; });
  if (it == m.streams.end())
    fail(ACL_ERROR_RT_STREAM_MODEL, "the stream is not bound to this model");
  if (*m.running > 0) fail(ACL_ERROR_RT_MODEL_RUNNING, "the model is still running");
  it->stream = nullptr;  // (its steps stay where control steps find them by index)
  recordings_.erase(&s);
}

void ModelRuns::buildEnd(ModelRI& m) {
  if (m.origin != ModelRI::Origin::Built)
    fail(ACL_ERROR_RT_PARAM_INVALID, "the model was not made by aclmdlRIBuildBegin");
  if (m.complete) fail(ACL_ERROR_RT_PARAM_INVALID, "the model's build has ended already");
  if (std::none_of(m.streams.begin(), m.streams.end(),
                   [](const ModelStream& ms) { return ms.head; })) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "the model has no head stream (aclmdlRIBindStream with ACL_MODEL_STREAM_FLAG_HEAD)");
  }
  for (size_t i = 0; i < m.streams.size(); ++i) {
    for (const ModelStep& step : m.streams[i].steps) {
      for (const Label* l : step.labels) {
        if (l->model != &m || l->stream != i) {
          fail(ACL_ERROR_RT_PARAM_INVALID,
               "a label of a label switch was not set (aclrtSetLabel) on the switch's stream");
        }
      }
    }
  }
  m.complete = true;
  // The bound streams keep their steps; tasks queued on them from now on run as usual.
  for (ModelStream& ms : m.streams) recordings_.erase(ms.stream);
}

void ModelRuns::forgetStream(const Stream& s) {
  recordings_.erase(&s);
  for (ModelRI* m : models_.all()) {
    for (ModelStream& ms : m->streams)
      if (ms.stream == &s) ms.stream = nullptr;
  }
}

std::vector<const ModelStream*> ModelRuns::boundStreams(const ModelRI& m) const {
  std::vector<const ModelStream*> out;
  for (const ModelStream& ms : m.streams)
    if (ms.stream) out.push_back(&ms);
  return out;
}

// ---------------------------------------------------------------- recording

ModelRuns::Recording& ModelRuns::recordingOf(const Stream& s) {
  auto it = recordings_.find(&s);
  if (it == recordings_.end())
    fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
         "the stream is neither being captured nor bound to a model being built");
  return it->second;
}

void ModelRuns::record(const Stream& s, std::unique_ptr<Task> task, bool waitsExternal) {
  Recording& r = recordingOf(s);
  if (r.update) {
    r.updated.push_back(std::shared_ptr<Task>(std::move(task)));
    return;
  }
  ModelStep step;
  step.task = std::shared_ptr<Task>(std::move(task));
  step.waitsExternal = waitsExternal;
  r.model->streams[r.stream].steps.push_back(std::move(step));
}

void ModelRuns::addStep(const Stream& s, ModelStep step) {
  Recording& r = recordingOf(s);
  if (r.update)
    fail(ACL_ERROR_RT_PARAM_INVALID, "a task update takes the group's own kinds of task only");
  r.model->streams[r.stream].steps.push_back(std::move(step));
}

size_t ModelRuns::streamIndex(const ModelRI& m, const Stream& s) const {
  for (size_t i = 0; i < m.streams.size(); ++i)
    if (m.streams[i].stream == &s) return i;
  fail(ACL_ERROR_RT_STREAM_MODEL, "the stream is not bound to the model");
}

ModelRI& ModelRuns::recordingModel(const Stream& s) {
  return *recordingOf(s).model;
}

// ---------------------------------------------------------------- capture

void ModelRuns::captureBegin(Stream& s, int32_t mode, uint32_t thread, ModelRI& into) {
  if (recording(s)) {
    fail(ACL_ERROR_RT_STREAM_CAPTURED,
         "the stream is being captured already (or is bound to a model being built)");
  }
  if (into.complete) fail(ACL_ERROR_RT_MODEL_CAPTURED, "the model has been captured already");
  for (const auto& entry : recordings_) {
    if (entry.second.model == &into && entry.second.capture)
      fail(ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING, "another stream is capturing into the model");
  }
  if (into.streams.empty()) {
    ModelStream ms;
    ms.head = true;
    into.streams.push_back(std::move(ms));
  }
  into.streams[0].stream = &s;
  Recording r;
  r.model = &into;
  r.stream = 0;
  r.capture = true;
  r.mode = mode;
  r.thread = thread;
  recordings_[&s] = r;
}

ModelRI* ModelRuns::captureEnd(const Stream& s, uint32_t thread) {
  auto it = recordings_.find(&s);
  if (it == recordings_.end() || !it->second.capture)
    fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "the stream is not being captured");
  if (it->second.thread != thread) {
    fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
         "the capture was begun by another thread; the thread that began it must end it");
  }
  if (it->second.grouping)
    fail(ACL_ERROR_RT_PARAM_INVALID, "a task group is open (aclmdlRICaptureTaskGrpEnd first)");
  ModelRI* m = it->second.model;
  recordings_.erase(it);
  m->complete = true;
  m->streams[0].stream = nullptr;
  return m;
}

bool ModelRuns::capturing(const Stream& s) const {
  auto it = recordings_.find(&s);
  return it != recordings_.end() && it->second.capture;
}

ModelRI* ModelRuns::captureModel(const Stream& s) const {
  auto it = recordings_.find(&s);
  return it != recordings_.end() && it->second.capture ? it->second.model : nullptr;
}

int32_t ModelRuns::exchangeMode(uint32_t thread, int32_t mode) {
  auto it = exchangeModes_.find(thread);
  const int32_t old = it == exchangeModes_.end() ? ACL_MODEL_RI_CAPTURE_MODE_GLOBAL : it->second;
  exchangeModes_[thread] = mode;
  return old;
}

bool ModelRuns::unsafeCallAllowed(const Context* context, uint32_t thread) const {
  // The strictest (lowest) mode among the context's captures and among the thread's own
  // (GLOBAL 0 < THREAD_LOCAL 1 < RELAXED 2; 3: none), as CANN's Context::IsCaptureModeSupport.
  int32_t contextMode = 3, threadMode = 3;
  for (const auto& entry : recordings_) {
    const Recording& r = entry.second;
    if (!r.capture) continue;
    if (r.model->context == context) contextMode = std::min(contextMode, r.mode);
    if (r.thread == thread) threadMode = std::min(threadMode, r.mode);
  }
  if (contextMode == 3) return true;
  auto it = exchangeModes_.find(thread);
  const int32_t mine = it == exchangeModes_.end() ? ACL_MODEL_RI_CAPTURE_MODE_GLOBAL : it->second;
  if (mine == ACL_MODEL_RI_CAPTURE_MODE_RELAXED) return true;
  if (mine == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
    return contextMode != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL &&
           threadMode != ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
  return threadMode != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL &&
         threadMode != ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
}

void ModelRuns::taskGroupBegin(const Stream& s) {
  auto it = recordings_.find(&s);
  if (it == recordings_.end() || !it->second.capture)
    fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "the stream is not being captured");
  if (it->second.grouping) fail(ACL_ERROR_RT_PARAM_INVALID, "a task group is open already");
  it->second.grouping = true;
  it->second.groupBegin = it->second.model->streams[it->second.stream].steps.size();
}

TaskGroup& ModelRuns::taskGroupEnd(const Stream& s) {
  auto it = recordings_.find(&s);
  if (it == recordings_.end() || !it->second.capture)
    fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "the stream is not being captured");
  Recording& r = it->second;
  if (!r.grouping)
    fail(ACL_ERROR_RT_PARAM_INVALID, "no task group is open (aclmdlRICaptureTaskGrpBegin)");
  r.grouping = false;
  auto g = std::make_unique<TaskGroup>();
  g->model = r.model;
  g->stream = r.stream;
  g->begin = r.groupBegin;
  g->end = r.model->streams[r.stream].steps.size();
  return groups_.add(std::move(g));
}

TaskGroup& ModelRuns::taskGroup(const void* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
  TaskGroup* g = groups_.find(handle);
  if (!g) fail(ACL_ERROR_RT_PARAM_INVALID, "the task group does not exist (its model destroyed?)");
  return *g;
}

void ModelRuns::updateBegin(const Stream& s, TaskGroup& group) {
  if (recording(s))
    fail(ACL_ERROR_RT_STREAM_CAPTURED, "the stream is being captured or updates a group already");
  if (!group.model->complete)
    fail(ACL_ERROR_RT_PARAM_INVALID, "the group's model is still being captured");
  Recording r;
  r.model = group.model;
  r.stream = group.stream;
  r.update = &group;
  recordings_[&s] = r;
}

void ModelRuns::updateEnd(const Stream& s) {
  auto it = recordings_.find(&s);
  if (it == recordings_.end() || !it->second.update)
    fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "the stream is not updating a task group");
  Recording r = std::move(it->second);
  recordings_.erase(it);
  TaskGroup& g = *r.update;
  std::vector<ModelStep>& steps = g.model->streams[g.stream].steps;
  const size_t n = g.end - g.begin;
  if (r.updated.size() != n) {
    fail(ACL_ERROR_RT_MODEL_UPDATE_FAILED, "the update gave " + std::to_string(r.updated.size()) +
                                               " task(s); the group holds " + std::to_string(n));
  }
  for (size_t i = 0; i < n; ++i) {
    const ModelStep& old = steps[g.begin + i];
    if (!old.task || old.task->kind != r.updated[i]->kind) {
      fail(ACL_ERROR_RT_MODEL_UPDATE_FAILED,
           "task " + std::to_string(i) + " of the update is not of the kind it replaces");
    }
  }
  for (size_t i = 0; i < n; ++i) {
    ModelStep& step = steps[g.begin + i];
    if (step.task->release) step.task->release();
    step.task = r.updated[i];
  }
}

// ---------------------------------------------------------------- labels and conditions

Label& ModelRuns::createLabel(Device& device) {
  auto l = std::make_unique<Label>();
  l->device = &device;
  return labels_.add(std::move(l));
}

Label& ModelRuns::label(const void* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "label is NULL");
  Label* l = labels_.find(handle);
  if (!l) fail(ACL_ERROR_RT_PARAM_INVALID, "the label does not exist (destroyed already?)");
  return *l;
}

void ModelRuns::destroyLabel(const void* handle) {
  Label& l = label(handle);
  for (LabelList* list : labelLists_.all()) {
    if (std::count(list->labels.begin(), list->labels.end(), &l)) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           "the label is in a label list: destroy the list first (aclrtDestroyLabelList)");
    }
  }
  labels_.erase(&l);
}

LabelList& ModelRuns::createLabelList(std::vector<Label*> labels) {
  auto list = std::make_unique<LabelList>();
  list->labels = std::move(labels);
  return labelLists_.add(std::move(list));
}

LabelList& ModelRuns::labelList(const void* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "labelList is NULL");
  LabelList* l = labelLists_.find(handle);
  if (!l) fail(ACL_ERROR_RT_PARAM_INVALID, "the label list does not exist (destroyed already?)");
  return *l;
}

void ModelRuns::destroyLabelList(const void* handle) {
  labelLists_.erase(&labelList(handle));
}

void ModelRuns::setLabel(Label& label, const Stream& s) {
  Recording& r = recordingOf(s);
  if (r.update) fail(ACL_ERROR_RT_PARAM_INVALID, "a task update takes no labels");
  if (label.model) fail(ACL_ERROR_RT_PARAM_INVALID, "the label has been set already");
  std::vector<ModelStep>& steps = r.model->streams[r.stream].steps;
  label.number = 0;
  for (const ModelStream& ms : r.model->streams)
    for (const ModelStep& st : ms.steps) label.number += st.kind == ModelStep::Kind::SetLabel;
  label.model = r.model;
  label.stream = r.stream;
  label.position = steps.size();
  ModelStep step;
  step.kind = ModelStep::Kind::SetLabel;
  step.label = &label;
  steps.push_back(std::move(step));
}

CondHandle& ModelRuns::addCond(ModelRI& m, void* pointer, models::MemoryPlace place,
                               uint64_t value) {
  auto c = std::make_unique<CondHandle>();
  c->model = &m;
  c->pointer = pointer;
  c->place = place;
  c->defaultValue = value;
  CondHandle& ref = conds_.add(std::move(c));
  m.conds.push_back(&ref);
  return ref;
}

CondHandle& ModelRuns::cond(const void* handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
  CondHandle* c = conds_.find(handle);
  if (!c) fail(ACL_ERROR_RT_PARAM_INVALID, "the condition handle does not exist");
  return *c;
}

// ---------------------------------------------------------------- replay

// One launch of a model: its streams activated so far that have not run out.
struct ModelRuns::Run {
  ModelRI* model = nullptr;
  std::shared_ptr<models::SyncPoint> ended;
  std::shared_ptr<uint32_t> running;
  uint32_t active = 0;
  bool finished = false;
};

// Where one activated stream of a launch is: a stack of step lists (the stream's own, a
// condition's branch inside it ...).
struct ModelRuns::Cursor {
  std::shared_ptr<Run> run;
  Stream* queue = nullptr;  // the stream its tasks are queued on
  struct Frame {
    const ModelRI* model;
    const std::vector<ModelStep>* steps;
    size_t pc;
    const ModelStep* loop;  // a WHILE's step: tested again when the body has run
    std::string label;      // the last label passed, for the trace
  };
  std::vector<Frame> frames;
  // The last task queued since the cursor last waited (every earlier one has ended when a pump
  // begins: it is called as the stream's last queued task ends): the stream has run out when it
  // ends.
  Task* pending = nullptr;
};

uint64_t ModelRuns::readValue(const models::MemoryPlace& place, uint64_t bytes) {
  const std::vector<uint8_t> b = memory_.readDevice(place, bytes, false);
  uint64_t v = 0;
  std::memcpy(&v, b.data(), std::min<size_t>(b.size(), sizeof v));  // little-endian
  if (bytes == 4) return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
  return v;
}

void ModelRuns::start(ModelRI& m, std::shared_ptr<models::SyncPoint> ended, spec::Picoseconds now) {
  auto run = std::make_shared<Run>();
  run->model = &m;
  run->ended = std::move(ended);
  run->running = m.running;
  // ASSIGN_DEFAULT handles take their default value as the launch begins.
  for (const CondHandle* c : m.conds) {
    std::vector<uint8_t> bytes(8);
    std::memcpy(bytes.data(), &c->defaultValue, 8);
    memory_.writeDevice(c->place, bytes);
  }
  run->active = 1;  // (held while the heads start, so that an empty one does not end the launch)
  for (size_t i = 0; i < m.streams.size(); ++i)
    if (m.streams[i].head) startStream(run, i, now);
  if (--run->active == 0 && !run->finished) {
    run->finished = true;
    --*run->running;
    run->ended->recordsCompleted++;
    run->ended->lastRecordTime = now;
    run->ended->recorded = true;
  }
}

void ModelRuns::startStream(const std::shared_ptr<Run>& run, size_t stream, spec::Picoseconds now) {
  ModelRI& m = *run->model;
  auto c = std::make_shared<Cursor>();
  c->run = run;
  c->queue = m.origin == ModelRI::Origin::Built ? m.streams[stream].stream : m.steps;
  if (!c->queue) return;  // unbound since: nothing runs there
  c->frames.push_back({&m, &m.streams[stream].steps, 0, nullptr, ""});
  ++run->active;
  pump(c, now);
}

void ModelRuns::pushControl(const std::shared_ptr<Cursor>& c, const std::string& name,
                            std::function<void(spec::Picoseconds)> then, spec::Picoseconds now) {
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::Control;
  task->control = name;
  const Cursor::Frame& f = c->frames.back();
  task->model = f.model->traceName() + (f.label.empty() ? "" : " " + f.label);
  task->dst.device = c->run->model->device->id;
  std::shared_ptr<const bool> cancelled = c->queue->stopped;
  // (`release`, not `effect`: a discarded control task must still let the launch end.)
  task->release = [this, c, then, cancelled] {
    if (*cancelled) {
      c->frames.clear();  // the stream was stopped: the launch ends here
      pump(c, models::simNow());
      return;
    }
    then(models::simNow());
  };
  queue_(*c->queue, std::move(task), now);
}

void ModelRuns::pump(const std::shared_ptr<Cursor>& c, spec::Picoseconds now) {
  c->pending = nullptr;
  for (;;) {
    if (c->frames.empty()) {
      if (c->pending) {
        // Out of steps: the stream is done once its last queued task ends.
        Task* last = c->pending;
        last->release = [this, c] { pump(c, models::simNow()); };
        return;
      }
      Run& run = *c->run;
      if (--run.active == 0 && !run.finished) {
        run.finished = true;
        --*run.running;
        run.ended->recordsCompleted++;
        run.ended->lastRecordTime = now;
        run.ended->recorded = true;
      }
      return;
    }
    Cursor::Frame& f = c->frames.back();
    if (f.pc >= f.steps->size()) {
      const ModelStep* loop = f.loop;
      const ModelRI* model = f.model;
      const std::vector<ModelStep>* steps = f.steps;
      c->frames.pop_back();
      if (!loop) continue;
      // WHILE: the condition is read again once the body has run (the body's frame stays, run
      // out, until then).
      c->frames.push_back({model, steps, steps->size(), nullptr, ""});
      pushControl(
          c, "COND_WHILE",
          [this, c, loop](spec::Picoseconds at) {
            c->frames.pop_back();
            if (readValue(loop->cond->place, 8) != 0) {
              const ModelRI* body = loop->branches[0];
              c->frames.push_back({body, &body->streams[0].steps, 0, loop, ""});
            }
            pump(c, at);
          },
          now);
      return;
    }
    const ModelStep& step = (*f.steps)[f.pc++];
    switch (step.kind) {
      case ModelStep::Kind::Task: {
        auto task = std::make_unique<Task>(*step.task);
        task->release = nullptr;
        task->startTime = task->endTime = -1;
        task->channel = -1;
        task->cancelled = c->queue->stopped;
        task->model = f.model->traceName() + (f.label.empty() ? "" : " " + f.label);
        const bool barrier = task->kind == TaskKind::EventWait;
        if (task->kind == TaskKind::EventRecord) task->sync->recordsSubmitted++;
        if (barrier) {
          // A wait for work outside the model takes the next record not yet taken; one inside
          // it, the latest record queued. What follows it is queued once it has ended (a task
          // update made meanwhile applies).
          if (step.waitsExternal) {
            task->resetsFlag = true;
          } else {
            task->resetsFlag = false;
            task->waitForRecord = std::max<uint64_t>(task->sync->recordsSubmitted, 1);
          }
          task->sync->waitsSubmitted++;
          task->release = [this, c] { pump(c, models::simNow()); };
        }
        Task* raw = task.get();
        queue_(*c->queue, std::move(task), now);
        if (barrier) return;
        c->pending = raw;
        continue;
      }
      case ModelStep::Kind::SetLabel:
        f.label = "label " + std::to_string(step.label->number);
        continue;
      case ModelStep::Kind::EndGraph:
        pushControl(
            c, "MODEL_END_GRAPH",
            [this, c](spec::Picoseconds at) {
              c->frames.clear();
              pump(c, at);
            },
            now);
        return;
      case ModelStep::Kind::SwitchLabel: {
        const ModelStep* s = &step;
        pushControl(
            c, "LABEL_SWITCH",
            [this, c, s](spec::Picoseconds at) {
              const uint64_t index = readValue(s->value, 4) & 0xFFFFFFFFu;
              // An index past the list (or `maxValue`) goes on with the next step.
              if (index < s->labels.size() && index < s->maxValue) {
                const Label& l = *s->labels[index];
                Cursor::Frame& top = c->frames.back();
                top.pc = l.position;
                top.label = "label " + std::to_string(l.number);
              }
              pump(c, at);
            },
            now);
        return;
      }
      case ModelStep::Kind::ActiveStream:
      case ModelStep::Kind::SwitchStream: {
        const ModelStep* s = &step;
        const bool active = step.kind == ModelStep::Kind::ActiveStream;
        pushControl(
            c, active ? "STREAM_ACTIVE" : "STREAM_SWITCH",
            [this, c, s, active](spec::Picoseconds at) {
              bool go = active;
              if (!active) {
                const uint64_t bytes = s->dataType == ACL_RT_SWITCH_INT64 ? 8 : 4;
                const int64_t l = static_cast<int64_t>(readValue(s->value, bytes));
                const int64_t r = static_cast<int64_t>(readValue(s->right, bytes));
                switch (s->compare) {
                  case ACL_RT_EQUAL: go = l == r; break;
                  case ACL_RT_NOT_EQUAL: go = l != r; break;
                  case ACL_RT_GREATER: go = l > r; break;
                  case ACL_RT_GREATER_OR_EQUAL: go = l >= r; break;
                  case ACL_RT_LESS: go = l < r; break;
                  default: go = l <= r; break;  // ACL_RT_LESS_OR_EQUAL
                }
              }
              if (go) startStream(c->run, s->target, at);
              pump(c, at);
            },
            now);
        return;
      }
      case ModelStep::Kind::Cond: {
        const ModelStep* s = &step;
        static const char* const names[] = {"COND_IF", "COND_WHILE", "COND_SWITCH"};
        pushControl(
            c, names[step.condType],
            [this, c, s](spec::Picoseconds at) {
              const uint64_t v = readValue(s->cond->place, 8);
              const ModelRI* branch = nullptr;
              const ModelStep* loop = nullptr;
              if (s->condType == ACL_MODEL_RI_COND_TYPE_IF) {
                // branches[0] when the value is not 0, branches[1] (if any) when it is.
                if (v != 0)
                  branch = s->branches[0];
                else if (s->branches.size() > 1)
                  branch = s->branches[1];
              } else if (s->condType == ACL_MODEL_RI_COND_TYPE_WHILE) {
                if (v != 0) {
                  branch = s->branches[0];
                  loop = s;
                }
              } else {
                // SWITCH: the branch the value names; past the last, none (as CUDA's switch
                // nodes; CANN documents no default).
                if (v < s->branches.size()) branch = s->branches[v];
              }
              if (branch) c->frames.push_back({branch, &branch->streams[0].steps, 0, loop, ""});
              pump(c, at);
            },
            now);
        return;
      }
    }
  }
}

std::string ModelRuns::describe(const ModelRI& m, bool verbose) const {
  std::ostringstream o;
  o << "{\"modelRI\":" << m.id << ",\"name\":\"" << m.traceName() << "\",\"origin\":\""
    << (m.origin == ModelRI::Origin::Built ? "build" : "capture") << "\",\"streams\":[";
  static const char* const kinds[] = {"TASK",           "LABEL_SET",     "LABEL_SWITCH",
                                      "STREAM_ACTIVE",  "STREAM_SWITCH", "COND",
                                      "MODEL_END_GRAPH"};
  for (size_t i = 0; i < m.streams.size(); ++i) {
    const ModelStream& ms = m.streams[i];
    o << (i ? "," : "") << "{\"index\":" << i << ",\"head\":" << (ms.head ? "true" : "false")
      << ",\"tasks\":" << ms.steps.size();
    if (verbose) {
      o << ",\"steps\":[";
      for (size_t k = 0; k < ms.steps.size(); ++k) {
        const ModelStep& s = ms.steps[k];
        o << (k ? "," : "") << "\""
          << (s.kind == ModelStep::Kind::Task ? models::taskKindName(s.task->kind)
                                              : kinds[static_cast<int>(s.kind)])
          << "\"";
      }
      o << "]";
    }
    o << "}";
  }
  o << "]}\n";
  return o.str();
}

}  // namespace ascendsim::runtime
