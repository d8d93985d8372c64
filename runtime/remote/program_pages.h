#pragma once
// A program's own memory registered with aclrtHostRegister on a served machine: its pages move,
// bytes and all, into the job's shared memory file and are mapped back at the same addresses, in
// the program and in the server, so that copies and kernels reach them in place and nothing but
// addresses crosses the socket (docs/multiprocess.md, "Registered host and managed memory").

#include <cstdint>
#include <string>

#include "acl/acl_base.h"

namespace ascendsim::remote {

// Before a registration of [p, p + size) is sent: its pages that are the program's private,
// writable memory and not shared yet are shared with the server. False, with the reason in `why`,
// if the server cannot map them where the program has them (nothing is changed then). Memory that
// is not the program's private memory (shared already, read-only, a file's) is left as it is.
bool sharePagesOf(const void* p, uint64_t size, std::string& why);
// After the server registered [p, p + size) (`registered`), or refused it: remembered, or its
// pages given back when no other registration holds them.
void settleRegistration(const void* p, uint64_t size, bool registered);
// After aclrtHostUnregister(p) succeeded: the registration's pages that no other holds become the
// program's private memory again, with their bytes.
void unsharePagesOf(const void* p);
// After the process's aclFinalize, which unregistered every range and let the process's queued
// work end first (copies and model launches that read or write the pages): every shared page
// becomes the program's private memory again, with its bytes, and the server lets go of it.
void unshareAllPages();

// Whether [p, p + bytes) lies in pages shared for registrations (copies pass it as it is,
// unstaged).
bool inSharedPages(const void* p, uint64_t bytes);
// Whether [address, address + bytes) lies in a range this program registered (the only host
// ranges the server names that its kernels may watch: another process's addresses mean nothing
// here).
bool registeredHere(uint64_t address, uint64_t bytes);

// The server's end (the call kSharePagesCall): maps a run of a program's pages, whose bytes the
// program has put at an offset of the shared file, at the same address in the server (or drops
// that mapping); a process that goes without giving them back has them dropped.
class Session;
class WireReader;
class WireWriter;
struct ServedProcess;
aclError serveSharePages(Session& s, WireReader& in, WireWriter& out);
// The process's aclFinalize: gives back everything it holds but its shared pages, which the
// program gives back itself once it has copied their bytes back into its private memory
// (unshareAllPages), or which go when the process does.
void releaseAllButSharedPages(ServedProcess& p);

}  // namespace ascendsim::remote
