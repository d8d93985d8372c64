#include "models/link/socket_link.h"

#include <cstdio>

namespace ascendsim::models {

SocketLink::SocketLink(int socketA, int socketB, int nodeA, int nodeB,
                       const spec::SocketLinkSpec& spec, ResourceTable& table)
    : Link("cpu" + std::to_string(socketA) + "-cpu" + std::to_string(socketB), nodeA, nodeB, table,
           "host.cpu" + std::to_string(socketA) + ">cpu" + std::to_string(socketB),
           "host.cpu" + std::to_string(socketB) + ">cpu" + std::to_string(socketA)),
      spec_(spec) {}

std::string SocketLink::describe() const {
  char text[64];
  std::snprintf(text, sizeof text, "socket link, %.1f GB/s per direction", spec_.bandwidth / 1e9);
  return text;
}

}  // namespace ascendsim::models
