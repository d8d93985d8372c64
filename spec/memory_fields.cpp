#include "spec/memory_fields.h"

#include <yaml-cpp/yaml.h>

#include "spec/field_reader.h"
#include "spec/kind_registry.h"
#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

using Allowed = std::function<std::string()>;
Allowed text(std::string s) {
  return [s] { return s; };
}
std::string quotedList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
  return out;
}
Allowed kindsOf(std::string family) {
  return [family] { return quotedList(kinds::kindNames(family)); };
}

template <class T>
void emit(YAML::Emitter& out, const std::string& key, const T& value) {
  out << YAML::Key << key << YAML::Value << value;
}
// Reals in their shortest round-trip form: 0.8, not yaml-cpp's 0.80000000000000004.
void emit(YAML::Emitter& out, const std::string& key, double value) {
  out << YAML::Key << key << YAML::Value << formatReal(value);
}

MemoryField integerField(std::string key, uint32_t DramSpec::*member, int64_t min, int64_t max,
                         bool required, std::string meaning, std::string byDefault) {
  return {key,
          std::move(meaning),
          std::move(byDefault),
          text(std::to_string(min) + " .. " + std::to_string(max)),
          required,
          [key, member, min, max](FieldReader& r, DramSpec& m, bool req) {
            r.integer(key, m.*member, min, max, req);
          },
          [key, member](YAML::Emitter& out, const DramSpec& m) { emit(out, key, m.*member); }};
}

MemoryField oneOfField(std::string key, uint32_t DramSpec::*member, std::vector<uint32_t> values,
                       std::string meaning, std::string extra = "") {
  std::string list;
  for (uint32_t v : values) list += (list.empty() ? "" : ", ") + std::to_string(v);
  return {key,
          std::move(meaning),
          "preset's",
          text(list + extra),
          false,
          [key, member, values](FieldReader& r, DramSpec& m, bool) {
            r.integerOneOf(key, m.*member, values);
          },
          [key, member](YAML::Emitter& out, const DramSpec& m) { emit(out, key, m.*member); }};
}

MemoryField timingField(std::string key, uint32_t DramTimings::*member, uint32_t min, bool required,
                        std::string meaning, std::string byDefault = "preset's",
                        std::string allowed = "") {
  if (allowed.empty()) {
    allowed =
        "clock cycles (`14`) or a duration (`13.75ns`, rounded up to whole cycles at `clock`)";
  }
  return {
      key,
      std::move(meaning),
      std::move(byDefault),
      text(allowed),
      required,
      [key, member, min, required](FieldReader& r, DramSpec& m, bool req) {
        r.cycles(key, m.timings.*member, m.clock > 0 ? m.tCK() : 0, min, req && required);
      },
      [key, member](YAML::Emitter& out, const DramSpec& m) { emit(out, key, m.timings.*member); }};
}

