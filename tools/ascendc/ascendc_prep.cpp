// ascendsim-ascendc-prep IN OUT [HEADER_DIR [DEPFILE]]: turns an Ascend C kernel source into one
// the host compiler takes.
// Each launch `K<<<blockDim, l2ctrl, stream>>>(args)` becomes
// `ascendsim::ascendc::launch("K", blockDim, l2ctrl, stream, [=]() { K(args); })`, and the AI
// Core's trap instruction (`asm("trap")`, `asm volatile ("trap")`) a call that stops the block.
// Every loop's condition (`for (init; cond; step)`, `while (cond)`, `do ... while (cond)`) becomes
// `::ascendsim::ascendc::loopTest() && (cond)`: the runtime counts each test, the scalar code's
// time (docs/ascendc.md, "Timing"), which is then the same whatever the host compiler's
// optimisation level. A range-based for (no condition) and a while whose condition declares a
// variable count their iterations at the start of their braced body, or not at all without
// braces. Loops made of goto or recursion are not counted.
// The headers the source includes with quotes, found beside the including file, are rewritten the
// same way (loops and traps) into OUT.includes/, and the #include lines name those copies (a
// quoted header found elsewhere, through -I, is left as it is). With DEPFILE, the files read are
// listed there in Make's syntax (for the build's dependencies).
// Comments, strings and character literals are left alone; line numbers are kept (a #line directive
// names the original file, and each rewrite keeps its newlines), so compiler messages point at the
// kernel's own source.
// For every kernel defined in the file (`__global__ ... void K(params) {`) it appends an entry that
// takes the kernel's arguments as AscendCL lays them out for aclrtLaunchKernelWithConfig (each
// parameter at the next multiple of 8 bytes, as CANN's runtime places AI Core kernels' arguments):
// `ascendsimKernelEntry_K(void* args)` runs one block and `ascendsimKernelArgsBytes_K()` says how
// many bytes the arguments take, so a kernel library loaded by aclrtBinaryLoadFromFile can launch
// it. With HEADER_DIR it also writes there, for each such kernel, the header aclrtlaunch_K.h that
// CANN's ascendc_library generates (ACLRT_LAUNCH_KERNEL(K)(blockDim, stream, args...)), and
// defines its launch function aclrtlaunch_K in OUT.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
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

// A parameter's name: what parameterType left off (empty for a lone type).
std::string parameterName(const std::string& declaration) {
  std::string d = declaration;
  const size_t eq = d.find('=');
  if (eq != std::string::npos) d = d.substr(0, eq);
  d = trim(d);
  const std::string type = parameterType(d);
  return type == d ? "" : trim(d.substr(type.size()));
}

