#include "spec/address_mapping.h"

#include <sstream>

namespace ascendsim::spec {
namespace {

struct Token {
  std::string name;
  uint64_t count = 0;  // for "co:N"; 0 = the rest
};

std::vector<Token> tokens(const std::string& text) {
  std::vector<Token> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    Token t;
    const auto colon = item.find(':');
    t.name = item.substr(0, colon);
    if (colon != std::string::npos) t.count = std::strtoull(item.c_str() + colon + 1, nullptr, 10);
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
  struct Field {
    const char* name;
    DramField field;
    uint64_t radix;
    bool seen = false;
  };
  Field fields[] = {{"ch", DramField::Channel, m.channels},
                    {"pc", DramField::PseudoChannel, m.pseudoChannels},
                    {"st", DramField::Stack, m.stacks},
                    {"ra", DramField::Rank, m.ranks},
                    {"bg", DramField::BankGroup, m.bankGroups},
                    {"ba", DramField::Bank, m.banksPerGroup},
                    {"ro", DramField::Row, m.rows()}};
  std::vector<MappingDigit> digits;
  uint64_t columnLeft = columns;
  const std::vector<Token> list = tokens(named(m.addressMapping, m));
  for (size_t i = 0; i < list.size(); ++i) {
    const Token& t = list[i];
    if (t.name == "co") {
      const uint64_t take = t.count ? t.count : columnLeft;
      if (take == 0 || columnLeft % take != 0) {
        why = "co:" + std::to_string(take) + " does not divide the " + std::to_string(columnLeft) +
              " column steps left in a row";
        return std::nullopt;
      }
      columnLeft /= take;
      if (take > 1) digits.push_back({DramField::Column, take});
      continue;
    }
    Field* f = nullptr;
    for (Field& candidate : fields) {
      if (t.name == candidate.name) f = &candidate;
    }
    if (!f) {
      why = "unknown field '" + t.name + "'; use co, ch, pc, st, ra, bg, ba, ro";
      return std::nullopt;
    }
    if (f->seen) {
      why = "field '" + t.name + "' appears twice";
      return std::nullopt;
    }
    if (f->field == DramField::Row && i + 1 != list.size()) {
      why = "'ro' must be the last (most significant) field";
      return std::nullopt;
    }
    f->seen = true;
    if (f->radix > 1 || f->field == DramField::Row) digits.push_back({f->field, f->radix});
  }
  for (const Field& f : fields) {
    if (!f.seen) {
      why = std::string("field '") + f.name + "' is missing";
      return std::nullopt;
    }
  }
  if (columnLeft != 1) {
    why = std::to_string(columnLeft) +
          " column steps of each row are not placed; end the column fields with a plain 'co'";
    return std::nullopt;
  }
  return digits;
}

}  // namespace ascendsim::spec
