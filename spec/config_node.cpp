#include "spec/config_node.h"

#include <vector>

#include <yaml-cpp/yaml.h>

namespace ascendsim::spec {

ConfigNode ConfigNode::scalar(std::string value, SourceLocation where) {
  ConfigNode n;
  n.kind_ = Kind::Scalar;
  n.value_ = std::move(value);
  n.where_ = std::move(where);
  return n;
}

ConfigNode ConfigNode::null(SourceLocation where) {
  ConfigNode n;
  n.where_ = std::move(where);
  return n;
}

ConfigNode ConfigNode::map(SourceLocation where) {
  ConfigNode n;
  n.kind_ = Kind::Map;
  n.where_ = std::move(where);
  return n;
}

ConfigNode ConfigNode::list(SourceLocation where) {
  ConfigNode n;
  n.kind_ = Kind::List;
  n.where_ = std::move(where);
  return n;
}

const ConfigNode::Entry* ConfigNode::findEntry(const std::string& key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

ConfigNode* ConfigNode::findMutable(const std::string& key) {
  for (Entry& e : entries_) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

const ConfigNode* ConfigNode::find(const std::string& key) const {
  const Entry* e = findEntry(key);
  return e ? &e->value : nullptr;
}

void ConfigNode::set(std::string key, SourceLocation keyWhere, ConfigNode value) {
  for (Entry& e : entries_) {
    if (e.key == key) {
      e.keyWhere = std::move(keyWhere);
      e.value = std::move(value);
      return;
    }
  }
  entries_.push_back({std::move(key), std::move(keyWhere), std::move(value)});
}

bool ConfigNode::erase(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->key == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

void ConfigNode::mergeFrom(const ConfigNode& top) {
  if (!isMap() || !top.isMap()) {
    *this = top;
    return;
  }
  for (const Entry& e : top.entries_) {
    Entry* mine = nullptr;
    for (Entry& candidate : entries_) {
      if (candidate.key == e.key) mine = &candidate;
    }
    if (mine) {
      mine->keyWhere = e.keyWhere;
      mine->value.mergeFrom(e.value);
    } else {
      entries_.push_back(e);
    }
  }
}

const char* ConfigNode::kindName(Kind kind) {
  switch (kind) {
    case Kind::Null: return "nothing";
    case Kind::Scalar: return "a single value";
    case Kind::Map: return "a map of keys";
    case Kind::List: return "a list";
  }
  return "?";
}

namespace {

SourceLocation locate(const YAML::Mark& mark, const std::string& file) {
  return {file, mark.line + 1, mark.column + 1};
}

// Aliases make a small file stand for a huge tree ("billion laughs"), or for an infinite one when
// an alias refers to a node that contains it. Conversion expands aliases, so it counts what it
// builds, bounds the nesting, and refuses a node inside itself.
struct Expansion {
  static constexpr size_t kMaxNodes = 500000;  // far above any machine or workload file
  static constexpr size_t kMaxDepth = 64;
  size_t nodes = 0;
  std::vector<YAML::Node> open;  // the nodes being converted, outermost first
  bool stopped = false;          // a limit was hit: reported once, nothing more is built
};

ConfigNode convert(const YAML::Node& node, const std::string& file, const std::string& path,
                   Diagnostics& diag, Expansion& ex);
ConfigNode convertUntagged(const YAML::Node& node, const std::string& file, const std::string& path,
                           Diagnostics& diag, Expansion& ex, const SourceLocation& where);

// YAML merge keys ("<<: *anchor"): keys written in the map itself win over merged ones.
void applyMergeKey(ConfigNode& target, const YAML::Node& source, const std::string& file,
                   const std::string& path, Diagnostics& diag, Expansion& ex) {
  std::vector<YAML::Node> sources;
  if (source.IsSequence()) {
    for (const auto& s : source) sources.push_back(s);
  } else {
    sources.push_back(source);
  }
  for (const YAML::Node& s : sources) {
    ConfigNode merged = convert(s, file, path, diag, ex);
    if (ex.stopped) return;
    if (!merged.isMap()) {
      diag.error(locate(s.Mark(), file), path, "a merge key '<<' must refer to a map");
      continue;
    }
    for (const auto& e : merged.entries()) {
      if (!target.find(e.key)) target.set(e.key, e.keyWhere, e.value);
    }
  }
}

ConfigNode convert(const YAML::Node& node, const std::string& file, const std::string& path,
                   Diagnostics& diag, Expansion& ex) {
  SourceLocation where = locate(node.Mark(), file);
  if (ex.stopped) return ConfigNode();
  if (++ex.nodes > Expansion::kMaxNodes) {
    diag.error(where, path,
               "the document expands to more than " + std::to_string(Expansion::kMaxNodes) +
                   " nodes (aliases repeating aliases?); refusing to build it");
    ex.stopped = true;
    return ConfigNode();
  }
  if (node.IsSequence() || node.IsMap()) {
    for (const YAML::Node& outer : ex.open) {
      if (outer.is(node)) {
        diag.error(where, path,
                   "an alias refers to a node that contains it: the tree would be infinite");
        ex.stopped = true;
        return ConfigNode();
      }
    }
    if (ex.open.size() >= Expansion::kMaxDepth) {
      diag.error(where, path,
                 "nested more than " + std::to_string(Expansion::kMaxDepth) + " levels deep");
      ex.stopped = true;
      return ConfigNode();
    }
  }
  struct Opened {  // keeps `ex.open` the stack of the nodes being converted
    Expansion& ex;
    bool pushed;
    ~Opened() {
      if (pushed) ex.open.pop_back();
    }
  } opened{ex, node.IsSequence() || node.IsMap()};
  if (opened.pushed) ex.open.push_back(node);
  // Local tags: `!replace` (under `extends`, replace the inherited node instead of merging).
  // yaml-cpp gives "?" or "!" for untagged nodes and "tag:yaml.org,2002:..." for `!!` tags.
  const std::string& tag = node.Tag();
  const bool replaces = tag == "!replace";
  if (!replaces && tag.size() > 1 && tag[0] == '!') {
    diag.error(where, path,
               "unknown tag '" + tag +
                   "'; the one tag a config knows is !replace (under `extends`, replace the "
                   "inherited list or map instead of merging with it)");
  }
  ConfigNode converted = convertUntagged(node, file, path, diag, ex, where);
  converted.setReplaces(replaces);
  return converted;
}

ConfigNode convertUntagged(const YAML::Node& node, const std::string& file, const std::string& path,
                           Diagnostics& diag, Expansion& ex, const SourceLocation& where) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return ConfigNode::null(where);
    case YAML::NodeType::Scalar: return ConfigNode::scalar(node.Scalar(), where);
    case YAML::NodeType::Sequence: {
      ConfigNode list = ConfigNode::list(where);
      size_t index = 0;
      for (const auto& item : node) {
        list.append(convert(item, file, path + "[" + std::to_string(index++) + "]", diag, ex));
      }
      return list;
    }
    case YAML::NodeType::Map: {
      ConfigNode map = ConfigNode::map(where);
      const YAML::Node* mergeSource = nullptr;
      YAML::Node mergeHolder;
      for (const auto& kv : node) {
        SourceLocation keyWhere = locate(kv.first.Mark(), file);
        if (!kv.first.IsScalar()) {
          diag.error(keyWhere, path, "map keys must be plain names");
          continue;
        }
        const std::string key = kv.first.Scalar();
        if (key == "<<") {
          mergeHolder = kv.second;
          mergeSource = &mergeHolder;
          continue;
        }
        const std::string childPath = path.empty() ? key : path + "." + key;
        if (const ConfigNode::Entry* first = map.findEntry(key)) {
          diag.error(
              keyWhere, childPath,
              "duplicate key (first given at line " + std::to_string(first->keyWhere.line) + ")");
          continue;
        }
        map.set(key, keyWhere, convert(kv.second, file, childPath, diag, ex));
      }
      if (mergeSource) applyMergeKey(map, *mergeSource, file, path, diag, ex);
      return map;
    }
  }
  return ConfigNode();
}

}  // namespace

ConfigNode parseYaml(const std::string& text, const std::string& fileName, Diagnostics& diag) {
  try {
    YAML::Node root = YAML::Load(text);
    Expansion ex;
    return convert(root, fileName, "", diag, ex);
  } catch (const YAML::Exception& e) {
    diag.error(locate(e.mark, fileName), "", "YAML syntax error: " + e.msg);
    return ConfigNode();
  }
}

}  // namespace ascendsim::spec
