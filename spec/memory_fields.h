#pragma once
// Every setting of a memory section (host.memory, devices[].memory), declared once: its key, what
// it means, its default and what it allows, how it is read and how it is written. The reader
// (memory_reader.cpp), the writer (`config show`, and with it the sustained-rate cache key) and
// the table of docs/configuration.md (`ascendsim config fields --markdown`) all walk this list,
// so a setting cannot be read and forgotten elsewhere.

#include <functional>
#include <string>
#include <vector>

#include "spec/setting.h"
#include "spec/system_spec.h"

namespace ascendsim::spec {

// A memory setting: read with `required` true when its section has no `preset`.
using MemoryField = Setting<DramSpec>;

// In reading order: the clock before the timings that may be durations.
const std::vector<MemoryField>& memoryFields();

// The Markdown table of the fields, as docs/configuration.md shows it.
std::string memoryFieldsMarkdown();

}  // namespace ascendsim::spec
