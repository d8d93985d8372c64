// Bad configs never crash and never pass silently: each case below must be refused with the
// exact file:line:column, the key path and a message saying what was expected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

struct BadConfig {
  const char* name;
  const char* yaml;
  const char* expected;  // must appear in the formatted error text
};

void PrintTo(const BadConfig& c, std::ostream* os) {
  *os << c.name;
}

// A valid single-device machine that most cases modify one key of.
#define MACHINE_HEAD                  \
  "host:\n"                           \
  "  memory: { preset: ddr4-3200 }\n" \
  "pcie:\n"                           \
  "  root_complex: { ports: 2 }\n"

const BadConfig kCases[] = {
#define FOUR_NPUS                                                                               \
  "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 4 }\ndevices:\n  - " \
  "count: 4\n    ports: [rc.0, rc.1, rc.2, rc.3]\n    memory: { preset: hbm2e }\n"
    {"device_link_to_missing_device",
     FOUR_NPUS "device_links:\n  - { model: hccs, devices: [npu0, npu9] }\n",
     "bad.yaml:10:36: error: device_links[0].devices[1]: no device is called 'npu9' (did you mean "
     "'npu0'?); devices: npu0, npu1, npu2, npu3"},
    {"device_link_to_itself",
     FOUR_NPUS "device_links:\n  - { model: hccs, devices: [npu1, npu1] }\n",
     "device_links[0].devices: a link joins two different devices, not npu1 to itself"},
    {"duplicate_device_link",
     FOUR_NPUS "device_links:\n  - { model: hccs, pattern: full-mesh }\n  - { model: hccs, "
               "devices: [npu2, npu0] }\n",
     "bad.yaml:11:5: error: device_links[1]: devices npu0 and npu2 are already linked by "
     "device_links[0]"},
    {"device_link_faster_than_its_kind",
     FOUR_NPUS "device_links:\n  - { model: hccs, pattern: full-mesh, speed: 112GT/s }\n",
     "device_links[0].speed: 112GT/s per lane is faster than any hccs link runs (56GT/s per lane "
     "at most)"},
    {"device_link_unknown_kind",
     FOUR_NPUS "device_links:\n  - { model: hcs, pattern: full-mesh }\n",
     "device_links[0].model: 'hcs' is not a kind of device link; expected one of hccs (did you "
     "mean 'hccs'?)"},
    {"device_link_groups_do_not_divide",
     FOUR_NPUS "device_links:\n  - { model: hccs, groups-of: 3 }\n",
     "device_links[0].groups-of: the machine's 4 devices do not split into groups of 3"},
    {"device_link_transfer_rate_not_a_rate",
     FOUR_NPUS "device_links:\n  - { model: hccs, pattern: full-mesh, transfer_rate: 19.3GT/s }\n",
     "device_links[0].transfer_rate:"},
    {"device_link_transfer_rate_negative",
     FOUR_NPUS "device_links:\n  - { model: hccs, pattern: full-mesh, transfer_rate: -1GB/s }\n",
     "device_links[0].transfer_rate: a bandwidth cannot be negative"},
    {"device_link_transfer_rate_zero",
     FOUR_NPUS "device_links:\n  - { model: hccs, pattern: full-mesh, transfer_rate: 0GB/s }\n",
     "device_links[0].transfer_rate: expected 1MB/s to 100000GB/s, got 0GB/s"},
    {"device_link_two_patterns",
     FOUR_NPUS "device_links:\n  - { model: hccs, groups-of: 2, pattern: full-mesh }\n",
     "give exactly one of 'pattern: full-mesh', 'groups-of: N' or 'devices: [A, B]'"},
    {"root_complex_sockets_count",
     "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 2, sockets: [0] "
     "}\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "pcie.root_complex.sockets: 1 socket(s) listed for 2 root port(s); give one per port"},
    {"root_complex_efficiency_above_one",
     "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 2, efficiency: 1.2 "
     "}\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "pcie.root_complex.efficiency: expected a fraction between 0.05 and 1"},
    {"memory_socket_missing",
     "host:\n  memory: { preset: ddr4-3200 }\n  memory_socket: 1\npcie:\n  root_complex: { ports: "
     "2 }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "host.memory_socket 1 names no socket"},
    {"memory_socket_neither_number_nor_local",
     "host:\n  memory: { preset: ddr4-3200 }\n  memory_socket: locale\npcie:\n  root_complex: { "
     "ports: 2 }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "host.memory_socket: expected a socket number, `thread` or `local`, got 'locale'"},
    {"thread_socket_missing",
     "host:\n  memory: { preset: ddr4-3200 }\n  thread_sockets: [0, 2]\npcie:\n  root_complex: "
     "{ ports: 2, sockets: [0, 1] }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "host.thread_sockets[1]: socket 2 names no socket: the root ports are on 2 socket(s)"},
    {"thread_sockets_not_a_list",
     "host:\n  memory: { preset: ddr4-3200 }\n  thread_sockets: 1\npcie:\n  root_complex: "
     "{ ports: 2 }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "host.thread_sockets: expected a list with the CPU socket of each host thread, e.g. [0, 1]"},
    {"thread_sockets_empty",
     "host:\n  memory: { preset: ddr4-3200 }\n  thread_sockets: []\npcie:\n  root_complex: "
     "{ ports: 2 }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "host.thread_sockets: expected a list with the CPU socket of each host thread, e.g. [0, 1]"},
    {"thread_socket_not_a_number",
     "host:\n  memory: { preset: ddr4-3200 }\n  thread_sockets: [0, one]\npcie:\n  "
     "root_complex: { ports: 2 }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "host.thread_sockets: a socket number from 0 to 63"},
    {"root_port_read_share_of_one",
     "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 2, port_read_share: "
     "1 }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "pcie.root_complex.port_read_share: expected a fraction between 0.01 and 0.99"},
    {"empty_port",  // issue #16 item 15: accepted, and `config show` did not load back
     MACHINE_HEAD "devices:\n  - port: \"\"\n    memory: { preset: hbm2e }\n",
     "bad.yaml:6:11: error: devices[0].port: expected a port such as sw0.1"},
    {"empty_port_in_list",
     MACHINE_HEAD
     "devices:\n  - count: 2\n    ports: [rc.0, \"\"]\n    memory: { preset: hbm2e }\n",
     "devices[0].ports[1]: expected a port such as sw0.1"},
    {"misspelt_top_level_key", MACHINE_HEAD "devise: []\n",
     "bad.yaml:5:1: error: devise: unknown key (did you mean 'devices'?)"},
    {"misspelt_nested_key",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memroy: { preset: hbm2e }\n",
     "bad.yaml:7:5: error: devices[0].memroy: unknown key (did you mean 'memory'?)"},
    {"lanes_three",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    link: { lanes: 3 }\n    memory: { preset: hbm2e }\n",
     "bad.yaml:7:20: error: devices[0].link.lanes: '3' is not allowed; expected one of 1, 2, 4, 8, "
     "16"},
    {"generation_seven",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    link: { generation: 7 }\n    memory: { preset: hbm2e }\n",
     "devices[0].link.generation: expected 1 to 6, got 7"},
    {"link_faster_than_generation",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    link: { generation: 3, speed: 16GT/s }\n    "
                  "memory: { preset: hbm2e }\n",
     "devices[0].link.speed: 16GT/s is faster than PCIe Gen3 allows (8GT/s per lane)"},
    {"not_a_pcie_speed",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    link: { generation: 5, speed: 20GT/s }\n    "
                  "memory: { preset: hbm2e }\n",
     "20GT/s is not a PCIe speed"},
    {"zero_capacity",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2e, capacity: 0 }\n",
     "bad.yaml:7:40: error: devices[0].memory.capacity: capacity must be more than 0 bytes"},
    {"capacity_not_whole_rows",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2e, capacity: 1000MB }\n",
     "devices[0].memory.capacity: capacity 1000000000B is not a whole number of rows"},
    {"port_index_does_not_exist",
     MACHINE_HEAD "devices:\n  - port: rc.9\n    memory: { preset: hbm2e }\n",
     "bad.yaml:6:11: error: devices[0].port: port 'rc.9' does not exist: 'rc' has 2 port(s)"},
    {"port_of_unknown_switch",
     MACHINE_HEAD "devices:\n  - port: sw0.0\n    memory: { preset: hbm2e }\n",
     "port 'sw0.0' names no switch or root complex called 'sw0'"},
    {"port_not_a_port", MACHINE_HEAD "devices:\n  - port: rc\n    memory: { preset: hbm2e }\n",
     "'rc' is not a port; write OWNER.INDEX"},
    {"two_devices_on_one_port",
     MACHINE_HEAD
     "devices:\n  - count: 2\n    ports: [rc.0, rc.0]\n    memory: { preset: hbm2e }\n",
     "devices[0].ports[1]: port 'rc.0' is already taken by device npu0; one link per port"},
    {"switch_and_device_on_one_port",
     MACHINE_HEAD "  switches:\n    - { name: sw0, upstream: rc.0, ports: 2 }\n"
                  "devices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "port 'rc.0' is already taken by switch sw0"},
    {"switch_uplinks_into_a_switch",
     MACHINE_HEAD "  switches:\n    - { name: sw0, upstream: rc.0, ports: 2 }\n    - { name: sw1, "
                  "upstream: [rc.1, sw0.0], ports: 2 }\ndevices:\n  - port: sw1.0\n    memory: "
                  "{ preset: hbm2e }\n",
     "switch sw1 has several uplinks, so each must plug into a root port (rc.N); 'sw0.0' is a "
     "switch's port"},
    {"switch_uplinks_on_one_port",
     MACHINE_HEAD "  switches:\n    - { name: sw0, upstream: [rc.0, rc.0], ports: 2 }\n"
                  "devices:\n  - port: sw0.0\n    memory: { preset: hbm2e }\n",
     "port 'rc.0' is already taken by switch sw0"},
    {"switch_uplinks_empty",
     MACHINE_HEAD "  switches:\n    - { name: sw0, upstream: [], ports: 2 }\n"
                  "devices:\n  - port: sw0.0\n    memory: { preset: hbm2e }\n",
     "pcie.switches[0].upstream: expected a port or a list of root ports, e.g. [rc.0, rc.1]"},
    {"switch_uplink_not_a_port",
     MACHINE_HEAD "  switches:\n    - { name: sw0, upstream: [rc.0, rc1], ports: 2 }\n"
                  "devices:\n  - port: sw0.0\n    memory: { preset: hbm2e }\n",
     "'rc1' is not a port; write OWNER.INDEX, e.g. rc.0 or sw0.3"},
    {"switch_tree_cycle",
     MACHINE_HEAD "  switches:\n    - { name: a, upstream: b.0, ports: 2 }\n    - { name: b, "
                  "upstream: a.0, ports: 2 }\n"
                  "devices:\n  - port: a.1\n    memory: { preset: hbm2e }\n",
     "the switch tree has a cycle: a -> b -> a"},
    {"duplicate_switch_name",
     MACHINE_HEAD "  switches:\n    - { name: sw0, upstream: rc.0, ports: 2 }\n    - { name: sw0, "
                  "upstream: rc.1, ports: 2 }\n"
                  "devices:\n  - port: sw0.0\n    memory: { preset: hbm2e }\n",
     "pcie.switches[1].name: switch name 'sw0' is used twice"},
    {"switch_without_ports",
     MACHINE_HEAD "  switches:\n    - { name: sw0, upstream: rc.0, ports: 0 }\n"
                  "devices:\n  - port: rc.1\n    memory: { preset: hbm2e }\n",
     "pcie.switches[0].ports: expected 1 to 128, got 0"},
    {"mps_not_power_of_two",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    link: { mps: 384 }\n    memory: { preset: hbm2e }\n",
     "devices[0].link.mps: expected a power of two from 128B to 4KiB, got 384B"},
    {"mrrs_too_large",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    link: { mrrs: 8KiB }\n    memory: { preset: hbm2e }\n",
     "devices[0].link.mrrs: expected 128B to 4KiB, got 8KiB"},
    {"rcb_256",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    link: { rcb: 256 }\n    memory: { preset: hbm2e }\n",
     "devices[0].link.rcb: '256' is not allowed; expected one of 64, 128"},
    {"bad_run_mode",
     "run_mode: hots\n" MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "bad.yaml:1:11: error: run_mode: 'hots' is not allowed; expected one of host, device (did you "
     "mean 'host'?)"},
    {"missing_port_in_host_mode", MACHINE_HEAD "devices:\n  - memory: { preset: hbm2e }\n",
     "devices[0]: missing 'port': in run mode host every device hangs on a PCIe port"},
    {"size_with_bandwidth_unit",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2e, capacity: 64GB/s }\n",
     "devices[0].memory.capacity: unknown unit 'GB/s' in '64GB/s' for a size"},
    {"duration_without_unit",
     MACHINE_HEAD "  switches:\n    - { name: sw0, upstream: rc.0, ports: 2, latency: 105 }\n"
                  "devices:\n  - port: sw0.0\n    memory: { preset: hbm2e }\n",
     "pcie.switches[0].latency: '105' has no unit; write a duration with one of ps, ns, us, ms, s"},
    {"negative_bandwidth",
     "host:\n  memory: { preset: ddr4-3200 }\n  cpu_copy_bandwidth: -5GB/s\n"
     "devices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "host.cpu_copy_bandwidth: a bandwidth cannot be negative"},
    {"soc_not_a_soc_version",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    soc: 910B 4\n    memory: { preset: hbm2e }\n",
     "devices[0].soc: '910B 4' is not a SoC version such as Ascend910B4 or Ascend310P3"},
    {"cycle_memory_with_fixed_rate_copies",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    dma: { model: fixed-rate }\n    memory: { preset: "
                  "hbm2e, timing: cycle }\n",
     "devices: npu0 uses dma.model: fixed-rate, which times memories at their sustained rates, but "
     "its memory has timing: cycle"},
    {"write_low_watermark_above_high",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2e, write_high_watermark: "
                  "0.5, write_low_watermark: 0.6 }\n",
     "devices[0].memory.write_low_watermark: write_low_watermark (0.6) must be below "
     "write_high_watermark (0.5)"},
    {"write_watermark_not_a_fraction",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    memory: { preset: hbm2e, write_high_watermark: 80% }\n",
     "devices[0].memory.write_high_watermark: expected a fraction between 0 and 1 (of the write "
     "queue's depth), got '80%'"},
    {"write_queue_depth_zero",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2e, write_queue_depth: 0 }\n",
     "devices[0].memory.write_queue_depth"},
    {"write_buffer_beyond_1TiB",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2e, write_buffer: 2TiB }\n",
     "devices[0].memory.write_buffer"},
    {"unknown_memory_preset",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2x }\n",
     "devices[0].memory.preset: unknown memory preset 'hbm2x' (did you mean 'hbm2'?)"},
    {"memory_without_preset_missing_timings",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { standard: HBM2, capacity: 8GiB }\n",
     "devices[0].memory: missing required key 'channels'"},
    {"yaml_syntax_error", "host:\n  memory: { preset: ddr4-3200\ndevices: []\n",
     "bad.yaml:3:8: error: YAML syntax error"},
    {"duplicate_key",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    port: rc.1\n    memory: { preset: hbm2e }\n",
     "bad.yaml:7:5: error: devices[0].port: duplicate key (first given at line 6)"},
    {"count_and_ports_mismatch",
     MACHINE_HEAD
     "devices:\n  - count: 3\n    ports: [rc.0, rc.1]\n    memory: { preset: hbm2e }\n",
     "devices[0].ports: 2 port(s) given for 3 device(s)"},
    {"no_devices", MACHINE_HEAD "devices: []\n", "devices: a machine needs at least one device"},
    {"devices_not_a_list", MACHINE_HEAD "devices: { port: rc.0 }\n",
     "devices: expected a list of devices"},
    {"map_where_value_expected",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    link: { lanes: { x: 16 } }\n    memory: { preset: hbm2e }\n",
     "devices[0].link.lanes: expected a single value, got a map of keys"},
    {"dma_engines_zero",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    dma: { engines: 0 }\n    memory: { preset: hbm2e }\n",
     "devices[0].dma.engines: expected 1 to 64, got 0"},
    {"chunk_size_not_multiple_of_64",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    dma: { chunk_size: 1000 }\n    memory: { preset: hbm2e }\n",
     "devices[0].dma.chunk_size: chunk_size must be a multiple of 64B"},
    {"dma_engine_bandwidth_without_unit",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    dma: { engine_bandwidth: 100 }\n    memory: { "
                  "preset: hbm2e }\n",
     "devices[0].dma.engine_bandwidth: '100' has no unit"},
    {"dma_engine_bandwidth_zero",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    dma: { engine_bandwidth: 0GB/s }\n    memory: { preset: hbm2e "
     "}\n",
     "devices[0].dma.engine_bandwidth: expected 1MB/s to 100000GB/s, got 0GB/s"},
    {"dma_engine_bandwidth_a_word",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    dma: { engine_bandwidth: fast }\n    memory: { preset: hbm2e "
     "}\n",
     "devices[0].dma.engine_bandwidth: expected a bandwidth such as 25.6GB/s, got 'fast'"},
    {"root_complex_bridge_bandwidth_without_unit",
     "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 2, bridge_bandwidth: "
     "60 }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "pcie.root_complex.bridge_bandwidth: '60' has no unit"},
    {"root_complex_bridge_bandwidth_negative",
     "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 2, bridge_bandwidth: "
     "-1GB/s }\ndevices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n",
     "pcie.root_complex.bridge_bandwidth: a bandwidth cannot be negative"},
    {"dma_descriptor_size_is_gone",  // issue #36: no model read it; setup_latency holds the fetch
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    dma: { descriptor_size: 64 }\n    memory: { preset: hbm2e }\n",
     "devices[0].dma.descriptor_size: unknown key"},
    {"unified_buffer_not_multiple_of_32",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    aicore: { unified_buffer: 4100 }\n    memory: { "
                  "preset: hbm2e }\n",
     "devices[0].aicore.unified_buffer: unified_buffer must be a multiple of 32B"},
    {"unified_buffer_too_large",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    aicore: { unified_buffer: 32MiB }\n    memory: { "
                  "preset: hbm2e }\n",
     "devices[0].aicore.unified_buffer: expected 1KiB to 16MiB, got 32MiB"},
    {"aicore_zero_cores",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    aicore: { cores: 0 }\n    memory: { preset: hbm2e }\n",
     "devices[0].aicore.cores: expected 1 to 1024, got 0"},
    {"aicore_clock_without_unit",
     MACHINE_HEAD
     "devices:\n  - port: rc.0\n    aicore: { clock: 1650 }\n    memory: { preset: hbm2e }\n",
     "devices[0].aicore.clock:"},
    {"aicore_unknown_key",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    aicore: { vector_bytes_per_cycles: 256 }\n    "
                  "memory: { preset: hbm2e }\n",
     "devices[0].aicore.vector_bytes_per_cycles: unknown key (did you mean "
     "'vector_bytes_per_cycle'?)"},
    {"trc_shorter_than_tras_plus_trp",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2, tRC: 40 }\n",
     "devices[0].memory.tRC: tRC (40) is shorter than tRAS + tRP (48 cycles)"},
    {"refresh_interval_shorter_than_refresh",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2, tREFI: 300 }\n",
     "tREFI (300) must exceed tRFC (350)"},
    {"data_rate_clock_ratio",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2, data_rate: 3000MT/s }\n",
     "devices[0].memory.data_rate: data_rate 3GT/s is 3.000000 transfers per clock"},
    {"timing_not_cycles_or_duration",
     MACHINE_HEAD "devices:\n  - port: rc.0\n    memory: { preset: hbm2, tCL: fast }\n",
     "devices[0].memory.tCL: expected clock cycles (14) or a duration (13.75ns), got 'fast'"},
    {"group_with_one_name",
     MACHINE_HEAD "devices:\n  - count: 2\n    name: npu\n    ports: [rc.0, rc.1]\n    memory: { "
                  "preset: hbm2e }\n",
     "a group of 2 devices cannot share one name"},
    {"rc_mode_with_two_devices",
     "run_mode: device\nhost:\n  memory: { preset: lpddr4x }\ndevices:\n  - count: 2\n    memory: "
     "{ preset: lpddr4x }\n",
     "run_mode: run mode device (RC) runs the program on one device's CPU; this config has 2 "
     "devices"},
    {"extends_missing_file", "extends: no-such-machine.yaml\n",
     "bad.yaml:1:10: error: extends: cannot find 'no-such-machine.yaml'"},
    {"empty_file", "", "bad.yaml:1:1: error: the file is empty"},
};

class BadConfigTest : public ::testing::TestWithParam<BadConfig> {};

TEST_P(BadConfigTest, IsRefusedWithLocatedMessage) {
  const BadConfig& c = GetParam();
  try {
    loadSystemSpecFromText(c.yaml, "bad.yaml");
    FAIL() << "config was accepted:\n" << c.yaml;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos)
        << "expected to find:\n  " << c.expected << "\nin:\n  " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, BadConfigTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<BadConfig>& param) {
                           return std::string(param.param.name);
                         });

TEST(BadConfig, ReportsEveryErrorAtOnce) {
  const char* yaml = MACHINE_HEAD
      "devices:\n  - port: rc.7\n    link: { lanes: 3, mps: 100 }\n    memory: { preset: hbm2e }\n";
  try {
    loadSystemSpecFromText(yaml, "bad.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().size(), 3u) << e.what();
  }
}

TEST(BadConfig, ExtendsCycleBetweenFiles) {
  const std::string dir = ASCENDSIM_SOURCE_DIR "/tests/spec/data";
  try {
    loadSystemSpec(dir + "/cycle-a.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "cycle-b.yaml:2:10: error: extends: 'cycle-a.yaml' extends itself"),
              std::string::npos)
        << e.what();
  }
}

TEST(BadConfig, ErrorInsidePresetNamesTheUserKeyPath) {
  // An override that breaks a preset relation is reported at the user's line, not the preset's.
  try {
    loadSystemSpecFromText(MACHINE_HEAD
                           "devices:\n  - port: rc.0\n    memory: { preset: hbm3, tRAS: 10 }\n",
                           "bad.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:7:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ascendsim::spec

namespace ascendsim::spec {

namespace {
// Loads `yaml` and returns the error text, or "" if it was accepted.
std::string errorOf(const std::string& yaml) {
  try {
    loadSystemSpecFromText(yaml, "bad.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(HostileYaml, AliasesInsideThemselvesAreAnError) {
  // #16 item 5: these overflowed the stack.
  for (const char* yaml :
       {"a: &a [*a]\n", "a: &a { b: *a }\n", "a: &a { <<: *a }\n", "a: &a [1, [2, *a]]\n"}) {
    EXPECT_NE(errorOf(yaml).find("an alias refers to a node that contains it"), std::string::npos)
        << yaml;
  }
}

TEST(HostileYaml, BillionLaughsIsRefusedQuickly) {
  // Nine levels of ten aliases each: 10^9 nodes from a file of some 450 bytes (it used to
  // allocate 8 GB). Refused once 500000 nodes are built.
  std::string yaml = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    yaml += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) yaml += prev + (k < 9 ? ", " : "]\n");
  }
  EXPECT_LT(yaml.size(), 1000u);
  EXPECT_NE(errorOf(yaml).find("expands to more than 500000 nodes"), std::string::npos);
}

TEST(HostileYaml, MergeKeyBombIsRefusedQuickly) {
  // Each level merges the previous one through two keys: 2^30 conversions of level 0 (it ran
  // past 60 s). The node budget stops it.
  std::string yaml = "m0: &m0 { a: 1, b: 2 }\n";
  for (int i = 1; i <= 30; ++i) {
    const std::string prev = "*m" + std::to_string(i - 1);
    yaml += "m" + std::to_string(i) + ": &m" + std::to_string(i) + " { x: " + prev +
            ", y: " + prev + " }\n";
  }
  EXPECT_NE(errorOf(yaml).find("expands to more than 500000 nodes"), std::string::npos);
}

TEST(HostileYaml, LongExtendsChainsAreRefused) {
  // 40 files, each extending the next (8000 used to overflow the stack).
  const std::string dir = ::testing::TempDir() + "/extends-chain";
  std::filesystem::create_directories(dir);
  for (int i = 0; i < 40; ++i) {
    std::ofstream(dir + "/f" + std::to_string(i) + ".yaml") << "extends: f" << i + 1 << ".yaml\n";
  }
  std::ofstream(dir + "/f40.yaml") << "extends: default\n";
  try {
    loadSystemSpec(dir + "/f0.yaml");
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 32 files extend each other"), std::string::npos)
        << e.what();
  }
}

}  // namespace ascendsim::spec
