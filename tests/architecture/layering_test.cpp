// The source tree forms layers (docs/architecture.md, "Layers"): spec -> models -> runtime ->
// tools, each including only itself and the layers below it; inside the runtime, the C API
// (runtime/api) sits over the services and nothing under it includes it. Folders (two levels
// deep: "models/dram", "runtime/core"; a folder below that counts as its parent) never include
// themselves through others: a cycle means a block cannot be understood, tested or replaced on
// its own.

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

// folder -> the folders its files include.
using FolderGraph = std::map<std::string, std::set<std::string>>;

const std::vector<std::string> kLayers = {"spec", "models", "runtime", "tools"};

int layerOf(const std::string& folder) {
  const std::string top = folder.substr(0, folder.find('/'));
  auto it = std::find(kLayers.begin(), kLayers.end(), top);
  return it == kLayers.end() ? -1 : static_cast<int>(it - kLayers.begin());
}

// "models/dram/standards/hbm3.cpp" -> "models/dram"; "spec/units.h" -> "spec".
std::string folderOf(const std::string& path) {
  const size_t first = path.find('/');
  if (first == std::string::npos) return "";
  const size_t second = path.find('/', first + 1);
  return second == std::string::npos ? path.substr(0, first) : path.substr(0, second);
}

// The folder of `#include "LAYER/..."` on this line, or "". (No std::regex: GCC 12 warns inside
// it under -O2 with sanitizers.)
std::string includedFolder(const std::string& line) {
  const std::string prefix = "#include \"";
  const size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos || line.compare(start, prefix.size(), prefix) != 0) return "";
  const size_t from = start + prefix.size();
  const size_t end = line.find('"', from);
  if (end == std::string::npos) return "";
  const std::string folder = folderOf(line.substr(from, end - from));
  return layerOf(folder) < 0 ? "" : folder;
}

FolderGraph readIncludes(const fs::path& root) {
  FolderGraph graph;
  for (const std::string& layer : kLayers) {
    for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      const std::string folder = folderOf(fs::relative(entry.path(), root).generic_string());
      // Public headers (runtime/include: acl/*.h, kernel_operator.h) are the API users compile
      // against, not a layer of the implementation.
      if (folder == "runtime/include") continue;
      graph[folder];
      std::ifstream in(entry.path());
      std::string line;
      while (std::getline(in, line)) {
        const std::string other = includedFolder(line);
        if (!other.empty() && other != folder) graph[folder].insert(other);
      }
    }
  }
  return graph;
}

// Every include that points up a layer, or into runtime/api from another runtime folder.
std::vector<std::string> backwardIncludes(const FolderGraph& graph) {
  std::vector<std::string> wrong;
  for (const auto& [folder, includes] : graph) {
    for (const std::string& other : includes) {
      const bool upward = layerOf(other) > layerOf(folder);
      const bool intoApi = other == "runtime/api" && layerOf(folder) == layerOf("runtime");
      if (upward || intoApi) wrong.push_back(folder + " includes " + other);
    }
  }
  return wrong;
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
  for (const auto& [folder, deps] : graph) {
    if (mark[folder] == Mark::Unseen && visit(folder)) return cycle;
  }
  return "";
}

TEST(Layers, NoIncludeGoesUpALayerOrIntoTheApi) {
  const FolderGraph graph = readIncludes(ASCENDSIM_SOURCE_DIR);
  // The graph must have been read: these folders exist and include what they are known to.
  ASSERT_TRUE(graph.count("models/machine") && graph.count("runtime/core") &&
              graph.count("tools/sweep"));
  ASSERT_TRUE(graph.at("models/machine").count("models/link"));
  ASSERT_TRUE(graph.at("runtime/api").count("runtime/core"));
  const std::vector<std::string> wrong = backwardIncludes(graph);
  EXPECT_TRUE(wrong.empty()) << ::testing::PrintToString(wrong);
}

TEST(Layers, NoFolderIncludesItselfThroughOthers) {
  EXPECT_EQ(findCycle(readIncludes(ASCENDSIM_SOURCE_DIR)), "");
}

TEST(Layers, TheChecksFindWhatTheyLookFor) {
  // a -> b -> c -> a is reported from where it closes.
  EXPECT_EQ(findCycle({{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}, {"d", {"a"}}}),
            "a -> b -> c -> a");
  EXPECT_EQ(findCycle({{"a", {"b"}}, {"b", {}}}), "");
  // A model including the runtime, and the runtime's core including its C API, are backward.
  const FolderGraph backward = {{"models/dram", {"spec", "runtime/core"}},
                                {"runtime/core", {"models/dram", "runtime/api"}},
                                {"tools/sweep", {"runtime/api", "spec"}}};
  EXPECT_EQ(backwardIncludes(backward),
            (std::vector<std::string>{"models/dram includes runtime/core",
                                      "runtime/core includes runtime/api"}));
  EXPECT_EQ(includedFolder("#include \"models/dram/standards/hbm3.h\""), "models/dram");
  EXPECT_EQ(includedFolder("  #include \"spec/units.h\""), "spec");
  EXPECT_EQ(includedFolder("#include \"acl/acl.h\""), "");
}

}  // namespace
