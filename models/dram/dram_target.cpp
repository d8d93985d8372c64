#include "models/dram/dram_target.h"

#include "models/task/sim_time.h"

namespace ascendsim::models {

DramTarget::DramTarget(sc_core::sc_module_name name, const spec::DramSpec& spec, uint64_t base)
    : sc_core::sc_module(name),
      socket("socket"),
      timing_(makeMemoryTiming(spec)),
      base_(base),
      capacity_(spec.capacity) {
  socket.register_b_transport(this, &DramTarget::b_transport);
}

void DramTarget::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t address = trans.get_address();
  const uint64_t length = trans.get_data_length();
  if (address < base_ || address - base_ + length > capacity_) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const Picoseconds arrival = simNow() + static_cast<Picoseconds>(delay.value());
  const Picoseconds done = timing_->access(address - base_, length, trans.is_write(), arrival);
  delay = toScTime(std::max<Picoseconds>(done - simNow(), 0));
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace ascendsim::models
