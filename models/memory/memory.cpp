#include "models/memory/memory.h"

namespace ascendsim::models {

Memory::Memory(std::string name, int observerIndex, ResourceTable& table)
    : name_(std::move(name)), observerIndex_(observerIndex), port_(&table.add(name_)) {}

std::map<std::string, MemoryFactory>& memoryRegistry() {
  static std::map<std::string, MemoryFactory> registry;
  return registry;
}

RegisterMemory::RegisterMemory(const char* name, MemoryFactory factory) { memoryRegistry()[name] = std::move(factory); }

}  // namespace ascendsim::models
