#pragma once
// Builders for the common kinds of setting: a number, a size, a duration, a rate, a switch, a
// registered kind's name, a nested section. Each derives the docs' default from the spec struct's
// own initial value (so the struct stays the one place a default is written), the docs' allowed
// range from the limits it checks, and a test sample from both.

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "spec/field_reader.h"
#include "spec/kind_registry.h"
#include "spec/setting.h"
#include "spec/spec_writer.h"
#include "spec/units.h"

namespace ascendsim::spec::settings {

inline std::function<std::string()> text(std::string s) {
  return [s] { return s; };
}
inline std::string quoted(const std::string& s) {
  return "`" + s + "`";
}
inline std::string quotedList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + quoted(n);
  return out;
}

// Limits as the docs show them: in the largest unit that is exact (1s, not 1000000us).
inline std::string docDuration(Picoseconds ps) {
  if (ps != 0 && ps % 1000000000000 == 0) return std::to_string(ps / 1000000000000) + "s";
  if (ps != 0 && ps % 1000000000 == 0) return std::to_string(ps / 1000000000) + "ms";
  return ps == 0 ? "0" : formatDuration(ps);
}
inline std::string docBandwidth(double bps) {
  return bps >= 1e12 ? formatReal(bps / 1e12) + "TB/s" : formatBandwidth(bps);
}
inline std::string docBytes(uint64_t bytes) {
  return bytes >= (1ull << 50) && bytes % (1ull << 50) == 0 ? std::to_string(bytes >> 50) + "PiB"
                                                            : formatBytes(bytes);
}

template <class T>
void emit(YAML::Emitter& out, const std::string& key, const T& value) {
  out << YAML::Key << key << YAML::Value << value;
}
// Reals in their shortest round-trip form: 0.8, not yaml-cpp's 0.80000000000000004.
inline void emit(YAML::Emitter& out, const std::string& key, double value) {
  out << YAML::Key << key << YAML::Value << formatReal(value);
}

// A setting whose value is written as `format(member)`: the default text and the sample follow
// from the same formatter.
template <class Spec, class T, class Read, class Format>
Setting<Spec> formatted(std::string key, T Spec::*member, std::string meaning, std::string allowed,
                        std::string sample, Read read, Format format, bool quoteDefault = true) {
  const std::string byDefault = format(Spec{}.*member);
  return {key,
          std::move(meaning),
          quoteDefault ? quoted(byDefault) : byDefault,
          text(std::move(allowed)),
          false,
          [read](FieldReader& r, Spec& s, bool) { read(r, s); },
          [key, member, format](YAML::Emitter& out, const Spec& s) {
            emit(out, key, format(s.*member));
          },
          std::move(sample)};
}

// Of two limits, the one that is not the default: a sample that differs from it.
template <class T>
T otherThan(T byDefault, T min, T max) {
  return byDefault == max ? min : max;
}

template <class Spec, class T>
Setting<Spec> integer(std::string key, T Spec::*member, int64_t min, int64_t max,
                      std::string meaning) {
  const T sample = otherThan(Spec{}.*member, static_cast<T>(min), static_cast<T>(max));
  return formatted<Spec>(
      key, member, std::move(meaning), std::to_string(min) + " .. " + std::to_string(max),
      std::to_string(sample),
      [key, member, min, max](FieldReader& r, Spec& s) { r.integer(key, s.*member, min, max); },
      [](T v) { return std::to_string(v); }, false);
}

template <class Spec>
Setting<Spec> oneOf(std::string key, uint32_t Spec::*member, std::vector<uint32_t> values,
                    std::string meaning) {
  std::string list;
  for (uint32_t v : values) list += (list.empty() ? "" : ", ") + std::to_string(v);
  const uint32_t sample = Spec{}.*member == values.front() ? values.back() : values.front();
  return formatted<Spec>(
      key, member, std::move(meaning), list, std::to_string(sample),
      [key, member, values](FieldReader& r, Spec& s) { r.integerOneOf(key, s.*member, values); },
      [](uint32_t v) { return std::to_string(v); }, false);
}

template <class Spec>
Setting<Spec> bytes(std::string key, uint64_t Spec::*member, uint64_t min, uint64_t max,
                    std::string meaning, std::string allowedExtra = "") {
  return formatted<Spec>(
      key, member, std::move(meaning), docBytes(min) + " .. " + docBytes(max) + allowedExtra,
      formatBytes(otherThan(Spec{}.*member, min, max)),
      [key, member, min, max](FieldReader& r, Spec& s) { r.bytes(key, s.*member, min, max); },
      formatBytes);
}

template <class Spec>
Setting<Spec> powerOfTwoBytes(std::string key, uint64_t Spec::*member, uint64_t min, uint64_t max,
                              std::string meaning) {
  return formatted<Spec>(
      key, member, std::move(meaning),
      "power of two, " + formatBytes(min) + " .. " + formatBytes(max),
      formatBytes(otherThan(Spec{}.*member, min, max)),
      [key, member, min, max](FieldReader& r, Spec& s) {
        r.bytesPowerOfTwo(key, s.*member, min, max);
      },
      formatBytes);
}

template <class Spec>
Setting<Spec> duration(std::string key, Picoseconds Spec::*member, Picoseconds min, Picoseconds max,
                       std::string meaning) {
  return formatted<Spec>(
      key, member, std::move(meaning), docDuration(min) + " .. " + docDuration(max),
      formatDuration(otherThan(Spec{}.*member, min, max)),
      [key, member, min, max](FieldReader& r, Spec& s) { r.duration(key, s.*member, min, max); },
      formatDuration);
}

