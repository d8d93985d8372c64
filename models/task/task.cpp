#include "models/task/task.h"

namespace ascendsim::models {

const char* taskKindName(TaskKind kind) {
  switch (kind) {
    case TaskKind::Copy: return "MEMCPY_ASYNC";
    case TaskKind::Memset: return "MEMSET_ASYNC";
    case TaskKind::EventRecord: return "EVENT_RECORD";
    case TaskKind::EventWait: return "EVENT_WAIT";
    case TaskKind::EventReset: return "EVENT_RESET";
    case TaskKind::Callback: return "HOST_FUNC_CALLBACK";
    case TaskKind::Kernel: return "KERNEL_AICORE";
    case TaskKind::ValueWrite: return "MEM_WRITE_VALUE";
    case TaskKind::ValueWait: return "MEM_WAIT_VALUE";
    case TaskKind::Control: return "MODEL_CONTROL";
  }
  return "?";
}

}  // namespace ascendsim::models
