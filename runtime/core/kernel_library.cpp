// Kernel binaries loaded at run time (aclrtBinaryLoadFromFile): the shared objects
// ascendc_fatbin_library builds, whose kernels carry an entry over AscendCL's argument layout
// (ascendsim-ascendc-prep writes `ascendsimKernelEntry_K` and `ascendsimKernelArgsBytes_K`).

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>

#include "runtime/core/errors.h"
#include "runtime/core/input_file.h"
#include "runtime/core/kernel_library.h"
#include "runtime/core/memory_manager.h"

namespace ascendsim::runtime {
namespace {

// CANN places each argument of an AI Core kernel at the next multiple of 8 bytes.
constexpr size_t kArgumentAlignment = 8;

}  // namespace

KernelBinary* KernelLibrary::loadBinary(const char* path, const BinaryImage* image) {
  if (!path || !*path) fail(ACL_ERROR_INVALID_PARAM, "binPath is NULL or empty");
  // The file at the path given, as CANN reads it: a bare name is in the working directory, not
  // wherever the dynamic loader's search path finds one; and a regular file (a FIFO used to hang
  // the call in dlopen).
  std::string file = std::strchr(path, '/') ? path : std::string("./") + path;
  int imageFile = -1;
  if (image) {
    // The program's bytes, loaded from a memory file of their own.
    if (!image->unreadable.empty()) {
      fail(ACL_ERROR_RT_FILE_OPEN,
           std::string("cannot load kernel binary '") + path + "': " + image->unreadable);
    }
    imageFile = memfd_create("ascendsim-kernel-binary", MFD_CLOEXEC);
    const auto* bytes = static_cast<const uint8_t*>(image->bytes);
    for (uint64_t at = 0; imageFile >= 0 && at < image->size;) {
      const ssize_t n = write(imageFile, bytes + at, image->size - at);
      if (n <= 0) {
        close(imageFile);
        imageFile = -1;
      } else {
        at += static_cast<uint64_t>(n);
      }
    }
    if (imageFile < 0) {
      fail(ACL_ERROR_RT_FILE_OPEN, std::string("cannot load kernel binary '") + path +
                                       "': no memory file for its " + std::to_string(image->size) +
                                       " bytes");
    }
    file = "/proc/self/fd/" + std::to_string(imageFile);
  } else {
    std::string notRegular;
    if (!isRegularFile(file, notRegular)) {
      fail(ACL_ERROR_RT_FILE_OPEN,
           std::string("cannot load kernel binary '") + path + "': " + notRegular);
    }
  }
  dlerror();
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (imageFile >= 0) close(imageFile);  // (the loader keeps its own mapping)
  if (!library) {
    const char* why = dlerror();
    fail(ACL_ERROR_RT_FILE_OPEN, std::string("cannot load kernel binary '") + path +
                                     "': " + (why ? why : "unknown") +
                                     " (AscendSim loads what ascendc_fatbin_library builds)");
  }
  auto binary = std::make_unique<KernelBinary>();
  binary->path = path;
  binary->library = std::shared_ptr<void>(library, [](void* l) { dlclose(l); });
  return &binaries_.add(std::move(binary));
}

void KernelLibrary::unloadBinary(aclrtBinHandle handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
  KernelBinary* binary = binaries_.find(handle);
  if (!binary)
    fail(ACL_ERROR_RT_INVALID_HANDLE, "binHandle is not a loaded binary (unloaded already?)");
  // Its kernels' argument lists go with it; queued launches hold the library open until they end.
  for (KernelArgs* args : args_.all()) {
    if (args->function->binary == binary) args_.erase(args);
  }
  binaries_.erase(binary);
}

KernelFunction* KernelLibrary::binaryFunction(aclrtBinHandle handle, const char* name) {
  if (!handle || !name)
    fail(ACL_ERROR_INVALID_PARAM, handle ? "kernelName is NULL" : "binHandle is NULL");
  KernelBinary* binary = binaries_.find(handle);
  if (!binary)
    fail(ACL_ERROR_RT_INVALID_HANDLE, "binHandle is not a loaded binary (unloaded already?)");
  auto& slot = binary->functions[name];
  if (slot) return slot.get();
  const std::string entryName = std::string("ascendsimKernelEntry_") + name;
  void* entry = dlsym(binary->library.get(), entryName.c_str());
  void* size =
      dlsym(binary->library.get(), (std::string("ascendsimKernelArgsBytes_") + name).c_str());
  if (!entry || !size) {
    binary->functions.erase(name);
    fail(ACL_ERROR_RT_KERNEL_LOOKUP,
         std::string("binary '") + binary->path + "' defines no kernel named '" + name + "'");
  }
  auto function = std::make_unique<KernelFunction>();
  function->name = name;
  function->entry = reinterpret_cast<void (*)(void*)>(entry);
  function->argsBytes = reinterpret_cast<uint32_t (*)()>(size)();
  function->binary = binary;
  slot = std::move(function);
  return slot.get();
}

KernelFunction& KernelLibrary::loadedFunction(aclrtFuncHandle handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "funcHandle is NULL");
  for (KernelBinary* binary : binaries_.all()) {
    for (auto& [name, function] : binary->functions) {
      if (function.get() == handle) return *function;
    }
  }
  fail(ACL_ERROR_RT_INVALID_HANDLE,
       "funcHandle is not a kernel of a loaded binary (aclrtBinaryGetFunction)");
}

