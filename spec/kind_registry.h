#pragma once
// Every kind of thing a user chooses by name (a memory standard, a memory timing, a DRAM model, a
// device link, a trace format, a CLI subcommand) is registered from its own file, once, and
// nothing else lists it. The catalogue holds what each kind is (family, name, one-line summary,
// the settings it reads, limits the configuration checks) for validation, `ascendsim config
// kinds` and the documentation; a typed Registry beside it holds what builds the kind.

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ascendsim::kinds {

struct KindInfo {
  std::string family;                    // "dram-standard", "device-link", "trace-format", ...
  std::string name;                      // the name YAML or the command line uses
  std::string summary;                   // one line
  std::vector<std::string> settings;     // the keys or flags it reads
  std::map<std::string, double> limits;  // figures the configuration checks ("max_lane_rate")
};

// Adds a kind to the catalogue. A name registered twice in one family is a programming error:
// it is reported on stderr and the process stops, before any configuration is read.
void addToCatalogue(const KindInfo& info);
// The kind of `family` named `name`, or nullptr.
const KindInfo* findKind(const std::string& family, const std::string& name);
// The names registered in `family`, sorted.
std::vector<std::string> kindNames(const std::string& family);
// Every registered kind, by family and then name.
std::vector<KindInfo> allKinds();
// One line per family: its name and what it chooses (for `config kinds`).
const std::map<std::string, std::string>& familyDescriptions();

// What builds the kinds of one family: `Entry` is a factory or a record of rules. One registry per
// Entry type, filled while the program starts by Registration objects in the kinds' own files.
template <class Entry>
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }
  void add(KindInfo info, Entry entry) {
    addToCatalogue(info);
    std::string name = info.name;
    entries_.emplace(std::move(name), std::make_pair(std::move(info), std::move(entry)));
  }
  const Entry* find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second.second;
  }
  // Calls f(info, entry) for every kind, by name.
  template <class F>
  void forEach(F f) const {
    for (const auto& [name, kind] : entries_) f(kind.first, kind.second);
  }
  // The entry named `name`; a name the configuration let through but nothing registered is a
  // programming error, reported with what is registered.
  const Entry& at(const std::string& family, const std::string& name) const {
    if (const Entry* e = find(name)) return *e;
    std::string known;
    for (const auto& [n, unused] : entries_) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("no " + family + " named '" + name +
                                "' is registered (registered: " + known + ")");
  }

 private:
  std::map<std::string, std::pair<KindInfo, Entry>> entries_;
};

// Registers a kind from its own file: `static const Registration<Entry> r{info, entry};`.
template <class Entry>
struct Registration {
  Registration(KindInfo info, Entry entry) {
    Registry<Entry>::instance().add(std::move(info), std::move(entry));
  }
};

}  // namespace ascendsim::kinds
