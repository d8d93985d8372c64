// ascendsim-ascendc-prep IN OUT: turns an Ascend C kernel source into one the host compiler takes.
// Each launch `K<<<blockDim, l2ctrl, stream>>>(args)` becomes
// `ascendsim::ascendc::launch("K", blockDim, l2ctrl, stream, [=]() { K(args); })`, and the AI Core's
// trap instruction (`asm("trap")`, `asm volatile ("trap")`) a call that stops the block. Comments,
// strings and character literals are left alone; line numbers are kept (a #line directive names
// the original file, and each rewrite keeps its newlines), so compiler messages point at the
// kernel's own source.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

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

bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }

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
  std::string replacement = "ascendsim::ascendc::launch(\"" + kernel + "\", " + config + ", [=]() { " + kernel + "(" +
                            args + "); })";
  // Keep the line count: the launch's own newlines go after it.
  std::string flat;
  for (char c : replacement) flat += c == '\n' ? ' ' : c;
  flat += newlinesOf(original);
  s.replace(start, close + 1 - start, flat);
  return start + flat.size();
}

// Rewrites `asm("trap")` / `asm volatile ("trap")` at `at` (an `asm` keyword); npos if it is not one.
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
  inside.erase(std::remove_if(inside.begin(), inside.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               inside.end());
  if (inside != "\"trap\"") return std::string::npos;
  const std::string replacement = "ascendsimAscendCTrap()" + newlinesOf(s.substr(at, close + 1 - at));
  s.replace(at, close + 1 - at, replacement);
  return at + replacement.size();
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
  out << "#include \"ascendsim/ascendc.h\"\n#line 1 \"" << argv[1] << "\"\n" << s;
  if (!out) {
    std::cerr << "ascendsim-ascendc-prep: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
