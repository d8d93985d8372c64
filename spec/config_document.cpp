// Reading config files and resolving `extends` chains and built-in presets.

#include <algorithm>
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
  base.mergeFrom(node);
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

}  // namespace ascendsim::spec
