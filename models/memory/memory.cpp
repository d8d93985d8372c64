#include "models/memory/memory.h"

namespace ascendsim::models {

Memory::Memory(std::string name, int observerIndex, ResourceTable& table)
    : name_(std::move(name)), observerIndex_(observerIndex), port_(&table.add(name_)) {}

std::unique_ptr<Memory> makeMemory(const std::string& name, const spec::DramSpec& spec,
                                   double share, int observerIndex, ResourceTable& table) {
  return kinds::Registry<MemoryFactory>::instance().at("memory timing", spec.timing)(
      name, spec, share, observerIndex, table);
}

}  // namespace ascendsim::models
