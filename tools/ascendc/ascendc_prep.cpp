// ascendsim-ascendc-prep IN OUT: turns an Ascend C kernel source into one the host compiler takes.
// Each launch `K<<<blockDim, l2ctrl, stream>>>(args)` becomes
// `ascendsim::ascendc::launch("K", blockDim, l2ctrl, stream, [=]() { K(args); })`, and the AI
// Core's trap instruction (`asm("trap")`, `asm volatile ("trap")`) a call that stops the block.
// Comments, strings and character literals are left alone; line numbers are kept (a #line directive
// names the original file, and each rewrite keeps its newlines), so compiler messages point at the
// kernel's own source.
// For every kernel defined in the file (`__global__ ... void K(params) {`) it appends an entry that
// takes the kernel's arguments as AscendCL lays them out for aclrtLaunchKernelWithConfig (each
// parameter at the next multiple of 8 bytes, as CANN's runtime places AI Core kernels' arguments):
// `ascendsimKernelEntry_K(void* args)` runs one block and `ascendsimKernelArgsBytes_K()` says how
// many bytes the arguments take, so a kernel library loaded by aclrtBinaryLoadFromFile can launch
// it.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Index just past the comment, string or character literal starting at i, or i when none does.
size_t skipLiteral(const std::string& s, size_t i) {
  if (s.compare(i, 2, "//") == 0) {
    const size_t end = s.find('\n', i);
    return end == std::string::npos ? s.size() : end;
  }
  if (s.compare(i, 2, "/*") == 0) {
    const size_t end = s.find("*/", i + 2);
    return end == std::string::npos ? s.size() : end + 2;
  }
  if (s[i] == '"' || s[i] == '\'') {
    const char quote = s[i];
    size_t j = i + 1;
    while (j < s.size() && s[j] != quote) j += s[j] == '\\' ? 2 : 1;
    return std::min(j + 1, s.size());
  }
  return i;
}

// Index of the `close` that balances the `open` at i (or npos), skipping literals and comments.
size_t matching(const std::string& s, size_t i, char open, char close) {
  int depth = 0;
  for (size_t j = i; j < s.size();) {
    const size_t past = skipLiteral(s, j);
    if (past != j) {
      j = past;
      continue;
    }
    if (s[j] == open) ++depth;
    if (s[j] == close && --depth == 0) return j;
    ++j;
  }
  return std::string::npos;
}

std::string newlinesOf(const std::string& text) {
  std::string n;
  for (char c : text) {
    if (c == '\n') n += '\n';
  }
  return n;
}

bool identifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}

// Rewrites the launch whose `<<<` is at `at`; returns the index to go on from, or npos on a
// malformed launch (then `error` says why).
size_t rewriteLaunch(std::string& s, size_t at, std::string& error) {
  size_t start = at;
  while (start > 0 && identifierChar(s[start - 1])) --start;
  const std::string kernel = s.substr(start, at - start);
  const size_t configEnd = s.find(">>>", at + 3);
  if (kernel.empty() || configEnd == std::string::npos) {
    error = "a <<< launch without a kernel name or without >>>";
    return std::string::npos;
  }
  const std::string config = s.substr(at + 3, configEnd - at - 3);
  size_t open = configEnd + 3;
  while (open < s.size() && std::isspace(static_cast<unsigned char>(s[open]))) ++open;
  if (open >= s.size() || s[open] != '(') {
    error = "kernel " + kernel + ": <<<...>>> is not followed by its arguments";
    return std::string::npos;
  }
  const size_t close = matching(s, open, '(', ')');
  if (close == std::string::npos) {
    error = "kernel " + kernel + ": unbalanced parentheses in its arguments";
    return std::string::npos;
  }
  const std::string args = s.substr(open + 1, close - open - 1);
  const std::string original = s.substr(start, close + 1 - start);
  std::string replacement = "ascendsim::ascendc::launch(\"" + kernel + "\", " + config +
                            ", [=]() { " + kernel + "(" + args + "); })";
  // Keep the line count: the launch's own newlines go after it.
  std::string flat;
  for (char c : replacement) flat += c == '\n' ? ' ' : c;
  flat += newlinesOf(original);
  s.replace(start, close + 1 - start, flat);
  return start + flat.size();
}

// Rewrites `asm("trap")` / `asm volatile ("trap")` at `at` (an `asm` keyword); npos if it is not
// one.
size_t rewriteTrap(std::string& s, size_t at) {
  size_t j = at + 3;
  auto spaces = [&] {
    while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
  };
  spaces();
  if (s.compare(j, 8, "volatile") == 0) {
    j += 8;
    spaces();
  }
  if (j >= s.size() || s[j] != '(') return std::string::npos;
  const size_t close = matching(s, j, '(', ')');
  if (close == std::string::npos) return std::string::npos;
  std::string inside = s.substr(j + 1, close - j - 1);
  inside.erase(std::remove_if(inside.begin(), inside.end(),
                              [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               inside.end());
  if (inside != "\"trap\"") return std::string::npos;
  const std::string replacement =
      "ascendsimAscendCTrap()" + newlinesOf(s.substr(at, close + 1 - at));
  s.replace(at, close + 1 - at, replacement);
  return at + replacement.size();
}

std::string trim(const std::string& t) {
  const size_t b = t.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return t.substr(b, t.find_last_not_of(" \t\r\n") + 1 - b);
}

// A parameter's type: the declaration less its trailing name (and any default value).
std::string parameterType(std::string declaration) {
  const size_t eq = declaration.find('=');
  if (eq != std::string::npos) declaration = declaration.substr(0, eq);
  declaration = trim(declaration);
  size_t end = declaration.size();
  size_t begin = end;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(declaration[begin - 1])) ||
                       declaration[begin - 1] == '_'))
    --begin;
  const std::string last = declaration.substr(begin, end - begin);
  const std::string rest = trim(declaration.substr(0, begin));
  // `uint32_t n` or `T* p`: a name after a type; a lone word (`uint32_t`) is a type of its own.
  if (rest.empty() || last.empty()) return declaration;
  return rest;
}

