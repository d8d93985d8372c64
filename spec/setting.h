#pragma once
// A setting a user can write in a config, declared once: its key, what it means, its default and
// what it allows (for the docs), how it is read into a spec struct and how it is written back.
// Each section of a config (host, dma, a memory, a link ...) is a list of them, in reading order;
// the reader, the writer (`config show`, and with it the sustained-rate cache key) and the tables
// of docs/configuration.md (`ascendsim config fields --markdown`) all walk that list, so a setting
// cannot be read and forgotten elsewhere.

#include <functional>
#include <string>
#include <vector>

namespace YAML {
class Emitter;
}

namespace ascendsim::spec {

class FieldReader;

template <class Spec>
struct Setting {
  std::string key;
  std::string meaning;
  std::string defaultText;               // for the docs
  std::function<std::string()> allowed;  // for the docs (late: kinds register at start-up)
  bool requiredWithoutPreset = false;    // memory sections: a section without `preset` must give it
  // Reads the key (if present) into the spec; `required` when a memory section has no preset.
  std::function<void(FieldReader&, Spec&, bool required)> read;
  // Writes the key and its value (nothing when it has none to write).
  std::function<void(YAML::Emitter&, const Spec&)> write;
  // A valid value other than the default, as YAML text: tests set it and expect `config show` to
  // give it back, which proves the reader and the writer reach the same member.
  std::string sample = "";
};

template <class Spec>
using Settings = std::vector<Setting<Spec>>;

// Reads every setting of `settings` present in the reader's map (and nothing else).
template <class Spec>
void readSettings(const Settings<Spec>& settings, FieldReader& r, Spec& spec,
                  bool required = false) {
  for (const Setting<Spec>& s : settings) s.read(r, spec, required);
}

// Writes every setting's key and value into an open map.
template <class Spec>
void writeSettings(const Settings<Spec>& settings, YAML::Emitter& out, const Spec& spec) {
  for (const Setting<Spec>& s : settings) s.write(out, spec);
}

// One row of a docs table: key, meaning, default, allowed.
struct SettingRow {
  std::string key, meaning, defaultText, allowed;
};

template <class Spec>
std::vector<SettingRow> settingRows(const Settings<Spec>& settings) {
  std::vector<SettingRow> rows;
  for (const Setting<Spec>& s : settings)
    rows.push_back({s.key, s.meaning, s.defaultText, s.allowed()});
  return rows;
}

// The Markdown table docs/configuration.md shows for a section.
std::string settingsMarkdown(const std::vector<SettingRow>& rows);

}  // namespace ascendsim::spec
