#pragma once
// Whether one attempt may be sent at all, judged before its credential or breaker: an own machine
// (an endpoint with `presence:`) is sent to only while the presence hub reports its node up, and
// an endpoint with `max_input_bytes:` only for bodies no larger. A target that fails either is
// skipped at once and costs its breaker nothing (it was never tried).
//
// The hub decides nothing about where traffic goes beyond what the catalog allows: an own machine
// without `url:` is reached at the host the hub reports only when that host is an IP address (or
// `localhost`) inside the endpoint's `presence_hosts:` (default: loopback), and is sent no
// credential unless the endpoint declares its own `credential:` (sendsCredential()).
// Pure: the presence snapshot and `now` come in as values.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "server/dispatch/attempt.h"

namespace sluice::dispatch {

// What the hub last said about one node (GET <hub>/presence).
struct NodePresence {
  bool available = false;
  bool busy = false;
  std::string reason;  // the hub's words, already bounded and cleaned (presence/document.h)
  std::string host;    // "" when the hub names none
  int port = 0;        // 0 when the hub names none
};

// The presence hub as last polled, a value the request path copies before walking its attempts.
struct PresenceSnapshot {
  using Clock = std::chrono::steady_clock;
  bool configured = false;                          // the catalog declares a hub
  std::optional<Clock::time_point> last_success;    // the last poll that read a valid document
  std::chrono::milliseconds stale_after{5000};      // the catalog's stale_ms
  std::map<std::string, NodePresence, std::less<>> nodes;
  std::string last_error;                           // of the last failed poll ("" after a success)
};

// Why a node cannot be used now: "absent", "unavailable", "stale", "busy"; nullopt when usable.
// `stale` when the hub was never read or its last success is older than stale_after.
std::optional<std::string_view> presenceState(const PresenceSnapshot& snapshot, std::string_view node, bool skip_busy,
                                              PresenceSnapshot::Clock::time_point now);

struct TargetSkip {
  // route_match: "presence:<state>" (host_not_allowed among them) or "skip:max_input_bytes"
  std::string segment;
  std::string result;   // the attempt's result on the audit row: "skipped:presence", "skipped:max_input_bytes"
  std::string detail;   // for people: "node 'studio' unavailable: sleeping"
};

struct TargetCheck {
  std::optional<TargetSkip> skip;
  // With presence and no `url` in the catalog: the base URL the hub reports for the node
  // (http://host:port, plus /v1 for the OpenAI wires); "" to use the endpoint's own url.
  std::string base_url;
};

TargetCheck checkTarget(const Attempt& attempt, const PresenceSnapshot& presence, size_t body_bytes,
                        PresenceSnapshot::Clock::time_point now);

// The base URL an OpenAI-compatible or other server at host:port is reached at, for `wire`.
std::string presenceBaseUrl(catalog::Wire wire, std::string_view host, int port);

// Whether `host` (as the hub reported it) is one `endpoint` may be sent to: an IP address inside
// its presence_hosts (loopback when it declares none), or "localhost" when loopback is allowed.
// A DNS name is never: where it resolves is not the catalog's to check.
bool presenceHostAllowed(const catalog::Endpoint& endpoint, std::string_view host);

// Whether a call to `endpoint` carries a credential: not when it goes to an address the presence
// hub reported (`base_url` set by checkTarget) and the endpoint declares no `credential:` of its own.
bool sendsCredential(const catalog::Endpoint& endpoint, std::string_view base_url);

}  // namespace sluice::dispatch
