// memory: sections (device HBM/LPDDR and host DDR), with presets overridden field by field.

#include <algorithm>
#include <sstream>

#include "spec/address_mapping.h"
#include "spec/embedded_file.h"
#include "spec/field_reader.h"
#include "spec/kind_registry.h"
#include "spec/memory_fields.h"
#include "spec/spec_readers.h"
#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

// Relations JEDEC guarantees; a config that breaks one describes no real part.
void checkTimingRelations(FieldReader& r, DramSpec& m) {
  const DramTimings& t = m.timings;
  auto need = [&](bool ok, const char* key, const std::string& msg) {
    if (!ok) r.error(key, msg);
  };
  if (t.tRC == 0 || t.tRAS == 0) return;  // missing fields were reported already
  need(t.tRC >= t.tRAS + t.tRP, "tRC",
       "tRC (" + std::to_string(t.tRC) + ") is shorter than tRAS + tRP (" +
           std::to_string(t.tRAS + t.tRP) + " cycles)");
  need(t.tRAS >= t.tRCDRD, "tRAS",
       "tRAS (" + std::to_string(t.tRAS) + ") is shorter than tRCDRD (" + std::to_string(t.tRCDRD) +
           ")");
  need(t.tCCD_L >= t.tCCD_S, "tCCD_L", "tCCD_L must be at least tCCD_S");
  need(t.tCCDR == 0 || t.tCCDR >= t.tCCD_S, "tCCDR", "tCCDR must be at least tCCD_S (or 0: none)");
  need(t.tRRD_L >= t.tRRD_S, "tRRD_L", "tRRD_L must be at least tRRD_S");
  need(t.tWTR_L >= t.tWTR_S, "tWTR_L", "tWTR_L must be at least tWTR_S");
  need(t.tFAW >= t.tRRD_S, "tFAW", "tFAW must be at least tRRD_S");
  need(t.tREFI > t.tRFC, "tREFI",
       "tREFI (" + std::to_string(t.tREFI) + ") must exceed tRFC (" + std::to_string(t.tRFC) +
           "): the memory would do nothing but refresh");
}

void checkOrganisation(FieldReader& r, DramSpec& m) {
  if (m.clock > 0 && m.dataRate > 0) {
    const double ratio = m.dataRate / m.clock;
    // A standard whose data runs on a faster clock than its commands says by how much (LPDDR5's
    // WCK at 4 x CK: 8 transfers per CK); the others take 2 (DDR) or 4 (HBM3 and other QDR parts).
    const kinds::KindInfo* standard = kinds::findKind("dram-standard", m.standard);
    const auto fixed = standard ? standard->limits.find("transfers_per_clock")
                                : std::map<std::string, double>::const_iterator{};
    if (standard && fixed != standard->limits.end()) {
      if (ratio != fixed->second) {
        r.error("data_rate", "data_rate " + formatTransferRate(m.dataRate) + " is " +
                                 std::to_string(ratio) + " transfers per clock; " + m.standard +
                                 " moves " + std::to_string(static_cast<int>(fixed->second)) +
                                 " per command clock");
        return;
      }
    } else if (ratio != 2.0 && ratio != 4.0) {
      r.error("data_rate",
              "data_rate " + formatTransferRate(m.dataRate) + " is " + std::to_string(ratio) +
                  " transfers per clock; expected 2 (DDR) or 4 (HBM3 and other QDR parts)");
      return;
    }
    const uint32_t perClock = static_cast<uint32_t>(ratio);
    if (m.burstLength % perClock != 0) {
      r.error("burst_length", "burst_length " + std::to_string(m.burstLength) +
                                  " is not a whole number of clocks at " +
                                  std::to_string(perClock) + " transfers per clock");
    }
    if (m.timings.tRTW == 0 && m.timings.tCL > 0) {
      // JEDEC read-to-write turnaround: CL + burst + 2 cycles of bus turnaround - CWL.
      const int64_t rtw = int64_t{m.timings.tCL} + m.burstLength / perClock + 2 - m.timings.tCWL;
      m.timings.tRTW = static_cast<uint32_t>(std::max<int64_t>(rtw, 1));
    }
  }
  if (m.capacity == 0) return;  // reported by the capacity read
  const uint64_t slice =
      uint64_t{m.independentChannels()} * m.ranks * m.bankGroups * m.banksPerGroup * m.pageSize;
  if (m.capacity % slice != 0) {
    r.error("capacity", "capacity " + formatBytes(m.capacity) +
                            " is not a whole number of rows: one row in every bank of every "
                            "channel is " +
                            formatBytes(slice));
  }
  if (m.interleaveGranule < m.burstBytes() || m.interleaveGranule > m.pageSize) {
    r.error("interleave", "the channel interleave granule must lie between one burst (" +
                              formatBytes(m.burstBytes()) + ") and one row (" +
                              formatBytes(m.pageSize) + ")");
  }
}

}  // namespace

void readMemory(const ConfigNode& node, const std::string& path, Diagnostics& diag, DramSpec& out) {
  ConfigNode merged = node;
  bool fromPreset = false;
  if (node.isMap()) {
    if (const ConfigNode* preset = node.find("preset"); preset && preset->isScalar()) {
      const EmbeddedFile* file = findBuiltinConfig("memory/" + preset->value() + ".yaml");
      if (!file) {
        const std::vector<std::string> names = builtinMemoryPresets();
        diag.error(preset->where(), path + ".preset",
                   "unknown memory preset '" + preset->value() + "'" +
                       FieldReader::suggestion(preset->value(), names) +
                       "; presets: " + FieldReader::join(names));
        return;
      }
      merged =
          parseYaml(std::string(file->text), "<builtin>/memory/" + preset->value() + ".yaml", diag);
      merged.mergeFrom(node);
      fromPreset = true;
    }
  }
  FieldReader r(merged, path, diag);
  if (!r.isMap()) return;
  const bool required = !fromPreset;  // without a preset, every figure must be written out
  for (const MemoryField& field : memoryFields()) field.read(r, out, required);
  if (out.writeLowWatermark >= out.writeHighWatermark) {
    std::ostringstream why;
    why << "write_low_watermark (" << out.writeLowWatermark
        << ") must be below write_high_watermark (" << out.writeHighWatermark << ")";
    r.error("write_low_watermark", why.str());
  }
  checkTimingRelations(r, out);
  checkOrganisation(r, out);
  if (diag.empty() && out.capacity > 0) {
    std::string why;
    if (!buildAddressMapping(out, why))
      r.error("address_mapping", "address_mapping '" + out.addressMapping + "': " + why);
  }
  r.finish();
}

}  // namespace ascendsim::spec
