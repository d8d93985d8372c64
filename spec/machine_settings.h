#pragma once
// The settings of every section of a machine config, each declared once (spec/setting.h): the
// loader reads them, `config show` writes them and docs/configuration.md's tables are generated
// from them (`ascendsim config fields --markdown`). Keys that shape the machine rather than set a
// value (a device group's `count`, `name`, `ports`; which devices a device link joins; the list
// of switches) are read by the loader itself and documented beside the generated tables.

#include <string>
#include <vector>

#include "spec/setting.h"
#include "spec/system_spec.h"

namespace ascendsim::spec {

const Settings<TraceSpec>& traceSettings();
const Settings<HostSpec>& hostSettings();
const Settings<SocketLinkSpec>& socketLinkSettings();
const Settings<ApiOverheads>& apiOverheadSettings();
const Settings<RootComplexSpec>& rootComplexSettings();
const Settings<PcieSwitchSpec>& switchSettings();
const Settings<PcieLinkSpec>& pcieLinkSettings();
const Settings<DeviceSpec>& deviceSettings();
const Settings<DmaSpec>& dmaSettings();
const Settings<SchedulerSpec>& schedulerSettings();
const Settings<AiCoreSpec>& aiCoreSettings();
const Settings<DeviceLinkSpec>& deviceLinkSettings();
const Settings<NicSpec>& nicSettings();
const Settings<NetworkSwitchSpec>& networkSwitchSettings();

// A section as docs/configuration.md shows it: its name there (`devices[].dma`) and its rows.
struct SettingsTable {
  std::string section;
  std::vector<SettingRow> rows;
};

// Every section's table, memory sections included, in the order of docs/configuration.md.
std::vector<SettingsTable> settingsTables();

// The table of one section (nullptr when no section has that name).
const SettingsTable* findSettingsTable(const std::vector<SettingsTable>& tables,
                                       const std::string& section);

// Writes a memory section's map (shared by the host's and the devices' `memory`).
void writeMemorySection(YAML::Emitter& out, const DramSpec& memory);

}  // namespace ascendsim::spec