template <class Spec>
Setting<Spec> bandwidth(std::string key, double Spec::*member, double min, double max,
                        std::string meaning) {
  return formatted<Spec>(
      key, member, std::move(meaning), docBandwidth(min) + " .. " + docBandwidth(max),
      formatBandwidth(otherThan(Spec{}.*member, min, max)),
      [key, member, min, max](FieldReader& r, Spec& s) { r.bandwidth(key, s.*member, min, max); },
      formatBandwidth);
}

// A rate that may be `unlimited` (stored as 0).
template <class Spec>
Setting<Spec> bandwidthLimit(std::string key, double Spec::*member, double min, double max,
                             std::string meaning) {
  return formatted<Spec>(
      key, member, std::move(meaning),
      "`unlimited`, " + docBandwidth(min) + " .. " + docBandwidth(max),
      formatBandwidthLimit(Spec{}.*member == 0 ? max : 0),
      [key, member, min, max](FieldReader& r, Spec& s) {
        r.bandwidthLimit(key, s.*member, min, max);
      },
      formatBandwidthLimit);
}

template <class Spec>
Setting<Spec> frequency(std::string key, double Spec::*member, double min, double max,
                        std::string meaning) {
  return formatted<Spec>(
      key, member, std::move(meaning), formatFrequency(min) + " .. " + formatFrequency(max),
      formatFrequency(otherThan(Spec{}.*member, min, max)),
      [key, member, min, max](FieldReader& r, Spec& s) { r.frequency(key, s.*member, min, max); },
      formatFrequency);
}

// A plain number in [min, max]; `why` ends the error message ("the share of ...").
template <class Spec>
Setting<Spec> fraction(std::string key, double Spec::*member, double min, double max,
                       std::string meaning, std::string why) {
  return formatted<Spec>(
      key, member, std::move(meaning), formatReal(min) + " .. " + formatReal(max),
      formatReal(otherThan(Spec{}.*member, min, max)),
      [key, member, min, max, why](FieldReader& r, Spec& s) {
        r.fraction(key, s.*member, min, max, why);
      },
      [](double v) { return formatReal(v); }, false);
}

template <class Spec>
Setting<Spec> boolean(std::string key, bool Spec::*member, std::string meaning) {
  auto format = [](bool v) { return std::string(v ? "true" : "false"); };
  return formatted<Spec>(
      key, member, std::move(meaning), "`true`, `false`", format(!(Spec{}.*member)),
      [key, member](FieldReader& r, Spec& s) { r.boolean(key, s.*member); }, format);
}

// The name of a registered kind of `family` (`ascendsim config kinds`).
template <class Spec>
Setting<Spec> kind(std::string key, std::string Spec::*member, std::string family,
                   std::string meaning, std::string sample) {
  Setting<Spec> setting = formatted<Spec>(
      key, member, std::move(meaning), "", std::move(sample),
      [key, member, family](FieldReader& r, Spec& s) { r.kind(key, s.*member, family); },
      [](const std::string& v) { return v; });
  setting.allowed = [family] { return quotedList(kinds::kindNames(family)); };
  return setting;
}

// Free text, written only when given.
template <class Spec>
Setting<Spec> optionalText(std::string key, std::string Spec::*member, std::string meaning,
                           std::string byDefault, std::string allowed, std::string sample) {
  return {key,
          std::move(meaning),
          std::move(byDefault),
          text(std::move(allowed)),
          false,
          [key, member](FieldReader& r, Spec& s, bool) { r.text(key, s.*member); },
          [key, member](YAML::Emitter& out, const Spec& s) {
            if (!(s.*member).empty()) emit(out, key, s.*member);
          },
          std::move(sample)};
}

// A count or a size that may be `auto` (stored as 0): `readGiven` reads a given value.
template <class Spec, class T, class ReadGiven, class Format>
Setting<Spec> automatic(std::string key, T Spec::*member, std::string meaning,
                        std::string byDefault, std::string allowed, std::string sample,
                        ReadGiven readGiven, Format format) {
  return {key,
          std::move(meaning),
          std::move(byDefault),
          text(std::move(allowed)),
          false,
          [key, member, readGiven](FieldReader& r, Spec& s, bool) {
            const ConfigNode* v = r.take(key);
            if (v && v->isScalar() && v->value() == "auto") {
              s.*member = 0;
            } else if (v) {
              readGiven(r, s);  // take() above only marked the key as known
            }
          },
          [key, member, format](YAML::Emitter& out, const Spec& s) {
            emit(out, key, s.*member == 0 ? std::string("auto") : format(s.*member));
          },
          std::move(sample)};
}

// A map nested in this one, read and written by its own settings.
template <class Spec, class Child>
Setting<Spec> section(std::string key, Child Spec::*member, const Settings<Child>& (*settings)(),
                      std::string meaning, std::string allowed = "map, below", bool flow = false) {
  return {key,
          std::move(meaning),
          "",
          text(std::move(allowed)),
          false,
          [key, member, settings](FieldReader& r, Spec& s, bool) {
            if (const ConfigNode* n = r.take(key)) {
              FieldReader child(*n, r.childPath(key), r.diagnostics());
              readSettings(settings(), child, s.*member);
              child.finish();
            }
          },
          [key, member, settings, flow](YAML::Emitter& out, const Spec& s) {
            out << YAML::Key << key << YAML::Value;
            if (flow) out << YAML::Flow;
            out << YAML::BeginMap;
            writeSettings(settings(), out, s.*member);
            out << YAML::EndMap;
          },
          ""};
}

}  // namespace ascendsim::spec::settings
