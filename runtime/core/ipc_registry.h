#pragma once
// What processes share by name (aclrtIpcMem*, aclrtIpcGetEventHandle, aclrtNotifyGetExportKey):
// device memory exported under a key, with the processes allowed to import it and those that
// have; events and notifies exported under a name, as copies of the exported object (its sync
// point). On a machine served to a whole job every process's calls reach this one runtime, so an
// import is the exporter's own device range or sync point. Processes are named by pid; the
// handles the program holds stay the runtime's.

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "acl/acl_rt.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime {

class MemoryManager;

class IpcRegistry {
 public:
  explicit IpcRegistry(MemoryManager& memory) : memory_(memory) {}

  // ---- device memory (aclrtIpcMemGetExportKey, SetImportPid, ImportByKey, Close)
  void exportMemory(int32_t pid, void* devPtr, size_t size, char* key, size_t len, uint64_t flags);
  void allowProcesses(int32_t pid, const char* key, const int32_t* pids, size_t n);
  void* importMemory(int32_t pid, const char* key, uint64_t flags);
  void close(int32_t pid, const char* key);
  // The exporter frees memory others have imported: true if it stays until they close it.
  bool keepsAlive(const void* p);
  bool importsOn(const Device& d) const;            // whether another process holds memory of `d`
  bool imported(int32_t pid, const void* p) const;  // memory `pid` imported (not its own)

  // ---- events: the name an IPC event is exported under (made at the first ask), and the event
  // a name stands for (a copy whose sync point is the exporter's).
  std::string eventName(const Event& e);
  const Event& exportedEvent(const std::string& name) const;

  // ---- notifies
  void exportNotify(int32_t pid, const Notify& n, char* key, size_t len, uint64_t flags);
  void allowNotifyProcesses(int32_t pid, const Notify& n, const int32_t* pids, size_t count);
  const Notify& importNotify(int32_t pid, const char* key, uint64_t flags) const;

 private:
  struct MemoryExport {
    uint64_t address = 0, size = 0;
    int device = 0;
    int32_t owner = 0;        // the exporting process
    bool anyProcess = false;  // exported without a list of importers
    bool withdrawn = false;   // closed by the exporter; imports made stay valid until closed
    std::set<int32_t> allowed, importers;
    bool ownerFreed = false;  // freed by the exporter: released when the last importer closes
  };
  struct NotifyExport {
    Notify notify;
    int32_t owner = 0;
    bool anyProcess = false;
    std::set<int32_t> allowed;
  };
  MemoryExport& memoryExport(const char* key);
  std::string newKey(const char* prefix);

  MemoryManager& memory_;
  uint64_t keys_ = 0;  // one sequence for every kind of key, so each key is unique
  std::map<std::string, MemoryExport> memoryExports_;
  std::map<std::string, Event> events_;
  std::map<const models::SyncPoint*, std::string> eventNames_;
  std::map<std::string, NotifyExport> notifies_;
  std::map<const models::SyncPoint*, std::string> notifyKeys_;
};

}  // namespace ascendsim::runtime
