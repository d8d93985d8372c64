#pragma once
// The server's common ways to serve a call of runtime/api/served_calls.h (and the HCCL calls of
// runtime/api/hccl_served.h): run it as it came, or also keep what it made with its process so
// that a process gone without giving it back has it released.

#include "runtime/remote/machine_server.h"
#include "runtime/remote/marshal.h"

namespace ascendsim::remote {

template <auto Fn>
aclError serve(Session&, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  call.run();
  call.write(out);
  return call.code;
}

// Calls that make something the process must give back, and the calls that give it back.
// `Made`: the argument that receives what the call made.
template <auto Fn, auto Release, size_t Made = 0>
aclError serveAcquire(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS && call.template arg<Made>()) {
    auto handle = *call.template arg<Made>();
    s.process().hold(bitsOf(handle), [handle] { Release(handle); });
  }
  return call.code;
}

template <auto Fn>
aclError serveRelease(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) s.process().drop(bitsOf(call.template arg<0>()));
  return call.code;
}

template <auto Fn>
void addServed(ServedHandler handler = &serve<Fn>) {
  registerServedCall(Served<Fn>::name, handler);
}

}  // namespace ascendsim::remote