// The parameters of the list between ( and ) split at top-level commas.
std::vector<std::string> parameterDeclarations(const std::string& list) {
  std::vector<std::string> declarations;
  int depth = 0;
  std::string current;
  for (char c : list) {
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      declarations.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trim(current).empty() && trim(current) != "void") declarations.push_back(current);
  return declarations;
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
  std::vector<std::string> names;  // the parameters' names ("" where the declaration has none)
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
  for (const std::string& d : parameterDeclarations(s.substr(open + 1, close - open - 1))) {
    kernel.types.push_back(parameterType(d));
    kernel.names.push_back(parameterName(d));
  }
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

// The type a parameter takes in the launch function aclrtlaunch_K of the generated header, as
// CANN's generated headers declare it: pointers (GM_ADDR, `__gm__ T*`) and structures (a tiling
// structure passed by value to the kernel, given by the address of its host copy) as void*,
// arithmetic types as they are.
std::string launchType(const std::string& type) {
  std::string bare = type;
  for (const char* qualifier : {"const ", "volatile "}) {
    for (size_t at; (at = bare.find(qualifier)) != std::string::npos;)
      bare.erase(at, std::string(qualifier).size());
  }
  bare = trim(bare);
  static const char* const scalars[] = {"bool",
                                        "char",
                                        "signed char",
                                        "unsigned char",
                                        "short",
                                        "unsigned short",
                                        "int",
                                        "unsigned",
                                        "unsigned int",
                                        "long",
                                        "unsigned long",
                                        "long long",
                                        "unsigned long long",
                                        "int8_t",
                                        "uint8_t",
                                        "int16_t",
                                        "uint16_t",
                                        "int32_t",
                                        "uint32_t",
                                        "int64_t",
                                        "uint64_t",
                                        "size_t",
                                        "float",
                                        "double",
                                        "half",
                                        "bfloat16_t"};
  if (bare.find('*') == std::string::npos && bare != "GM_ADDR") {
    for (const char* scalar : scalars) {
      if (bare == scalar) return bare;
    }
  }
  return "void*";
}

std::string launchParameters(const KernelDefinition& k) {
  std::string out = "uint32_t blockDim, aclrtStream stream";
  for (size_t i = 0; i < k.types.size(); ++i) {
    const std::string name = k.names[i].empty() ? "arg" + std::to_string(i) : k.names[i];
    out += ", " + launchType(k.types[i]) + " " + name;
  }
  return out;
}

// aclrtlaunch_K.h: ACLRT_LAUNCH_KERNEL(K)(blockDim, stream, args...) names aclrtlaunch_K, which
// launches K on `stream` and returns 0 or the launch's error code.
std::string launchHeaderOf(const KernelDefinition& k, const std::string& source) {
  std::string guard = "ASCENDSIM_ACLRTLAUNCH_" + k.name + "_H_";
  std::transform(guard.begin(), guard.end(), guard.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return "/* Launch function of Ascend C kernel " + k.name + " (" + source +
         "), written by ascendsim-ascendc-prep. */\n#ifndef " + guard + "\n#define " + guard +
         "\n#include \"acl/acl_base.h\"\n\n#ifndef ACLRT_LAUNCH_KERNEL\n"
         "#define ACLRT_LAUNCH_KERNEL(kernel) aclrtlaunch_##kernel\n#endif\n\n"
         "#ifdef __cplusplus\nextern \"C\" {\n#endif\nuint32_t aclrtlaunch_" +
         k.name + "(" + launchParameters(k) + ");\n#ifdef __cplusplus\n}\n#endif\n#endif\n";
}

// The definition of aclrtlaunch_K appended to the kernel's source: each argument converted to the
// kernel's parameter type at the call (a structure copied from the host memory it is given at),
// then launched as `K<<<blockDim, nullptr, stream>>>(args)` is.
std::string launchFunctionOf(const KernelDefinition& k) {
  std::string out =
      "\nextern \"C\" __attribute__((visibility(\"default\"))) uint32_t aclrtlaunch_" + k.name +
      "(" + launchParameters(k) + ") {\n";
  std::string call;
  for (size_t i = 0; i < k.types.size(); ++i) {
    const std::string name = k.names[i].empty() ? "arg" + std::to_string(i) : k.names[i];
    const std::string v = "p" + std::to_string(i);
    out += "  const auto " + v + " = ascendsim::ascendc::launchArgument<std::remove_cv_t<" +
           k.types[i] + ">>(" + name + ");\n";
    call += (i ? ", " : "") + v;
  }
  out += "  return ascendsim::ascendc::launch(\"" + k.name +
         "\", blockDim, nullptr, stream, [=]() { " + k.name + "(" + call + "); });\n}\n";
  return out;
}

// Writes `text` to `path` unless the file already holds it (so that what includes it is not
// rebuilt for nothing).
bool writeIfChanged(const std::string& path, const std::string& text) {
  std::ifstream existing(path);
  if (existing) {
    std::stringstream old;
    old << existing.rdbuf();
    if (old.str() == text) return true;
  }
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

// What a loop's condition is wrapped in: ascendsimAscendCLoopTest() (counted) when run, true when
// the loop runs in a constant expression (a constexpr function's loop).
const char* const kLoopTest = "::ascendsim::ascendc::loopTest()";

bool keywordAt(const std::string& s, size_t i, const char* word) {
  const size_t n = std::string(word).size();
  auto inName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return s.compare(i, n, word) == 0 && (i == 0 || (!inName(s[i - 1]) && s[i - 1] != ':')) &&
         (i + n >= s.size() || !inName(s[i + n]));
}

size_t skipSpaces(const std::string& s, size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

// Positions of the `;` at the top level of the text between `open` and `close`.
std::vector<size_t> topLevelSemicolons(const std::string& s, size_t open, size_t close) {
  std::vector<size_t> at;
  int depth = 0;
  for (size_t j = open + 1; j < close;) {
    const size_t past = skipLiteral(s, j);
    if (past != j) {
      j = past;
      continue;
    }
    if (s[j] == '(' || s[j] == '[' || s[j] == '{') ++depth;
    if (s[j] == ')' || s[j] == ']' || s[j] == '}') --depth;
    if (s[j] == ';' && depth == 0) at.push_back(j);
    ++j;
  }
  return at;
}

// Whether a condition declares a variable (`T x = ...`, `auto* p = ...`): a type and a name
// before a lone `=`.
bool declaresVariable(const std::string& condition) {
  const std::string c = trim(condition);
  for (size_t j = 0; j + 1 < c.size(); ++j) {
    if (c[j] != '=') continue;
    if (c[j + 1] == '=' ||
        (j > 0 && std::string("=!<>+-*/%&|^").find(c[j - 1]) != std::string::npos))
      continue;
    std::string head = trim(c.substr(0, j));
    size_t name = head.size();
    while (name > 0 &&
           (std::isalnum(static_cast<unsigned char>(head[name - 1])) || head[name - 1] == '_'))
      --name;
    const std::string type = trim(head.substr(0, name));
    return name < head.size() && !type.empty() &&
           (std::isalnum(static_cast<unsigned char>(type.back())) || type.back() == '_' ||
            type.back() == '*' || type.back() == '&' || type.back() == '>');
  }
  return false;
}

// Puts the count at the start of the braced body after `close` (a loop without a condition to
// wrap); returns whether there was one.
bool countInBody(std::string& s, size_t close) {
  const size_t body = skipSpaces(s, close + 1);
  if (body >= s.size() || s[body] != '{') return false;
  s.insert(body + 1, std::string(" ") + kLoopTest + ";");
  return true;
}

// Rewrites the loop whose keyword (`for` or `while`, `length` characters) is at `at`; returns the
// index to go on scanning from (inside the loop's parentheses, so that loops there are found too).
size_t rewriteLoop(std::string& s, size_t at, size_t length) {
  const size_t open = skipSpaces(s, at + length);
  if (open >= s.size() || s[open] != '(') return at + length;
  const size_t close = matching(s, open, '(', ')');
  if (close == std::string::npos) return at + length;
  size_t begin = open + 1, end = close;
  if (length == 3) {
    const std::vector<size_t> semicolons = topLevelSemicolons(s, open, close);
    if (semicolons.size() != 2) {  // a range-based for
      countInBody(s, close);
      return open + 1;
    }
    begin = semicolons[0] + 1;
    end = semicolons[1];
  }
  const std::string condition = s.substr(begin, end - begin);
  if (declaresVariable(condition)) {
    countInBody(s, close);
    return open + 1;
  }
  if (trim(condition).empty()) {
    s.insert(begin, std::string(" ") + kLoopTest);
    return open + 1;
  }
  s.insert(end, ")");
  s.insert(begin, std::string(" ") + kLoopTest + " && (");
  return begin;
}

// The quoted #include at `at` (a `#` starting a line): its path, and where the quoted path
// starts and ends (the quotes included); false if the directive is not one.
bool quotedIncludeAt(const std::string& s, size_t at, std::string& path, size_t& begin,
                     size_t& end) {
  size_t j = at + 1;
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
  if (s.compare(j, 7, "include") != 0) return false;
  j += 7;
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
  if (j >= s.size() || s[j] != '"') return false;
  const size_t close = s.find_first_of("\"\n", j + 1);
  if (close == std::string::npos || s[close] != '"') return false;
  path = s.substr(j + 1, close - j - 1);
  begin = j;
  end = close + 1;
  return true;
}

struct Rewriter {
  std::filesystem::path includesDir;          // OUT.includes
  std::map<std::string, std::string> copies;  // original header -> its rewritten copy
  std::vector<std::string> read;              // every file read (the depfile)
  std::string error;

  // Rewrites the loops, traps and quoted includes of `s` (the text of `file`); with `kernels`,
  // also its launches, and collects the kernels it defines.
  bool rewrite(std::string& s, const std::filesystem::path& file,
               std::vector<KernelDefinition>* kernels) {
    for (size_t i = 0; i < s.size();) {
      const size_t past = skipLiteral(s, i);
      if (past != i) {
        i = past;
        continue;
      }
      if (s[i] == '#' && (i == 0 || s.find_last_not_of(" \t", i - 1) == std::string::npos ||
                          s[s.find_last_not_of(" \t", i - 1)] == '\n')) {
        std::string path;
        size_t begin = 0, end = 0;
        if (quotedIncludeAt(s, i, path, begin, end)) {
          const std::string copy = includeOf(file.parent_path() / path);
          if (!error.empty()) return false;
          if (!copy.empty()) {
            const std::string quoted = "\"" + copy + "\"";
            s.replace(begin, end - begin, quoted);
            i = begin + quoted.size();
          } else {
            i = end;
          }
          continue;
        }
      }
      if (kernels && s.compare(i, 3, "<<<") == 0) {
        const size_t next = rewriteLaunch(s, i, error);
        if (next == std::string::npos) {
          error = file.string() + ": " + error;
          return false;
        }
        i = next;
        continue;
      }
      KernelDefinition kernel;
      if (kernels && s.compare(i, 10, "__global__") == 0 && (i == 0 || !identifierChar(s[i - 1])) &&
          !isTemplate(s, i) && kernelAt(s, i + 10, kernel)) {
        kernels->push_back(kernel);
      }
      if (keywordAt(s, i, "for")) {
        i = rewriteLoop(s, i, 3);
        continue;
      }
      if (keywordAt(s, i, "while")) {
        i = rewriteLoop(s, i, 5);
        continue;
      }
      if (keywordAt(s, i, "asm")) {
        const size_t next = rewriteTrap(s, i);
        if (next != std::string::npos) {
          i = next;
          continue;
        }
      }
      ++i;
    }
    return true;
  }

  // The rewritten copy of the header at `header` (written once), or "" when no file is there
  // (the compiler finds it elsewhere).
  std::string includeOf(const std::filesystem::path& header) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(header, ec)) return "";
    const std::string original = std::filesystem::weakly_canonical(header, ec).string();
    const auto known = copies.find(original);
    if (known != copies.end()) return known->second;
    const std::string copy =
        (includesDir / (std::to_string(copies.size()) + "_" + header.filename().string())).string();
    copies[original] = copy;
    std::ifstream in(original);
    if (!in) {
      error = "cannot read " + original;
      return "";
    }
    std::stringstream text;
    text << in.rdbuf();
    read.push_back(original);
    std::string h = text.str();
    if (!rewrite(h, original, nullptr)) return "";
    std::filesystem::create_directories(includesDir, ec);
    if (!writeIfChanged(copy, "#line 1 \"" + original + "\"\n" + h)) {
      error = "cannot write " + copy;
      return "";
    }
    return copy;
  }
};

// A path in a Make rule (spaces escaped).
std::string makePath(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::cerr << "usage: ascendsim-ascendc-prep KERNEL.cpp OUT.cpp [HEADER_DIR [DEPFILE]]\n";
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
  Rewriter rewriter;
  std::error_code ec;
  rewriter.includesDir = std::filesystem::absolute(std::string(argv[2]) + ".includes", ec);
  rewriter.read.push_back(argv[1]);
  if (!rewriter.rewrite(s, std::filesystem::absolute(argv[1], ec), &kernels)) {
    std::cerr << "ascendsim-ascendc-prep: " << rewriter.error << "\n";
    return 1;
  }
  std::ofstream out(argv[2]);
  out << "#include <cstring>\n#include <type_traits>\n#include \"ascendsim/ascendc.h\"\n#line 1 \""
      << argv[1] << "\"\n"
      << s;
  for (const KernelDefinition& k : kernels) out << entryOf(k) << launchFunctionOf(k);
  if (!out) {
    std::cerr << "ascendsim-ascendc-prep: cannot write " << argv[2] << "\n";
    return 1;
  }
  if (argc >= 4) {
    for (const KernelDefinition& k : kernels) {
      const std::string header = std::string(argv[3]) + "/aclrtlaunch_" + k.name + ".h";
      if (!writeIfChanged(header, launchHeaderOf(k, argv[1]))) {
        std::cerr << "ascendsim-ascendc-prep: cannot write " << header << "\n";
        return 1;
      }
    }
  }
  if (argc == 5) {
    std::string rule = makePath(argv[2]) + ":";
    for (const std::string& f : rewriter.read) rule += " " + makePath(f);
    if (!writeIfChanged(argv[4], rule + "\n")) {
      std::cerr << "ascendsim-ascendc-prep: cannot write " << argv[4] << "\n";
      return 1;
    }
  }
  return 0;
}
