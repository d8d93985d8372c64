#include "spec/address_mapping.h"

#include <sstream>

namespace ascendsim::spec {
namespace {

struct Token {
  std::string name;
  uint64_t count = 0;  // for "xx:N"; 0 = the rest
  bool badCount = false;
  std::string text;
};

std::vector<Token> tokens(const std::string& text) {
  std::vector<Token> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    Token t;
    t.text = item;
    const auto colon = item.find(':');
    t.name = item.substr(0, colon);
    if (colon != std::string::npos) {
      const std::string n = item.substr(colon + 1);
      t.badCount =
          n.empty() || n.size() > 12 || n.find_first_not_of("0123456789") != std::string::npos;
      if (!t.badCount) t.count = std::strtoull(n.c_str(), nullptr, 10);
      t.badCount = t.badCount || t.count == 0;
    }
    out.push_back(t);
  }
  return out;
}

std::string named(const std::string& name, const DramSpec& m) {
  const uint64_t granule = m.burstBytes() ? m.interleaveGranule / m.burstBytes() : 1;
  if (name == "interleaved") return "co:" + std::to_string(granule) + ",ch,pc,st,bg,co,ba,ra,ro";
  if (name == "bank-group-interleaved") return "co:2,bg,pc,ba,ch,st,ra,co,ro";
  if (name == "page") return "co,pc,ch,st,bg,ba,ra,ro";
  return name;
}

}  // namespace

std::optional<std::vector<MappingDigit>> buildAddressMapping(const DramSpec& m, std::string& why) {
  const uint64_t burst = m.burstBytes();
  if (burst == 0 || m.pageSize % burst != 0) {
    why = "the row size is not a whole number of bursts";
    return std::nullopt;
  }
  const uint64_t columns = m.pageSize / burst;
  // Every field but the row may be split into pieces: `xx:N` takes the next N values of the field
  // (a digit of radix N) and a plain `xx` the rest, the first piece the least significant part of
  // the field's value. The pieces' radixes must multiply to the field's count.
  struct Field {
    const char* name;
    const char* what;
    DramField field;
    uint64_t count;
    uint64_t left;  // values of the field not placed yet
    bool seen = false;
  };
  Field fields[] = {
      {"co", "column steps in a row", DramField::Column, columns, columns},
      {"ch", "channels", DramField::Channel, m.channels, m.channels},
      {"pc", "pseudo-channels", DramField::PseudoChannel, m.pseudoChannels, m.pseudoChannels},
      {"st", "stacks", DramField::Stack, m.stacks, m.stacks},
      {"ra", "ranks", DramField::Rank, m.ranks, m.ranks},
      {"bg", "bank groups", DramField::BankGroup, m.bankGroups, m.bankGroups},
      {"ba", "banks per group", DramField::Bank, m.banksPerGroup, m.banksPerGroup},
      {"ro", "rows", DramField::Row, m.rows(), m.rows()}};
  std::vector<MappingDigit> digits;
  const std::vector<Token> list = tokens(named(m.addressMapping, m));
  for (size_t i = 0; i < list.size(); ++i) {
    const Token& t = list[i];
    Field* f = nullptr;
    for (Field& candidate : fields) {
      if (t.name == candidate.name) f = &candidate;
    }
    if (!f) {
      why = "unknown field '" + t.name + "'; use co, ch, pc, st, ra, bg, ba, ro";
      return std::nullopt;
    }
    if (t.badCount) {
      why = "'" + t.text + "': the count after ':' must be a whole number of at least 1";
      return std::nullopt;
    }
    if (f->field == DramField::Row) {
      if (t.count != 0) {
        why = "'" + t.text + "': the row cannot be split, 'ro' takes the rest of the address";
        return std::nullopt;
      }
      if (i + 1 != list.size()) {
        why = "'ro' must be the last (most significant) field";
        return std::nullopt;
      }
      f->seen = true;
      f->left = 1;
      digits.push_back({f->field, f->count});
      continue;
    }
    const std::string placed =
        std::to_string(f->count / f->left) + " of its " + std::to_string(f->count) + " " + f->what;
    if (f->seen && f->left == 1) {
      why = "'" + t.text + "' overlaps: earlier pieces of '" + f->name + "' already place all " +
            std::to_string(f->count) + " " + f->what;
      return std::nullopt;
    }
    const uint64_t take = t.count ? t.count : f->left;
    if (f->left % take != 0) {
      why = "'" + t.text + "' does not fit: " +
            (f->seen ? "earlier pieces of '" + std::string(f->name) + "' place " + placed +
                           ", leaving " + std::to_string(f->left)
                     : std::string("'") + f->name + "' has " + std::to_string(f->count) + " " +
                           f->what) +
            ", and a piece must take a number of values that divides what is left";
      return std::nullopt;
    }
    f->seen = true;
    f->left /= take;
    if (take > 1) digits.push_back({f->field, take});
  }
  for (const Field& f : fields) {
    if (!f.seen) {
      why = std::string("field '") + f.name + "' is missing";
      return std::nullopt;
    }
    if (f.left != 1) {
      why = std::string("field '") + f.name + "' is not wholly placed: its pieces take " +
            std::to_string(f.count / f.left) + " of its " + std::to_string(f.count) + " " + f.what +
            "; end it with a plain '" + f.name + "' (the rest)";
      return std::nullopt;
    }
  }
  return digits;
}

}  // namespace ascendsim::spec