// The parameters of the list between ( and ) split at top-level commas.
std::vector<std::string> parameterTypes(const std::string& list) {
  std::vector<std::string> types;
  int depth = 0;
  std::string current;
  for (char c : list) {
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      types.push_back(parameterType(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trim(current).empty() && trim(current) != "void") types.push_back(parameterType(current));
  return types;
}

// Whether the declaration holding `at` is a template's (its entry would need template arguments:
// such kernels are launched with <<<...>>> only).
bool isTemplate(const std::string& s, size_t at) {
  const size_t start = s.find_last_of(";}", at);
  const std::string head = s.substr(start == std::string::npos ? 0 : start + 1,
                                    at - (start == std::string::npos ? 0 : start + 1));
  return head.find("template") != std::string::npos;
}

struct KernelDefinition {
  std::string name;
  std::vector<std::string> types;
};

// The kernel defined after the `__global__` at `at`, if it is a definition (its body follows).
bool kernelAt(const std::string& s, size_t at, KernelDefinition& kernel) {
  const size_t open = s.find('(', at);
  const size_t stop = s.find_first_of(";{", at);
  if (open == std::string::npos || stop < open) return false;
  size_t end = open;
  while (end > at && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  size_t begin = end;
  while (begin > at &&
         (std::isalnum(static_cast<unsigned char>(s[begin - 1])) || s[begin - 1] == '_'))
    --begin;
  const size_t close = matching(s, open, '(', ')');
  if (begin == end || close == std::string::npos) return false;
  size_t next = close + 1;
  while (next < s.size() && std::isspace(static_cast<unsigned char>(s[next]))) ++next;
  if (next >= s.size() || s[next] != '{') return false;  // a declaration
  kernel.name = s.substr(begin, end - begin);
  kernel.types = parameterTypes(s.substr(open + 1, close - open - 1));
  return true;
}

std::string entryOf(const KernelDefinition& k) {
  std::string out =
      "\nextern \"C\" __attribute__((visibility(\"default\"))) void ascendsimKernelEntry_" +
      k.name +
      "(void* args) {\n  const unsigned char* bytes = static_cast<const unsigned char*>(args);\n"
      "  size_t at = 0;\n  (void)bytes;\n  (void)at;\n";
  std::string call;
  for (size_t i = 0; i < k.types.size(); ++i) {
    const std::string v = "p" + std::to_string(i);
    out += "  std::remove_cv_t<" + k.types[i] + "> " + v +
           ";\n  at = (at + 7) & ~size_t{7};\n  std::memcpy(&" + v + ", bytes + at, sizeof " + v +
           ");\n  at += sizeof " + v + ";\n";
    call += (i ? ", " : "") + v;
  }
  out += "  " + k.name + "(" + call + ");\n}\n";
  out +=
      "extern \"C\" __attribute__((visibility(\"default\"))) uint32_t ascendsimKernelArgsBytes_" +
      k.name + "(void) {\n  size_t at = 0;\n";
  for (const std::string& t : k.types)
    out += "  at = ((at + 7) & ~size_t{7}) + sizeof(std::remove_cv_t<" + t + ">);\n";
  out += "  return static_cast<uint32_t>(at);\n}\n";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: ascendsim-ascendc-prep KERNEL.cpp OUT.cpp\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "ascendsim-ascendc-prep: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  std::vector<KernelDefinition> kernels;
  for (size_t i = 0; i < s.size();) {
    const size_t past = skipLiteral(s, i);
    if (past != i) {
      i = past;
      continue;
    }
    if (s.compare(i, 3, "<<<") == 0) {
      std::string error;
      const size_t next = rewriteLaunch(s, i, error);
      if (next == std::string::npos) {
        std::cerr << argv[1] << ": " << error << "\n";
        return 1;
      }
      i = next;
      continue;
    }
    KernelDefinition kernel;
    if (s.compare(i, 10, "__global__") == 0 && (i == 0 || !identifierChar(s[i - 1])) &&
        !isTemplate(s, i) && kernelAt(s, i + 10, kernel)) {
      kernels.push_back(kernel);
    }
    if (s.compare(i, 3, "asm") == 0 && (i == 0 || !identifierChar(s[i - 1])) &&
        (i + 3 >= s.size() || !identifierChar(s[i + 3]))) {
      const size_t next = rewriteTrap(s, i);
      if (next != std::string::npos) {
        i = next;
        continue;
      }
    }
    ++i;
  }
  std::ofstream out(argv[2]);
  out << "#include <cstring>\n#include <type_traits>\n#include \"ascendsim/ascendc.h\"\n#line 1 \""
      << argv[1] << "\"\n"
      << s;
  for (const KernelDefinition& k : kernels) out << entryOf(k);
  if (!out) {
    std::cerr << "ascendsim-ascendc-prep: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