KernelArgs& KernelLibrary::arguments(aclrtArgsHandle handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
  KernelArgs* args = args_.find(handle);
  if (!args) fail(ACL_ERROR_RT_INVALID_HANDLE, "argsHandle was not made by aclrtKernelArgsInit");
  return *args;
}

KernelArgs* KernelLibrary::createArgs(aclrtFuncHandle handle) {
  auto args = std::make_unique<KernelArgs>();
  args->function = &loadedFunction(handle);
  return &args_.add(std::move(args));
}

namespace {
// What CANN refuses to append (hicann/runtime ApiImpl::KernelArgsAppend and
// KernelArgsAppendPlaceHolder): anything after Finalize or after a placeholder buffer was taken.
void checkAppendable(const KernelArgs& args) {
  if (args.finalized) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "the arguments were finalized (aclrtKernelArgsFinalize): nothing can be appended");
  }
  if (args.gotPlaceholderBuffer) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "a placeholder buffer was taken (aclrtKernelArgsGetPlaceHolderBuffer): nothing can be "
         "appended after it");
  }
}
}  // namespace

KernelArgs::Param* KernelLibrary::append(aclrtArgsHandle handle, const void* param, size_t size) {
  KernelArgs& args = arguments(handle);
  if (!param) fail(ACL_ERROR_INVALID_PARAM, "param is NULL");
  checkAppendable(args);
  const size_t offset =
      (args.bytes.size() + kArgumentAlignment - 1) / kArgumentAlignment * kArgumentAlignment;
  const uint64_t takes = args.function->argsBytes;
  if (size > takes || offset > takes - size) {  // (compared so that no size can wrap around)
    fail(ACL_ERROR_RT_PARAM_INVALID, "kernel " + args.function->name + " takes " +
                                         std::to_string(takes) + " bytes of arguments; one of " +
                                         std::to_string(size) + " bytes at offset " +
                                         std::to_string(offset) + " does not fit");
  }
  args.bytes.resize(offset + size);
  std::memcpy(args.bytes.data() + offset, param, size);
  args.params.push_back(
      std::make_unique<KernelArgs::Param>(KernelArgs::Param{offset, size, false, {}, 0}));
  return args.params.back().get();
}

KernelArgs::Param* KernelLibrary::appendPlaceholder(aclrtArgsHandle handle) {
  KernelArgs& args = arguments(handle);
  checkAppendable(args);
  // The slot is a device address, 8 bytes (filled in at launch).
  const uint64_t none = 0;
  KernelArgs::Param* param = append(handle, &none, sizeof none);
  param->placeholder = true;
  return param;
}

void* KernelLibrary::placeholderBuffer(aclrtArgsHandle handle, aclrtParamHandle paramHandle,
                                       size_t size) {
  KernelArgs& args = arguments(handle);
  KernelArgs::Param* param = nullptr;
  for (const std::unique_ptr<KernelArgs::Param>& p : args.params) {
    if (p.get() == paramHandle) param = p.get();
  }
  if (!param) fail(ACL_ERROR_RT_PARAM_INVALID, "paramHandle is not a parameter of argsHandle");
  if (!param->placeholder) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "paramHandle was appended by aclrtKernelArgsAppend, not as a placeholder");
  }
  if (args.finalized) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "the arguments were finalized (aclrtKernelArgsFinalize): no placeholder buffer can be "
         "taken");
  }
  void* buffer = hostMemory().allocate(size, 64);
  if (!buffer) throw std::bad_alloc();
  std::memset(buffer, 0, size);
  args.gotPlaceholderBuffer = true;
  param->data.reset(static_cast<uint8_t*>(buffer), [](uint8_t* p) { hostMemory().release(p); });
  param->dataBytes = size;
  return buffer;
}

void KernelLibrary::finalizeArgs(aclrtArgsHandle handle) {
  arguments(handle).finalized = true;
}

KernelFunction* KernelLibrary::launchedKernel(const std::string& name) {
  auto& slot = launched_[name];
  if (!slot) slot = std::make_unique<KernelFunction>(KernelFunction{name});
  return slot.get();
}

}  // namespace ascendsim::runtime
