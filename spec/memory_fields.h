#pragma once
// Every setting of a memory section (host.memory, devices[].memory), declared once: its key, what
// it means, its default and what it allows, how it is read and how it is written. The reader
// (memory_reader.cpp), the writer (`config show`, and with it the sustained-rate cache key) and
// the table of docs/configuration.md (`ascendsim config fields --markdown`) all walk this list,
// so a setting cannot be read and forgotten elsewhere.

#include <functional>
#include <string>
#include <vector>

#include "spec/system_spec.h"

namespace YAML {
class Emitter;
}

namespace ascendsim::spec {

class FieldReader;

struct MemoryField {
  std::string key;
  std::string meaning;
  std::string defaultText;               // for the docs; "preset's" for a figure a preset gives
  std::function<std::string()> allowed;  // for the docs
  bool requiredWithoutPreset = false;    // a section without `preset` must give it
  // Reads the key (if present) into the spec; `required` when the section has no preset.
  std::function<void(FieldReader&, DramSpec&, bool required)> read;
  // Writes the key and its value (nothing when it has none to write).
  std::function<void(YAML::Emitter&, const DramSpec&)> write;
};

// In reading order: the clock before the timings that may be durations.
const std::vector<MemoryField>& memoryFields();

// The Markdown table of the fields, as docs/configuration.md shows it.
std::string memoryFieldsMarkdown();

}  // namespace ascendsim::spec
