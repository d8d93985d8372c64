#pragma once
// How a DRAM turns a physical address into (stack, channel, pseudo-channel, rank, bank group,
// bank, row, column). A mapping lists fields from the least significant upwards, above the byte
// offset within one burst; each field is a digit of a mixed-radix number, so counts need not be
// powers of two. Named mappings:
//   interleaved            co:G, ch, pc, st, bg, co, ba, ra, ro   (G = interleave / burst bytes)
//   bank-group-interleaved co:1, bg, pc, ba, ch, st, ra, co, ro   (Ramulator's HBM2
//   "BgInterleaved") page                   co, pc, ch, st, bg, ba, ra, ro
// or a custom list such as "co:2,ch,bg,ba,pc,st,ra,co,ro". Any field but `ro` may be split into
// pieces: `xx:N` takes the next N values of the field (its low digit first) and a plain `xx` the
// rest, so "co:2,bg:2,pc,ba,ch,st,ra,co,bg,ro" puts bank-group bit 0 low and bit 1 high. The
// pieces of a field must take all its values exactly (each N divides what is left); `ro` comes
// last, whole.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/system_spec.h"

namespace ascendsim::spec {

enum class DramField { Column, Channel, PseudoChannel, Stack, Rank, BankGroup, Bank, Row };

struct MappingDigit {
  DramField field;
  uint64_t radix;  // how many values this digit takes (the row digit: all the rows)
};

// The digits for `memory`, or nullopt with `why` set when the mapping is not valid for it.
std::optional<std::vector<MappingDigit>> buildAddressMapping(const DramSpec& memory,
                                                             std::string& why);

}  // namespace ascendsim::spec
