#pragma once
// Reads the keys of one YAML map into spec fields, checking types, units and ranges, and at the
// end reports any key nobody asked for (with the nearest known key as a suggestion).
// A field keeps its current value when its key is absent, so struct defaults are the defaults.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "spec/config_node.h"
#include "spec/units.h"

namespace ascendsim::spec {

class FieldReader {
 public:
  FieldReader(const ConfigNode& node, std::string path, Diagnostics& diag);

  bool isMap() const { return node_.isMap(); }
  const std::string& path() const { return path_; }
  std::string childPath(const std::string& key) const;
  Diagnostics& diagnostics() { return diag_; }

  // Marks the key as known and returns its value node, or nullptr when absent.
  const ConfigNode* take(const std::string& key);
  // Reports a missing key when absent; returns its value node otherwise.
  const ConfigNode* require(const std::string& key);

  // Each returns true when the key was present and valid (and `out` was set).
  bool integer(const std::string& key, uint32_t& out, int64_t min, int64_t max,
               bool required = false);
  bool integer(const std::string& key, uint64_t& out, int64_t min, int64_t max,
               bool required = false);
  bool integerOneOf(const std::string& key, uint32_t& out, std::initializer_list<uint32_t> allowed);
  bool integerOneOf(const std::string& key, uint32_t& out, const std::vector<uint32_t>& allowed);
  bool bytes(const std::string& key, uint64_t& out, uint64_t min, uint64_t max,
             bool required = false);
  bool bytesPowerOfTwo(const std::string& key, uint64_t& out, uint64_t min, uint64_t max);
  bool duration(const std::string& key, Picoseconds& out, Picoseconds min, Picoseconds max);
  bool bandwidth(const std::string& key, double& out, double min, double max);
  // A limit: a bandwidth in [min, max], or `unlimited` (0).
  bool bandwidthLimit(const std::string& key, double& out, double min, double max);
  bool transferRate(const std::string& key, double& out, double min, double max,
                    bool required = false);
  bool frequency(const std::string& key, double& out, double min, double max,
                 bool required = false);
  bool boolean(const std::string& key, bool& out);
  // A plain number in [min, max]; `meaning` ends the error message ("the share of ...").
  bool fraction(const std::string& key, double& out, double min, double max,
                const std::string& meaning);
  bool text(const std::string& key, std::string& out, bool required = false);
  // Memory timings: a bare integer is clock cycles; a duration is rounded up to whole cycles.
  bool cycles(const std::string& key, uint32_t& out, Picoseconds tCK, uint32_t min, bool required);

  // The name of a registered kind of `family` (spec/kind_registry.h).
  bool kind(const std::string& key, std::string& out, const std::string& family,
            bool required = false);

  template <class E>
  bool choice(const std::string& key, E& out,
              std::initializer_list<std::pair<const char*, E>> allowed, bool required = false) {
    const ConfigNode* v = scalarValue(key, required);
    if (!v) return false;
    for (const auto& [name, value] : allowed) {
      if (v->value() == name) {
        out = value;
        return true;
      }
    }
    std::vector<std::string> names;
    for (const auto& a : allowed) names.emplace_back(a.first);
    badValue(*v, key,
             "'" + v->value() + "' is not allowed; expected one of " + join(names) +
                 suggestion(v->value(), names));
    return false;
  }

  // Reports an error at the key's value (or at the map when the key is absent).
  void error(const std::string& key, const std::string& message);
  void errorAtMap(const std::string& message);

  // Reports the keys of the map that no call above asked for.
  void finish();

  static std::string join(const std::vector<std::string>& names);
  // " (did you mean 'x'?)" when a candidate is close enough, else "".
  static std::string suggestion(const std::string& word,
                                const std::vector<std::string>& candidates);

 private:
  const ConfigNode* scalarValue(const std::string& key, bool required);
  std::optional<int64_t> integerIn(const std::string& key, int64_t min, int64_t max, bool required);
  void badValue(const ConfigNode& value, const std::string& key, const std::string& message);

  const ConfigNode& node_;
  std::string path_;
  Diagnostics& diag_;
  std::vector<std::string> known_;
};

}  // namespace ascendsim::spec
