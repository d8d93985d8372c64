#include "spec/units.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <utility>

namespace ascendsim::spec {
namespace {

struct Unit {
  std::string_view name;
  double scale;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string unitList(std::initializer_list<Unit> units) {
  std::string out;
  for (const Unit& u : units) {
    if (!out.empty()) out += ", ";
    out += u.name;
  }
  return out;
}

// Splits "12.5 GiB" into 12.5 and "GiB"; the number must come first and be finite.
bool splitQuantity(std::string_view text, double& number, std::string_view& unit) {
  text = trim(text);
  std::string copy(text);
  const char* begin = copy.c_str();
  char* end = nullptr;
  errno = 0;
  number = std::strtod(begin, &end);
  if (end == begin || errno == ERANGE || !std::isfinite(number)) return false;
  // strtod accepts "inf", "nan" and hex floats; only plain decimals are quantities here.
  for (const char* p = begin; p != end; ++p) {
    if (!(std::isdigit(static_cast<unsigned char>(*p)) || *p == '.' || *p == 'e' || *p == 'E' ||
          *p == '+' || *p == '-'))
      return false;
  }
  unit = trim(text.substr(static_cast<size_t>(end - begin)));
  return true;
}

std::optional<double> parseWithUnits(std::string_view text, std::initializer_list<Unit> units,
                                     std::string_view what, std::string_view example,
                                     bool unitOptional, std::string& why) {
  double number = 0;
  std::string_view unit;
  if (!splitQuantity(text, number, unit)) {
    why = "expected " + std::string(what) + " such as " + std::string(example) + ", got '" +
          std::string(text) + "'";
    return std::nullopt;
  }
  if (number < 0) {
    why = std::string(what) + " cannot be negative, got '" + std::string(text) + "'";
    return std::nullopt;
  }
  if (unit.empty()) {
    if (unitOptional) return number;
    why = "'" + std::string(text) + "' has no unit; write " + std::string(what) + " with one of " +
          unitList(units) + " (for example " + std::string(example) + ")";
    return std::nullopt;
  }
  for (const Unit& u : units) {
    if (u.name == unit) return number * u.scale;
  }
  why = "unknown unit '" + std::string(unit) + "' in '" + std::string(text) + "' for " +
        std::string(what) + "; use one of " + unitList(units);
  return std::nullopt;
}

constexpr double kKi = 1024.0;

std::string trimmedNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

std::optional<int64_t> parseInteger(std::string_view text, std::string& why) {
  std::string copy(trim(text));
  if (copy.empty()) {
    why = "expected an integer, got an empty value";
    return std::nullopt;
  }
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(copy.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) {
    why = "expected an integer, got '" + copy + "'";
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

std::optional<uint64_t> parseBytes(std::string_view text, std::string& why) {
  // A bare number is bytes: PCIe settings are customarily written "mps: 256".
  auto v = parseWithUnits(text,
                          {{"B", 1},
                           {"KiB", kKi},
                           {"MiB", kKi * kKi},
                           {"GiB", kKi * kKi * kKi},
                           {"TiB", kKi * kKi * kKi * kKi},
                           {"KB", 1e3},
                           {"kB", 1e3},
                           {"MB", 1e6},
                           {"GB", 1e9},
                           {"TB", 1e12}},
                          "a size", "64GiB or 256B", true, why);
  if (!v) return std::nullopt;
  if (*v >= 18446744073709551615.0) {
    why = "size '" + std::string(text) + "' is too large";
    return std::nullopt;
  }
  if (std::floor(*v) != *v) {
    why = "size '" + std::string(text) + "' is not a whole number of bytes";
    return std::nullopt;
  }
  return static_cast<uint64_t>(*v);
}

std::optional<Picoseconds> parseDuration(std::string_view text, std::string& why) {
  auto v = parseWithUnits(text, {{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}},
                          "a duration", "105ns or 2.5us", false, why);
  if (!v) return std::nullopt;
  if (*v > 9.2e18) {
    why = "duration '" + std::string(text) + "' is too long";
    return std::nullopt;
  }
  return static_cast<Picoseconds>(std::llround(*v));
}

std::optional<double> parseBandwidth(std::string_view text, std::string& why) {
  return parseWithUnits(text,
                        {{"B/s", 1},
                         {"KB/s", 1e3},
                         {"kB/s", 1e3},
                         {"MB/s", 1e6},
                         {"GB/s", 1e9},
                         {"TB/s", 1e12},
                         {"KiB/s", kKi},
                         {"MiB/s", kKi * kKi},
                         {"GiB/s", kKi * kKi * kKi},
                         {"Mb/s", 1e6 / 8},
                         {"Gb/s", 1e9 / 8}},
                        "a bandwidth", "25.6GB/s", false, why);
}

std::optional<double> parseTransferRate(std::string_view text, std::string& why) {
  return parseWithUnits(text, {{"GT/s", 1e9}, {"MT/s", 1e6}}, "a transfer rate",
                        "16GT/s or 3200MT/s", false, why);
}

std::optional<double> parseFrequency(std::string_view text, std::string& why) {
  return parseWithUnits(text, {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}}, "a frequency",
                        "1600MHz", false, why);
}

std::string formatBytes(uint64_t bytes) {
  static const std::pair<const char*, uint64_t> units[] = {
      {"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}};
  for (const auto& [name, scale] : units) {
    if (bytes != 0 && bytes % scale == 0) return std::to_string(bytes / scale) + name;
  }
  return std::to_string(bytes) + "B";
}

std::string formatDuration(Picoseconds ps) {
  if (ps != 0 && ps % 1000000 == 0) return std::to_string(ps / 1000000) + "us";
  if (ps % 1000 == 0) return std::to_string(ps / 1000) + "ns";
  return std::to_string(ps) + "ps";
}

namespace {
// Picks the largest unit in which the value prints exactly with at most 15 significant digits.
std::string formatScaled(double value, std::initializer_list<Unit> units) {
  for (const Unit& u : units) {
    double scaled = value / u.scale;
    if (scaled < 1 && u.scale != 1) continue;
    std::string text = trimmedNumber(scaled);
    if (std::strtod(text.c_str(), nullptr) * u.scale == value) return text + std::string(u.name);
  }
  // The shortest digits that read back as the same double.
  char buf[64];
  const Unit& last = *(units.end() - 1);
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value / last.scale);
  return (ec == std::errc() ? std::string(buf, end) : std::to_string(value / last.scale)) +
         std::string(last.name);
}
}  // namespace

std::string formatBandwidth(double bps) {
  return formatScaled(bps, {{"GB/s", 1e9}, {"MB/s", 1e6}, {"B/s", 1}});
}

std::string formatBandwidthLimit(double bps) {
  return bps == 0 ? "unlimited" : formatBandwidth(bps);
}

std::string formatTransferRate(double tps) {
  return formatScaled(tps, {{"GT/s", 1e9}, {"MT/s", 1e6}});
}

std::string formatFrequency(double hz) {
  return formatScaled(hz, {{"GHz", 1e9}, {"MHz", 1e6}, {"kHz", 1e3}, {"Hz", 1}});
}

std::string describeBytes(uint64_t bytes) {
  char buf[64];
  if (bytes >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.4g GiB", static_cast<double>(bytes) / (1ull << 30));
  else if (bytes >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.4g MiB", static_cast<double>(bytes) / (1ull << 20));
  else if (bytes >= (1ull << 10))
    std::snprintf(buf, sizeof buf, "%.4g KiB", static_cast<double>(bytes) / (1ull << 10));
  else
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  return buf;
}

std::string describeBandwidth(double bps) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g GB/s", bps / 1e9);
  return buf;
}

}  // namespace ascendsim::spec
