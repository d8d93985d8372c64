// The model folders form layers: a folder may include another's headers only if that one does not,
// directly or through others, include it back (docs/architecture.md, "Layers"). A cycle means a
// block cannot be understood, tested or replaced on its own.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using FolderGraph = std::map<std::string, std::set<std::string>>;

// The folder of `#include "models/FOLDER/..."` on this line, or "". (No std::regex: GCC 12
// warns inside it under -O2 with sanitizers.)
std::string includedModelFolder(const std::string& line) {
  const std::string prefix = "#include \"models/";
  const size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos || line.compare(start, prefix.size(), prefix) != 0) return "";
  const size_t from = start + prefix.size();
  const size_t slash = line.find('/', from);
  return slash == std::string::npos ? "" : line.substr(from, slash - from);
}

// folder -> the other model folders its files include.
FolderGraph readIncludes(const fs::path& modelsDir) {
  FolderGraph graph;
  for (const auto& entry : fs::recursive_directory_iterator(modelsDir)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp") continue;
    const std::string folder = entry.path().parent_path().filename().string();
    graph[folder];
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      const std::string other = includedModelFolder(line);
      if (!other.empty() && other != folder) graph[folder].insert(other);
    }
  }
  return graph;
}

// A cycle as "a -> b -> a", or "" if there is none.
std::string findCycle(const FolderGraph& graph) {
  enum class Mark { Unseen, OnPath, Done };
  std::map<std::string, Mark> mark;
  std::vector<std::string> path;
  std::string cycle;
  std::function<bool(const std::string&)> visit = [&](const std::string& folder) {
    mark[folder] = Mark::OnPath;
    path.push_back(folder);
    auto it = graph.find(folder);
    if (it != graph.end()) {
      for (const std::string& next : it->second) {
        if (mark[next] == Mark::OnPath) {
          auto from = std::find(path.begin(), path.end(), next);
          for (; from != path.end(); ++from) cycle += *from + " -> ";
          cycle += next;
          return true;
        }
        if (mark[next] == Mark::Unseen && visit(next)) return true;
      }
    }
    path.pop_back();
    mark[folder] = Mark::Done;
    return false;
  };
  for (const auto& [folder, deps] : graph)
    if (mark[folder] == Mark::Unseen && visit(folder)) return cycle;
  return "";
}

TEST(ModelLayers, NoFolderIncludesItselfThroughOthers) {
  const FolderGraph graph = readIncludes(fs::path(ASCENDSIM_SOURCE_DIR) / "models");
  // The graph must have been read: these folders exist and machine uses link.
  ASSERT_TRUE(graph.count("machine") && graph.count("link") && graph.count("dram"));
  ASSERT_TRUE(graph.at("machine").count("link"));
  EXPECT_EQ(findCycle(graph), "");
}

TEST(ModelLayers, TheCheckFindsACycle) {
  // The checker itself: a -> b -> c -> a is reported from where it closes.
  const FolderGraph graph = {{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}, {"d", {"a"}}};
  EXPECT_EQ(findCycle(graph), "a -> b -> c -> a");
  EXPECT_EQ(findCycle({{"a", {"b"}}, {"b", {}}}), "");
}

}  // namespace
