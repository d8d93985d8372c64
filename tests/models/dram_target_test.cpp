// The DRAM model behind a TLM-2.0 target socket: any size and address, delay = completion.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/dram/dram_target.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> socket;
  explicit Initiator(sc_core::sc_module_name n) : sc_core::sc_module(n), socket("socket") {}
};

TEST(DramTarget, BTransportReturnsTheModelsCompletionTime) {
  setenv("SYSC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  const spec::DramSpec m = spec::loadSystemSpecFromText(
                               "host: { memory: { preset: ddr4-3200 } }\ndevices: [ { port: rc.0, "
                               "memory: { preset: hbm2, capacity: 16GiB } } ]\n",
                               "t.yaml")
                               .devices[0]
                               .memory;
  const uint64_t base = 1ull << 40;
  DramTarget dram("dram", m, base);
  Initiator cpu("cpu");
  cpu.socket.bind(dram.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  std::vector<unsigned char> data(4096);
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_address(base);
  trans.set_data_ptr(data.data());
  trans.set_data_length(32);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  cpu.socket->b_transport(trans, delay);
  EXPECT_EQ(trans.get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(delay.value(), 30000u);  // closed row: tRCD 14 + CL 14 + burst 2 cycles of 1 ns

  // A 4 KiB write spread over channels by the interleaved mapping, starting 100 ns later.
  trans.set_command(tlm::TLM_WRITE_COMMAND);
  trans.set_address(base + 4096);
  trans.set_data_length(4096);
  delay = sc_core::sc_time(100, sc_core::SC_NS);
  cpu.socket->b_transport(trans, delay);
  EXPECT_EQ(trans.get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_GT(delay, sc_core::sc_time(100, sc_core::SC_NS));
  EXPECT_EQ(dram.timing().totalStats().bytesWritten, 4096u);

  trans.set_address(base + m.capacity - 16);
  trans.set_data_length(32);
  cpu.socket->b_transport(trans, delay);
  EXPECT_EQ(trans.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace
}  // namespace ascendsim::models
