#pragma once
// The presence hub's answer to GET <url>/presence:
//
//   {"nodes": {"studio": {"available": true, "reason": "idle", "host": "10.0.0.7", "port": 8081,
//                         "busy": false}}}
//
// read defensively: the hub is another program on the network. Bounds: at most kMaxNodes nodes,
// node names of [A-Za-z0-9._-] up to 128 bytes (others are dropped), reasons cut to
// kMaxReasonBytes with control characters replaced, hosts that are a DNS name or an IP address up
// to 253 bytes (else the node has no address), ports 1-65535. `available` missing or not a
// boolean counts as false; `busy` likewise. Pure.

#include <cstddef>
#include <expected>
#include <map>
#include <string>
#include <string_view>

#include "server/dispatch/target_check.h"

namespace sluice::presence {

inline constexpr size_t kMaxDocumentBytes = 256u << 10;
inline constexpr size_t kMaxNodes = 1024;
inline constexpr size_t kMaxReasonBytes = 200;

using Nodes = std::map<std::string, dispatch::NodePresence, std::less<>>;

// The nodes, or why the document is not one (not JSON, no "nodes" object, too large).
std::expected<Nodes, std::string> parsePresenceDocument(std::string_view body);

}  // namespace sluice::presence
