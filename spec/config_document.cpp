// Reading config files and resolving `extends` chains and built-in presets.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "spec/embedded_file.h"
#include "spec/field_reader.h"
#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace fs = std::filesystem;

const EmbeddedFile* findBuiltinConfig(std::string_view path) {
  for (const EmbeddedFile& f : builtinConfigFiles()) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

std::vector<std::string> builtinMachinePresets() {
  std::vector<std::string> names;
  for (const EmbeddedFile& f : builtinConfigFiles()) {
    std::string p(f.path);
    if (p.find('/') == std::string::npos && p.size() > 5)
      names.push_back(p.substr(0, p.size() - 5));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> builtinMemoryPresets() {
  std::vector<std::string> names;
  for (const EmbeddedFile& f : builtinConfigFiles()) {
    std::string p(f.path);
    if (p.rfind("memory/", 0) == 0) names.push_back(p.substr(7, p.size() - 12));
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

constexpr const char* kBuiltinPrefix = "<builtin>/";

struct Source {
  std::string name;  // what diagnostics call it
  std::string text;
  std::string key;  // identity for cycle detection
  fs::path dir;     // where its relative `extends` resolve; empty for built-ins
};

// Finds `ref` relative to `baseDir` on disk, else as a built-in preset.
bool resolveSource(const std::string& ref, const fs::path& baseDir, Source& out) {
  fs::path candidate = fs::path(ref);
  if (candidate.is_relative() && !baseDir.empty()) candidate = baseDir / candidate;
  std::error_code ec;
  if (fs::is_regular_file(candidate, ec)) {
    std::ifstream in(candidate, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    out = {candidate.lexically_normal().string(), text.str(),
           fs::weakly_canonical(candidate, ec).string(), candidate.parent_path()};
    return true;
  }
  std::string name = ref;
  if (name.rfind(kBuiltinPrefix, 0) == 0) name = name.substr(std::string(kBuiltinPrefix).size());
  for (const std::string& path : {name, name + ".yaml"}) {
    if (const EmbeddedFile* f = findBuiltinConfig(path)) {
      out = {kBuiltinPrefix + path, std::string(f->text), kBuiltinPrefix + path, {}};
      return true;
    }
  }
  return false;
}

// --- Overlaying a file on the one it extends -----------------------------------------------
// Maps merge key by key. Lists of scalars (ports, sockets) are values and are replaced. Lists of
// entries merge entry by entry with the inherited ones, so that restating `devices:` to change
// one field keeps every other inherited field: an entry that names what it changes (a device or
// switch by `name`, a device link by its ends) merges with the inherited entry of that name or
// those ends, or is added when there is none; an entry that names nothing merges with the
// inherited entry at its position, or is added past the end. A node tagged `!replace` replaces.

std::string listPath(const std::string& path) {
  return path.empty() ? "" : path + "[]";
}

// What an entry of the list at `path` names: "" when it names nothing.
std::string identity(const ConfigNode& entry, const std::string& path) {
  if (!entry.isMap()) return "";
  if (path == "devices" || path == "pcie.switches") {
    const ConfigNode* n = entry.find("name");
    return n && n->isScalar() ? n->value() : "";
  }
  if (path == "device_links") {
    if (const ConfigNode* p = entry.find("pattern"); p && p->isScalar())
      return "pattern " + p->value();
    if (const ConfigNode* g = entry.find("groups-of"); g && g->isScalar())
      return "groups-of " + g->value();
    if (const ConfigNode* d = entry.find("devices"); d && d->isList() && d->items().size() == 2 &&
                                                     d->items()[0].isScalar() &&
                                                     d->items()[1].isScalar()) {
      std::string a = d->items()[0].value(), b = d->items()[1].value();
      if (b < a) std::swap(a, b);
      return "devices " + a + " " + b;
    }
  }
  return "";
}

// Keys of which an entry gives one: a file that gives one drops the inherited others.
const std::vector<std::vector<std::string>>& alternatives(const std::string& path) {
  static const std::vector<std::vector<std::string>> device{{"port", "ports"}};
  static const std::vector<std::vector<std::string>> link{{"pattern", "groups-of", "devices"}};
  static const std::vector<std::vector<std::string>> none;
  return path == "devices[]" ? device : path == "device_links[]" ? link : none;
}

uint64_t countOf(const ConfigNode& entry) {
  const ConfigNode* c = entry.isMap() ? entry.find("count") : nullptr;
  if (!c || !c->isScalar()) return 1;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(c->value().c_str(), &end, 10);
  return (end && !*end && v > 0 && v <= 1024) ? v : 1;
}

void overlay(ConfigNode& base, const ConfigNode& top, const std::string& path, Diagnostics& diag);

// `devices:` entries are groups (`count` devices on `ports`) named npu0, npu1, ... in order
// unless one is named. Naming one device of a group picks it out: the group becomes one entry
// per device, each on its port, and the named one merges with the file's entry.
void overlayDevices(std::vector<std::vector<ConfigNode>>& slots, const ConfigNode& t,
                    const std::string& name, std::vector<ConfigNode>& added, Diagnostics& diag) {
  uint64_t index = 0;
  for (size_t j = 0; j < slots.size(); ++j) {
    for (size_t k = 0; k < slots[j].size(); ++k) {
      ConfigNode& entry = slots[j][k];
      const uint64_t count = countOf(entry);
      const ConfigNode* n = entry.find("name");
      if (n && n->isScalar()) {
        if (n->value() == name) return overlay(entry, t, "devices[]", diag);
        index += count;
        continue;
      }
      const uint64_t first = index;
      index += count;
      uint64_t member = 0;
      bool found = false;
      for (uint64_t m = 0; m < count && !found; ++m) {
        if (name == "npu" + std::to_string(first + m)) {
          member = m;
          found = true;
        }
      }
      if (!found) continue;
      if (count == 1) return overlay(entry, t, "devices[]", diag);
      const ConfigNode* ports = entry.find("ports");
      if (ports && (!ports->isList() || ports->items().size() != count)) {
        diag.error(t.find("name")->where(), "devices",
                   "cannot pick " + name + " out of the inherited group of " +
                       std::to_string(count) + " devices at " + entry.where().file + ":" +
                       std::to_string(entry.where().line) +
                       ": its `ports` do not list one port per device");
        return;
      }
      std::vector<ConfigNode> split;
      for (uint64_t m = 0; m < count; ++m) {
        ConfigNode one = entry;
        one.erase("count");
        one.erase("ports");
        if (ports) {
          const ConfigNode& p = ports->items()[m];
          one.set("port", p.where(), p);
        }
        split.push_back(std::move(one));
      }
      overlay(split[member], t, "devices[]", diag);
      slots[j].erase(slots[j].begin() + static_cast<std::ptrdiff_t>(k));
      slots[j].insert(slots[j].begin() + static_cast<std::ptrdiff_t>(k), split.begin(),
                      split.end());
      return;
    }
  }
  added.push_back(t);
}

void overlayList(ConfigNode& base, const ConfigNode& top, const std::string& path,
                 Diagnostics& diag) {
  auto allMaps = [](const ConfigNode& list) {
    for (const ConfigNode& item : list.items()) {
      if (!item.isMap()) return false;
    }
    return true;
  };
  if (base.items().empty() || !allMaps(base) || !allMaps(top)) {
    base = top;  // a value (a list of ports, sockets), or the reader reports the entries
    return;
  }
  if (top.items().empty()) {
    diag.error(top.where(), path,
               "an empty list under `extends` leaves the " + std::to_string(base.items().size()) +
                   " inherited entries as they are (entries merge with the inherited ones); "
                   "write `" +
                   path.substr(path.rfind('.') + 1) + ": !replace [...]` to replace them");
    return;
  }
  std::vector<std::vector<ConfigNode>> slots;
  for (const ConfigNode& item : base.items()) slots.push_back({item});
  std::vector<ConfigNode> added;
  // Entries that name nothing first, by position, so that a group-wide change applies before a
  // named device is picked out of its group.
  for (size_t i = 0; i < top.items().size(); ++i) {
    const ConfigNode& t = top.items()[i];
    if (!identity(t, path).empty()) continue;
    if (i < slots.size()) {
      overlay(slots[i].front(), t, listPath(path), diag);
    } else {
      added.push_back(t);
    }
  }
  for (const ConfigNode& t : top.items()) {
    const std::string id = identity(t, path);
    if (id.empty()) continue;
    if (path == "devices") {
      overlayDevices(slots, t, id, added, diag);
      continue;
    }
    bool merged = false;
    for (auto& slot : slots) {
      if (identity(slot.front(), path) == id) {
        overlay(slot.front(), t, listPath(path), diag);
        merged = true;
        break;
      }
    }
    if (!merged) added.push_back(t);
  }
  std::vector<ConfigNode>& out = base.mutableItems();
  out.clear();
  for (auto& slot : slots) {
    for (ConfigNode& entry : slot) out.push_back(std::move(entry));
  }
  for (ConfigNode& entry : added) out.push_back(std::move(entry));
}

void overlay(ConfigNode& base, const ConfigNode& top, const std::string& path, Diagnostics& diag) {
  if (top.replaces() || base.kind() != top.kind() || top.isScalar() || top.isNull()) {
    base = top;
    return;
  }
  if (top.isList()) return overlayList(base, top, path, diag);
  for (const std::vector<std::string>& group : alternatives(path)) {
    for (const std::string& given : group) {
      if (!top.find(given)) continue;
      for (const std::string& other : group) {
        if (other != given) base.erase(other);
      }
    }
  }
  for (const ConfigNode::Entry& e : top.entries()) {
    ConfigNode* mine = base.findMutable(e.key);
    const std::string childPath = path.empty() ? e.key : path + "." + e.key;
    if (mine) {
      ConfigNode merged = std::move(*mine);
      overlay(merged, e.value, childPath, diag);
      base.set(e.key, e.keyWhere, std::move(merged));
    } else {
      base.set(e.key, e.keyWhere, e.value);
    }
  }
}

ConfigNode loadChain(const Source& source, Diagnostics& diag, std::vector<std::string>& sources,
                     std::vector<std::string>& stack) {
  sources.push_back(source.name);
  stack.push_back(source.key);
  ConfigNode node = parseYaml(source.text, source.name, diag);
  if (node.isNull() && diag.empty()) {
    diag.error({source.name, 1, 1}, "", "the file is empty; expected a map of keys");
  }
  const ConfigNode::Entry* ext = node.isMap() ? node.findEntry("extends") : nullptr;
  if (!ext) {
    stack.pop_back();
    return node;
  }
  ConfigNode base;
  if (!ext->value.isScalar()) {
    diag.error(ext->value.where(), "extends",
               "expected the path of a config file or a preset name");
  } else {
    Source parent;
    const std::string& ref = ext->value.value();
    if (!resolveSource(ref, source.dir.empty() ? fs::path() : source.dir, parent)) {
      diag.error(ext->value.where(), "extends",
                 "cannot find '" + ref + "' (looked for a file relative to " +
                     (source.dir.empty() ? std::string("the built-in presets")
                                         : "'" + source.dir.string() + "'") +
                     " and for a built-in preset; presets: " +
                     FieldReader::join(builtinMachinePresets()) + ")");
    } else if (std::find(stack.begin(), stack.end(), parent.key) != stack.end()) {
      diag.error(ext->value.where(), "extends",
                 "'" + ref + "' extends itself through a cycle of files");
    } else if (stack.size() >= 32) {
      diag.error(ext->value.where(), "extends", "more than 32 files extend each other in a chain");
    } else {
      base = loadChain(parent, diag, sources, stack);
    }
  }
  node.erase("extends");
  stack.pop_back();
  if (!base.isMap()) return node;
  overlay(base, node, "", diag);
  return base;
}

}  // namespace

ConfigNode loadConfigDocument(const std::string& ref, Diagnostics& diag,
                              std::vector<std::string>& sources) {
  Source source;
  if (!resolveSource(ref, fs::path(), source)) {
    diag.error({ref, 0, 0}, "",
               "no such file, and no built-in preset of that name; presets: " +
                   FieldReader::join(builtinMachinePresets()));
    return ConfigNode();
  }
  std::vector<std::string> stack;
  return loadChain(source, diag, sources, stack);
}

ConfigNode loadConfigDocumentFromText(const std::string& text, const std::string& fileName,
                                      Diagnostics& diag, std::vector<std::string>& sources) {
  // Relative `extends` resolve from the current directory, as for a file given on the command line.
  Source source{fileName, text, fileName, fs::path(fileName).parent_path()};
  std::vector<std::string> stack;
  return loadChain(source, diag, sources, stack);
}

ConfigNode resolveExtends(const ConfigNode& node, Diagnostics& diag,
                          std::vector<std::string>& sources) {
  const std::string& file = node.where().file;
  const fs::path dir =
      file.rfind(kBuiltinPrefix, 0) == 0 ? fs::path() : fs::path(file).parent_path();
  Source source{file, "", file + ":" + std::to_string(node.where().line), dir};
  const ConfigNode::Entry* ext = node.isMap() ? node.findEntry("extends") : nullptr;
  if (!ext) return node;
  ConfigNode top = node;
  top.erase("extends");
  Source parent;
  const std::string& ref = ext->value.isScalar() ? ext->value.value() : std::string();
  if (!ext->value.isScalar() || !resolveSource(ref, dir, parent)) {
    diag.error(ext->value.where(), "extends",
               "cannot find '" + ref + "' (a machine file or a built-in preset; presets: " +
                   FieldReader::join(builtinMachinePresets()) + ")");
    return top;
  }
  std::vector<std::string> stack{source.key};
  ConfigNode base = loadChain(parent, diag, sources, stack);
  if (!base.isMap()) return top;
  overlay(base, top, "", diag);
  return base;
}

}  // namespace ascendsim::spec
