#pragma once
// Where a kernel's traffic goes in device memory: the addresses of its read or write stream, as
// runs of bytes, by the access pattern its task declares (KernelWork::Access).

#include <cstdint>
#include <string>
#include <vector>

#include "models/resource/resource.h"
#include "models/task/task.h"

namespace ascendsim::models {

// Appends to `out` the runs of bytes [from, from + length) of `work`'s write (or read) stream.
// Sequential streams walk the ranges in order (without ranges, a timing-only kernel, from
// `fallback` on); strided and random ones touch one `burst` at a time within the ranges.
void kernelRuns(const KernelWork& work, bool write, uint64_t from, uint64_t length, uint64_t burst,
                uint64_t fallback, std::vector<AddressRun>& out);

// "sequential", "strided", "random"; and back (false for an unknown name).
const char* accessName(KernelWork::Access access);
bool accessFromName(const std::string& name, KernelWork::Access& out);

}  // namespace ascendsim::models
