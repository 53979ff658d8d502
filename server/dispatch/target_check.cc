#include "server/dispatch/target_check.h"

#include <algorithm>
#include <vector>

namespace sluice::dispatch {

namespace {

std::string describeHosts(const catalog::Endpoint& endpoint) {
  if (endpoint.presence_hosts.empty()) return "loopback by default";
  std::string text;
  for (const auto& block : endpoint.presence_hosts) text += (text.empty() ? "" : ", ") + block.text;
  return text;
}

}  // namespace

std::optional<std::string_view> presenceState(const PresenceSnapshot& snapshot, std::string_view node, bool skip_busy,
                                              PresenceSnapshot::Clock::time_point now) {
  if (!snapshot.last_success || now - *snapshot.last_success > snapshot.stale_after) return "stale";
  const auto it = snapshot.nodes.find(node);
  if (it == snapshot.nodes.end()) return "absent";
  if (!it->second.available) return "unavailable";
  if (skip_busy && it->second.busy) return "busy";
  return std::nullopt;
}

std::string presenceBaseUrl(catalog::Wire wire, std::string_view host, int port) {
  // An IPv6 literal goes in brackets; the hub's document was checked to hold a host name or address.
  const bool v6 = host.find(':') != std::string_view::npos;
  std::string url = "http://" + (v6 ? "[" + std::string(host) + "]" : std::string(host)) + ":" + std::to_string(port);
  // The OpenAI wires' base URL ends in /v1 (https://api.openai.com/v1), as llama.cpp, vLLM and
  // MLX servers serve /v1/chat/completions; the Anthropic and Gemini wires add their own prefix.
  if (wire == catalog::Wire::OpenAIChat || wire == catalog::Wire::OpenAIResponses) url += "/v1";
  return url;
}

bool presenceHostAllowed(const catalog::Endpoint& endpoint, std::string_view host) {
  static const std::vector<catalog::Cidr> kLoopback = {*catalog::parseCidr("127.0.0.0/8"), *catalog::parseCidr("::1")};
  const std::vector<catalog::Cidr>& allowed = endpoint.presence_hosts.empty() ? kLoopback : endpoint.presence_hosts;
  const auto inside = [&](const catalog::IpAddress& address) {
    return std::ranges::any_of(allowed, [&](const catalog::Cidr& block) { return block.contains(address); });
  };
  if (host == "localhost") return inside(*catalog::parseIpAddress("127.0.0.1"));
  const auto address = catalog::parseIpAddress(host);
  return address && inside(*address);
}

bool sendsCredential(const catalog::Endpoint& endpoint, std::string_view base_url) {
  return base_url.empty() || endpoint.credential_id.has_value();
}

TargetCheck checkTarget(const Attempt& attempt, const PresenceSnapshot& presence, size_t body_bytes,
                        PresenceSnapshot::Clock::time_point now) {
  TargetCheck check;
  const catalog::Endpoint* endpoint = attempt.endpoint;
  if (endpoint == nullptr) return check;
  if (endpoint->max_input_bytes && static_cast<int64_t>(body_bytes) > *endpoint->max_input_bytes) {
    check.skip = TargetSkip{"skip:max_input_bytes", "skipped:max_input_bytes",
                            endpoint->key + ": the request body is " + std::to_string(body_bytes) +
                                " bytes, more than its max_input_bytes of " + std::to_string(*endpoint->max_input_bytes)};
    return check;
  }
  if (!endpoint->presence_node) return check;
  const std::string& node = *endpoint->presence_node;
  if (auto state = presenceState(presence, node, endpoint->skip_busy, now)) {
    std::string detail = endpoint->key + ": node '" + node + "' " + std::string(*state);
    if (*state == "stale") {
      detail += presence.last_success ? " (the presence hub has not answered for longer than stale_ms)"
                                      : " (the presence hub has not been read yet)";
      if (!presence.last_error.empty()) detail += ": " + presence.last_error;
    } else if (const auto it = presence.nodes.find(node); it != presence.nodes.end() && !it->second.reason.empty()) {
      detail += ": " + it->second.reason;
    }
    check.skip = TargetSkip{"presence:" + std::string(*state), "skipped:presence", std::move(detail)};
    return check;
  }
  const NodePresence& up = presence.nodes.find(node)->second;
  if (endpoint->url.empty()) {
    if (up.host.empty() || up.port <= 0) {
      check.skip = TargetSkip{"presence:no_address", "skipped:presence",
                              endpoint->key + ": node '" + node + "' is available, but the hub reports no host and port "
                                              "and the endpoint declares no url"};
      return check;
    }
    if (!presenceHostAllowed(*endpoint, up.host)) {
      check.skip = TargetSkip{"presence:host_not_allowed", "skipped:presence",
                              endpoint->key + ": node '" + node + "' is reported at '" + up.host +
                                              "', outside the endpoint's presence_hosts (" + describeHosts(*endpoint) +
                                              ")"};
      return check;
    }
    check.base_url = presenceBaseUrl(endpoint->wire, up.host, up.port);
  }
  return check;
}

}  // namespace sluice::dispatch