std::vector<MemoryField> declare() {
  std::vector<MemoryField> f;
  f.push_back({"preset", "start from `configs/memory/NAME.yaml`", "none",
               [] { return quotedList(builtinMemoryPresets()); }, false,
               [](FieldReader& r, DramSpec& m, bool) { r.text("preset", m.preset); },
               [](YAML::Emitter& out, const DramSpec& m) {
                 if (!m.preset.empty()) emit(out, "preset", m.preset);
               }});
  f.push_back({"model", "DRAM model: how requests are scheduled (`ascendsim config kinds`)",
               "`banked`", kindsOf("dram-model"), false,
               [](FieldReader& r, DramSpec& m, bool) { r.kind("model", m.model, "dram-model"); },
               [](YAML::Emitter& out, const DramSpec& m) { emit(out, "model", m.model); }});
  f.push_back(
      {"timing",
       "how copies and kernels are timed on this memory: `sustained` charges bytes at the rate "
       "`model` "
       "sustains for sequential traffic (fast, blind to patterns); `cycle` sends every burst at "
       "its address "
       "through `model`, sharing the channels with everything else that reaches the memory "
       "(models.md, "
       "\"Memory in the timing loop\"); needs a DMA model that times bursts (`dma.model: pcie`)",
       "`sustained`", kindsOf("memory-timing"), false,
       [](FieldReader& r, DramSpec& m, bool) { r.kind("timing", m.timing, "memory-timing"); },
       [](YAML::Emitter& out, const DramSpec& m) { emit(out, "timing", m.timing); }});
  f.push_back({"write_buffer",
               "writes held back on the memory side so that reads go first, then sent to the "
               "channels together (the "
               "controllers' write queues and the write-back cache in front of them); sets how "
               "often a copy inside "
               "the memory turns the bus around, in both timings (sustained timing measures "
               "batches of at most 8192 "
               "bursts per channel, beyond which turnarounds cost under 0.5 %)",
               "`1MiB`", text("`0` (none) .. 1TiB"), false,
               [](FieldReader& r, DramSpec& m, bool) {
                 r.bytes("write_buffer", m.writeBuffer, 0, 1ull << 40);
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "write_buffer", formatBytes(m.writeBuffer));
               }});
  f.push_back({"standard", "the JEDEC standard: its command rules (models/dram/standards/)",
               "preset's", kindsOf("dram-standard"), true,
               [](FieldReader& r, DramSpec& m, bool req) {
                 r.kind("standard", m.standard, "dram-standard", req);
               },
               [](YAML::Emitter& out, const DramSpec& m) { emit(out, "standard", m.standard); }});
  f.push_back({"capacity", "total bytes", "preset's",
               text("more than 0; a whole number of rows across all banks and channels"), true,
               [](FieldReader& r, DramSpec& m, bool req) {
                 if (r.bytes("capacity", m.capacity, 0, 1ull << 50, req) && m.capacity == 0) {
                   r.error("capacity", "capacity must be more than 0 bytes");
                 }
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "capacity", formatBytes(m.capacity));
               }});
  f.push_back(integerField("stacks", &DramSpec::stacks, 1, 64, false,
                           "HBM stacks (DIMMs or packages for DDR/LPDDR)", "1"));
  f.push_back(integerField("channels", &DramSpec::channels, 1, 256, true, "channels per stack",
                           "preset's"));
  f.push_back(integerField("pseudo_channels", &DramSpec::pseudoChannels, 1, 4, false,
                           "pseudo-channels (HBM) or sub-channels (DDR5) per channel", "1"));
  f.push_back(integerField("ranks", &DramSpec::ranks, 1, 8, false,
                           "ranks (HBM3 stack ids) per (pseudo-)channel", "1"));
  f.push_back(
      integerField("bank_groups", &DramSpec::bankGroups, 1, 16, true, "bank groups", "preset's"));
  f.push_back(integerField("banks_per_group", &DramSpec::banksPerGroup, 1, 64, true,
                           "banks per bank group", "preset's"));
  f.push_back({"page_size", "row size per (pseudo-)channel", "preset's",
               text("power of two, 256B .. 64KiB"), false,
               [](FieldReader& r, DramSpec& m, bool) {
                 r.bytesPowerOfTwo("page_size", m.pageSize, 256, 64 * 1024);
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "page_size", formatBytes(m.pageSize));
               }});
  f.push_back(oneOfField("bus_width", &DramSpec::busWidth, {16, 32, 64, 128},
                         "data bits per (pseudo-)channel"));
  f.push_back(oneOfField("burst_length", &DramSpec::burstLength, {2, 4, 8, 16, 32},
                         "transfers per burst", "; whole clocks"));
  f.push_back({"clock", "command clock (tCK = 1/clock)", "preset's", text("100MHz .. 10GHz"), true,
               [](FieldReader& r, DramSpec& m, bool req) {
                 r.frequency("clock", m.clock, 100e6, 10e9, req);
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "clock", formatFrequency(m.clock));
               }});
  f.push_back({"data_rate", "transfers per second per pin", "preset's",
               text("2 or 4 per clock, or what the standard fixes (LPDDR5: 8)"), true,
               [](FieldReader& r, DramSpec& m, bool req) {
                 r.transferRate("data_rate", m.dataRate, 100e6, 40e9, req);
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "data_rate", formatTransferRate(m.dataRate));
               }});
  using T = DramTimings;
  const std::pair<const char*, uint32_t T::*> jedec[] = {
      {"tCL", &T::tCL},       {"tCWL", &T::tCWL},     {"tRCDRD", &T::tRCDRD},
      {"tRCDWR", &T::tRCDWR}, {"tRP", &T::tRP},       {"tRAS", &T::tRAS},
      {"tRC", &T::tRC},       {"tCCD_S", &T::tCCD_S}, {"tCCD_L", &T::tCCD_L},
      {"tRRD_S", &T::tRRD_S}, {"tRRD_L", &T::tRRD_L}, {"tFAW", &T::tFAW},
      {"tWR", &T::tWR},       {"tWTR_S", &T::tWTR_S}, {"tWTR_L", &T::tWTR_L},
  };
  for (const auto& [key, member] : jedec)
    f.push_back(timingField(key, member, 1, true, std::string("JEDEC ") + key));
  f.push_back(timingField("tRTW", &T::tRTW, 1, false, "read-to-write turnaround",
                          "tCL + burst clocks + 2 - tCWL", "as above"));
  f.push_back(timingField("tRTP", &T::tRTP, 1, true, "JEDEC tRTP"));
  f.push_back(timingField("tREFI", &T::tREFI, 1, true, "JEDEC tREFI (refresh interval)"));
  f.push_back(timingField("tRFC", &T::tRFC, 1, true, "JEDEC tRFC (all-bank refresh time)"));
  f.push_back(timingField("tRFCpb", &T::tRFCpb, 0, false,
                          "per-bank refresh time; 0 = all-bank refresh only", "0", "as above"));
  f.push_back(timingField("tCCDR", &T::tCCDR, 0, false,
                          "read to read on another rank (HBM3: stack id); 0 = tCCD_S",
                          "0 (hbm3: 3)", "as above, at least tCCD_S"));
  f.push_back({"page_policy", "row buffer policy", "`open`", text("`open`, `closed`"), false,
               [](FieldReader& r, DramSpec& m, bool) {
                 r.choice("page_policy", m.pagePolicy,
                          {{"open", PagePolicy::Open}, {"closed", PagePolicy::Closed}});
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "page_policy", toString(m.pagePolicy));
               }});
  f.push_back(
      {"command_bus",
       "whether a channel's pseudo-channels share its command buses: as the standard has it (HBM: "
       "shared, JESD235/JESD238), shared, or one per pseudo-channel",
       "`standard`", text("`standard`, `shared`, `per-pseudo-channel`"), false,
       [](FieldReader& r, DramSpec& m, bool) {
         r.choice("command_bus", m.commandBus,
                  {{"standard", CommandBusSharing::Standard},
                   {"shared", CommandBusSharing::Shared},
                   {"per-pseudo-channel", CommandBusSharing::PerPseudoChannel}});
       },
       [](YAML::Emitter& out, const DramSpec& m) {
         emit(out, "command_bus", toString(m.commandBus));
       }});
  f.push_back(integerField("queue_depth", &DramSpec::queueDepth, 1, 1024, false,
                           "read queue entries per (pseudo-)channel", "32"));
  f.push_back({"write_queue_depth", "write queue entries per (pseudo-)channel", "`queue_depth`",
               text("1 .. 1024"), false,
               [](FieldReader& r, DramSpec& m, bool) {
                 r.integer("write_queue_depth", m.writeQueueDepth, 1, 1024);
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "write_queue_depth", m.effectiveWriteQueueDepth());
               }});
  f.push_back(
      {"write_high_watermark",
       "writes go once the write queue holds more than this share of its depth (or no read waits)",
       "0.8", text("0 .. 1, above `write_low_watermark`"), false,
       [](FieldReader& r, DramSpec& m, bool) {
         r.fraction("write_high_watermark", m.writeHighWatermark, 0.0, 1.0,
                    "of the write queue's depth");
       },
       [](YAML::Emitter& out, const DramSpec& m) {
         emit(out, "write_high_watermark", m.writeHighWatermark);
       }});
  f.push_back({"write_low_watermark", "...until it holds fewer than this share, while reads wait",
               "0.2", text("0 .. 1"), false,
               [](FieldReader& r, DramSpec& m, bool) {
                 r.fraction("write_low_watermark", m.writeLowWatermark, 0.0, 1.0,
                            "of the write queue's depth");
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "write_low_watermark", m.writeLowWatermark);
               }});
  f.push_back(integerField(
      "starvation_cap", &DramSpec::starvationCap, 1, 1000000, false,
      "times the scheduler may pass over the oldest queued request for younger ones before it "
      "must serve it",
      "16"));
  f.push_back(
      {"drain_replay",
       "a drain whose queued requests and channel state repeat those of an earlier drain (relative "
       "to its first arrival) takes the commands that drain issued, shifted, rather than planning "
       "each burst; the same results, faster on steady streams",
       "`on`", text("`on`, `off`"), false,
       [](FieldReader& r, DramSpec& m, bool) {
         r.choice("drain_replay", m.drainReplay, {{"on", true}, {"off", false}});
       },
       [](YAML::Emitter& out, const DramSpec& m) {
         emit(out, "drain_replay", m.drainReplay ? "on" : "off");
       }});
  f.push_back(
      {"address_mapping", "address bit order, least significant field first (see below)",
       "`interleaved`", text("`interleaved`, `bank-group-interleaved`, `page`, or a field list"),
       false,
       [](FieldReader& r, DramSpec& m, bool) { r.text("address_mapping", m.addressMapping); },
       [](YAML::Emitter& out, const DramSpec& m) {
         emit(out, "address_mapping", m.addressMapping);
       }});
  f.push_back({"interleave", "bytes on one channel before the next", "`256B`",
               text("power of two between one burst and one row"), false,
               [](FieldReader& r, DramSpec& m, bool) {
                 r.bytesPowerOfTwo("interleave", m.interleaveGranule, 16, 64 * 1024);
               },
               [](YAML::Emitter& out, const DramSpec& m) {
                 emit(out, "interleave", formatBytes(m.interleaveGranule));
               }});
  return f;
}

}  // namespace

const std::vector<MemoryField>& memoryFields() {
  static const std::vector<MemoryField> fields = declare();
  return fields;
}

std::string memoryFieldsMarkdown() {
  std::string required;
  for (const MemoryField& f : memoryFields()) {
    if (f.requiredWithoutPreset) required += (required.empty() ? "`" : ", `") + f.key + "`";
  }
  std::string out = "Without `preset`, these must be given: " + required + ".\n\n";
  out += settingsMarkdown(settingRows(memoryFields()));
  return out;
}

}  // namespace ascendsim::spec
