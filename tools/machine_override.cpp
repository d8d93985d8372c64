#include "tools/machine_override.h"

#include <yaml-cpp/yaml.h>

#include <functional>

#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::tools {

namespace {

struct Token {
  std::string name;
  bool indexed = false, all = false;
  size_t index = 0;
};

bool tokenize(const std::string& key, std::vector<Token>& out, std::string& why) {
  std::stringstream in(key);
  std::string part;
  while (std::getline(in, part, '.')) {
    Token t;
    const auto br = part.find('[');
    t.name = part.substr(0, br);
    if (br != std::string::npos) {
      const auto close = part.find(']', br);
      if (close == std::string::npos || close + 1 != part.size()) {
        why = "bad index in '" + part + "'";
        return false;
      }
      const std::string idx = part.substr(br + 1, close - br - 1);
      t.indexed = true;
      if (idx == "*") {
        t.all = true;
      } else {
        try {
          t.index = std::stoul(idx);
        } catch (...) {
          why = "bad index in '" + part + "'";
          return false;
        }
      }
    }
    if (t.name.empty()) {
      why = "empty name in key '" + key + "'";
      return false;
    }
    out.push_back(t);
  }
  return !out.empty();
}

// A memory section gets another preset: the keys that only repeat the old preset's values go (the
// new preset gives its own), the ones the machine changed from it (stacks, capacity...) stay.
// Without this a swept preset would change nothing, every key being written out.
bool rebaseMemory(YAML::Node memory, const std::string& preset, std::string& why) {
  if (!memory["preset"]) {
    why =
        "this memory names every figure itself and has no preset to swap; sweep its figures "
        "instead";
    return false;
  }
  const YAML::Node before = YAML::Load(
      spec::writeMemorySpecYaml(spec::loadMemorySpec(memory["preset"].as<std::string>())));
  std::vector<std::string> repeated;
  for (const auto& kv : memory) {
    const std::string k = kv.first.as<std::string>();
    if (k != "preset" && before[k] && YAML::Dump(before[k]) == YAML::Dump(kv.second))
      repeated.push_back(k);
  }
  for (const std::string& k : repeated) memory.remove(k);
  memory["preset"] = preset;
  return true;
}

}  // namespace

std::optional<std::string> applyOverride(const std::string& yaml, const std::string& key,
                                         const std::string& value, std::string& why) {
  std::vector<Token> tokens;
  if (!tokenize(key, tokens, why)) return std::nullopt;
  YAML::Node root = YAML::Load(yaml);
  int applied = 0;
  std::function<bool(YAML::Node, size_t)> walk = [&](YAML::Node node, size_t i) -> bool {
    const Token& t = tokens[i];
    // A memory section with a preset may be given any key of it (a swapped preset's keys are gone).
    const bool presetKey = i + 1 == tokens.size() && !t.indexed && node.IsMap() && node["preset"];
    if (!node.IsMap() || (!node[t.name] && !presetKey)) {
      why = "'" + key + "' names no key of the machine (see `ascendsim config show`): no '" +
            t.name + "'";
      return false;
    }
    YAML::Node child = node[t.name];
    std::vector<YAML::Node> targets;
    if (t.indexed) {
      if (!child.IsSequence()) {
        why = "'" + t.name + "' in '" + key + "' is not a list";
        return false;
      }
      if (t.all) {
        for (size_t k = 0; k < child.size(); ++k) targets.push_back(child[k]);
      } else if (t.index < child.size()) {
        targets.push_back(child[t.index]);
      } else {
        why =
            "'" + key + "': index " + std::to_string(t.index) + " past the end of '" + t.name + "'";
        return false;
      }
    }
    const bool last = i + 1 == tokens.size();
    if (!t.indexed) {
      if (last && t.name == "preset" && node["standard"]) {
        if (!rebaseMemory(node, value, why)) return false;
        ++applied;
        return true;
      }
      if (last) {
        node[t.name] = value;
        ++applied;
        return true;
      }
      return walk(child, i + 1);
    }
    for (size_t k = 0; k < targets.size(); ++k) {
      if (last) {
        child[t.all ? k : t.index] = value;
        ++applied;
      } else if (!walk(targets[k], i + 1)) {
        return false;
      }
    }
    return true;
  };
  if (!walk(root, 0) || applied == 0) {
    if (why.empty()) why = "'" + key + "' matched nothing";
    return std::nullopt;
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace ascendsim::tools
