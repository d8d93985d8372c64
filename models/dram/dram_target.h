#pragma once
// A memory as a TLM-2.0 target: b_transport of any size and address returns, in its delay, the
// time until the access's last byte moved, as the memory's timing model computes it.

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <memory>

#include "models/dram/memory_timing.h"

namespace ascendsim::models {

class DramTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DramTarget> socket;

  // `base`: the address the memory starts at in the initiators' address space.
  DramTarget(sc_core::sc_module_name name, const spec::DramSpec& spec, uint64_t base = 0);
  MemoryTiming& timing() { return *timing_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  std::unique_ptr<MemoryTiming> timing_;
  uint64_t base_;
  uint64_t capacity_;
};

}  // namespace ascendsim::models
