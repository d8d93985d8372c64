#pragma once
// The kernels a program can name: binaries loaded at run time (aclrtBinaryLoadFromFile), their
// functions (aclrtBinaryGetFunction), the argument lists put together for a launch
// (aclrtKernelArgsInit ... Finalize), and the kernels launched by name with <<<...>>>. Only
// bookkeeping: launching is the runtime's (it needs streams and memory).

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "acl/acl_rt.h"
#include "runtime/core/handle_table.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime {

// A binary's bytes as the program that loads it read them (on a served machine the path is the
// program's, in its working directory; the machine loads the bytes).
struct BinaryImage {
  const void* bytes = nullptr;
  uint64_t size = 0;
  std::string unreadable;  // why the program could not read the file (then no bytes)
};

class KernelLibrary {
 public:
  // The file at `path`, or, given `image`, the bytes the program read from it.
  KernelBinary* loadBinary(const char* path, const BinaryImage* image = nullptr);
  void unloadBinary(aclrtBinHandle binary);
  KernelFunction* binaryFunction(aclrtBinHandle binary, const char* name);
  // The function behind a handle of a loaded binary; fails (CANN's codes) otherwise.
  KernelFunction& loadedFunction(aclrtFuncHandle function);

  KernelArgs* createArgs(aclrtFuncHandle function);
  KernelArgs& arguments(aclrtArgsHandle handle);  // fails on a handle not made by createArgs
  KernelArgs::Param* append(aclrtArgsHandle args, const void* param, size_t size);
  KernelArgs::Param* appendPlaceholder(aclrtArgsHandle args);
  void* placeholderBuffer(aclrtArgsHandle args, aclrtParamHandle param, size_t size);
  void finalizeArgs(aclrtArgsHandle args);

  // The handle of the kernel launched by name with <<<...>>> (made at its first launch).
  KernelFunction* launchedKernel(const std::string& name);

 private:
  HandleTable<KernelBinary> binaries_;
  HandleTable<KernelArgs> args_;
  std::map<std::string, std::unique_ptr<KernelFunction>> launched_;
};

}  // namespace ascendsim::runtime
