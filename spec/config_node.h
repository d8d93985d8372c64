#pragma once
// A YAML document as a tree whose every node remembers the file, line and column it came from,
// so that errors can point at it even after files are merged through `extends` and presets.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spec/diagnostics.h"

namespace ascendsim::spec {

class ConfigNode {
 public:
  enum class Kind { Null, Scalar, Map, List };
  struct Entry;

  ConfigNode() = default;
  static ConfigNode null(SourceLocation where);
  static ConfigNode scalar(std::string value, SourceLocation where);
  static ConfigNode map(SourceLocation where);
  static ConfigNode list(SourceLocation where);

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isScalar() const { return kind_ == Kind::Scalar; }
  bool isMap() const { return kind_ == Kind::Map; }
  bool isList() const { return kind_ == Kind::List; }
  const SourceLocation& where() const { return where_; }
  const std::string& value() const { return value_; }
  // The node was tagged `!replace` in its file: under `extends` it replaces the inherited node
  // instead of merging with it.
  bool replaces() const { return replaces_; }
  void setReplaces(bool r) { replaces_ = r; }

  // Map access; entries keep file order.
  const std::vector<Entry>& entries() const { return entries_; }
  const ConfigNode* find(const std::string& key) const;
  const Entry* findEntry(const std::string& key) const;
  ConfigNode* findMutable(const std::string& key);
  void set(std::string key, SourceLocation keyWhere, ConfigNode value);
  bool erase(const std::string& key);

  // List access.
  const std::vector<ConfigNode>& items() const { return items_; }
  void append(ConfigNode item) { items_.push_back(std::move(item)); }
  std::vector<ConfigNode>& mutableItems() { return items_; }

  // Overlays `top` on this node: maps merge key by key (recursively), anything else is replaced.
  void mergeFrom(const ConfigNode& top);

  static const char* kindName(Kind kind);

 private:
  Kind kind_ = Kind::Null;
  SourceLocation where_;
  std::string value_;
  bool replaces_ = false;
  std::vector<Entry> entries_;
  std::vector<ConfigNode> items_;
};

struct ConfigNode::Entry {
  std::string key;
  SourceLocation keyWhere;
  ConfigNode value;
};

// Parses YAML text. Syntax errors and duplicate keys become diagnostics; returns a Null node then.
ConfigNode parseYaml(const std::string& text, const std::string& fileName, Diagnostics& diag);

}  // namespace ascendsim::spec
