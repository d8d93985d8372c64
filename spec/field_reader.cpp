#include "spec/field_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "spec/kind_registry.h"

namespace ascendsim::spec {
namespace {

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t subst = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

FieldReader::FieldReader(const ConfigNode& node, std::string path, Diagnostics& diag)
    : node_(node), path_(std::move(path)), diag_(diag) {
  if (!node_.isMap()) {
    diag_.error(node_.where(), path_,
                std::string("expected a map of keys, got ") + ConfigNode::kindName(node_.kind()));
  }
}

std::string FieldReader::childPath(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

const ConfigNode* FieldReader::take(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
  return node_.isMap() ? node_.find(key) : nullptr;
}

const ConfigNode* FieldReader::require(const std::string& key) {
  const ConfigNode* v = take(key);
  if (!v && node_.isMap()) errorAtMap("missing required key '" + key + "'");
  return v;
}

const ConfigNode* FieldReader::scalarValue(const std::string& key, bool required) {
  const ConfigNode* v = required ? require(key) : take(key);
  if (!v) return nullptr;
  if (!v->isScalar()) {
    badValue(*v, key,
             std::string("expected a single value, got ") + ConfigNode::kindName(v->kind()));
    return nullptr;
  }
  return v;
}

void FieldReader::badValue(const ConfigNode& value, const std::string& key,
                           const std::string& message) {
  diag_.error(value.where(), childPath(key), message);
}

void FieldReader::error(const std::string& key, const std::string& message) {
  const ConfigNode* v = node_.isMap() ? node_.find(key) : nullptr;
  diag_.error(v ? v->where() : node_.where(), childPath(key), message);
}

void FieldReader::errorAtMap(const std::string& message) {
  diag_.error(node_.where(), path_, message);
}

std::optional<int64_t> FieldReader::integerIn(const std::string& key, int64_t min, int64_t max,
                                              bool required) {
  const ConfigNode* v = scalarValue(key, required);
  if (!v) return std::nullopt;
  std::string why;
  auto n = parseInteger(v->value(), why);
  if (!n) {
    badValue(*v, key, why);
    return std::nullopt;
  }
  if (*n < min || *n > max) {
    badValue(*v, key,
             "expected " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                 std::to_string(*n));
    return std::nullopt;
  }
  return n;
}

bool FieldReader::integer(const std::string& key, uint32_t& out, int64_t min, int64_t max,
                          bool required) {
  const auto n = integerIn(key, min, max, required);
  if (n) out = static_cast<uint32_t>(*n);
  return n.has_value();
}

bool FieldReader::integer(const std::string& key, uint64_t& out, int64_t min, int64_t max,
                          bool required) {
  const auto n = integerIn(key, min, max, required);
  if (n) out = static_cast<uint64_t>(*n);
  return n.has_value();
}

bool FieldReader::integerOneOf(const std::string& key, uint32_t& out,
                               std::initializer_list<uint32_t> allowed) {
  return integerOneOf(key, out, std::vector<uint32_t>(allowed));
}

bool FieldReader::integerOneOf(const std::string& key, uint32_t& out,
                               const std::vector<uint32_t>& allowed) {
  const ConfigNode* v = scalarValue(key, false);
  if (!v) return false;
  std::string why;
  auto n = parseInteger(v->value(), why);
  std::vector<std::string> names;
  for (uint32_t a : allowed) names.push_back(std::to_string(a));
  if (!n || std::find(allowed.begin(), allowed.end(), *n) == allowed.end()) {
    badValue(*v, key, "'" + v->value() + "' is not allowed; expected one of " + join(names));
    return false;
  }
  out = static_cast<uint32_t>(*n);
  return true;
}

bool FieldReader::bytes(const std::string& key, uint64_t& out, uint64_t min, uint64_t max,
                        bool required) {
  const ConfigNode* v = scalarValue(key, required);
  if (!v) return false;
  std::string why;
  auto n = parseBytes(v->value(), why);
  if (!n) {
    badValue(*v, key, why);
    return false;
  }
  if (*n < min || *n > max) {
    badValue(*v, key,
             "expected " + formatBytes(min) + " to " + formatBytes(max) + ", got " + v->value());
    return false;
  }
  out = *n;
  return true;
}

bool FieldReader::bytesPowerOfTwo(const std::string& key, uint64_t& out, uint64_t min,
                                  uint64_t max) {
  uint64_t value = out;
  if (!bytes(key, value, min, max)) return false;
  if ((value & (value - 1)) != 0) {
    error(key, "expected a power of two from " + formatBytes(min) + " to " + formatBytes(max) +
                   ", got " + formatBytes(value));
    return false;
  }
  out = value;
  return true;
}

bool FieldReader::duration(const std::string& key, Picoseconds& out, Picoseconds min,
                           Picoseconds max) {
  const ConfigNode* v = scalarValue(key, false);
  if (!v) return false;
  std::string why;
  auto n = parseDuration(v->value(), why);
  if (!n) {
    badValue(*v, key, why);
    return false;
  }
  if (*n < min || *n > max) {
    badValue(
        *v, key,
        "expected " + formatDuration(min) + " to " + formatDuration(max) + ", got " + v->value());
    return false;
  }
  out = *n;
  return true;
}

namespace {
template <class Parse, class Format>
bool readQuantity(FieldReader& r, const ConfigNode* v, const std::string& key, double& out,
                  double min, double max, Parse parse, Format format, Diagnostics& diag) {
  if (!v) return false;
  std::string why;
  auto n = parse(v->value(), why);
  if (!n) {
    diag.error(v->where(), r.childPath(key), why);
    return false;
  }
  if (*n < min || *n > max) {
    diag.error(v->where(), r.childPath(key),
               "expected " + format(min) + " to " + format(max) + ", got " + v->value());
    return false;
  }
  out = *n;
  return true;
}
}  // namespace

bool FieldReader::bandwidth(const std::string& key, double& out, double min, double max) {
  return readQuantity(*this, scalarValue(key, false), key, out, min, max, parseBandwidth,
                      formatBandwidth, diag_);
}

bool FieldReader::bandwidthLimit(const std::string& key, double& out, double min, double max) {
  const ConfigNode* v = node_.isMap() ? node_.find(key) : nullptr;
  if (v && v->isScalar() && v->value() == "unlimited") {
    take(key);
    out = 0;
    return true;
  }
  return bandwidth(key, out, min, max);
}

bool FieldReader::transferRate(const std::string& key, double& out, double min, double max,
                               bool required) {
  return readQuantity(*this, scalarValue(key, required), key, out, min, max, parseTransferRate,
                      formatTransferRate, diag_);
}

bool FieldReader::frequency(const std::string& key, double& out, double min, double max,
                            bool required) {
  return readQuantity(*this, scalarValue(key, required), key, out, min, max, parseFrequency,
                      formatFrequency, diag_);
}

bool FieldReader::fraction(const std::string& key, double& out, double min, double max,
                           const std::string& meaning) {
  const ConfigNode* v = scalarValue(key, false);
  if (!v) return false;
  char* end = nullptr;
  const double x = std::strtod(v->value().c_str(), &end);
  if (end == v->value().c_str() || *end || !(x >= min && x <= max)) {
    std::ostringstream why;
    why << "expected a fraction between " << min << " and " << max << " (" << meaning << "), got '"
        << v->value() << "'";
    badValue(*v, key, why.str());
    return false;
  }
  out = x;
  return true;
}

bool FieldReader::boolean(const std::string& key, bool& out) {
  const ConfigNode* v = scalarValue(key, false);
  if (!v) return false;
  const std::string& s = v->value();
  if (s == "true" || s == "yes" || s == "on") {
    out = true;
    return true;
  }
  if (s == "false" || s == "no" || s == "off") {
    out = false;
    return true;
  }
  badValue(*v, key, "expected true or false, got '" + s + "'");
  return false;
}

bool FieldReader::text(const std::string& key, std::string& out, bool required) {
  const ConfigNode* v = scalarValue(key, required);
  if (!v) return false;
  out = v->value();
  return true;
}

bool FieldReader::cycles(const std::string& key, uint32_t& out, Picoseconds tCK, uint32_t min,
                         bool required) {
  const ConfigNode* v = scalarValue(key, required);
  if (!v) return false;
  std::string why;
  int64_t count = 0;
  if (auto n = parseInteger(v->value(), why)) {
    count = *n;
  } else if (auto ps = parseDuration(v->value(), why)) {
    if (tCK <= 0) return false;  // the clock itself is wrong and already reported
    count = (*ps + tCK - 1) / tCK;
  } else {
    badValue(*v, key,
             "expected clock cycles (14) or a duration (13.75ns), got '" + v->value() + "'");
    return false;
  }
  if (count < min || count > 1000000) {
    badValue(
        *v, key,
        "expected " + std::to_string(min) + " to 1000000 cycles, got " + std::to_string(count));
    return false;
  }
  out = static_cast<uint32_t>(count);
  return true;
}

void FieldReader::finish() {
  if (!node_.isMap()) return;
  for (const ConfigNode::Entry& e : node_.entries()) {
    if (std::find(known_.begin(), known_.end(), e.key) != known_.end()) continue;
    diag_.error(e.keyWhere, childPath(e.key),
                "unknown key" + suggestion(e.key, known_) + "; allowed here: " + join(known_));
  }
}

std::string FieldReader::join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

std::string FieldReader::suggestion(const std::string& word,
                                    const std::vector<std::string>& candidates) {
  std::string best;
  size_t bestDistance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const size_t d = editDistance(word, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

bool FieldReader::kind(const std::string& key, std::string& out, const std::string& family,
                       bool required) {
  const ConfigNode* v = scalarValue(key, required);
  if (!v) return false;
  if (kinds::findKind(family, v->value())) {
    out = v->value();
    return true;
  }
  const std::vector<std::string> names = kinds::kindNames(family);
  badValue(*v, key,
           "'" + v->value() + "' is not allowed; expected one of " + join(names) +
               suggestion(v->value(), names));
  return false;
}

}  // namespace ascendsim::spec
