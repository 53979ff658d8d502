#include "server/presence/document.h"

#include <algorithm>
#include <cctype>

#include "server/wire/json_parse.h"

namespace sluice::presence {

namespace {

bool validNodeName(std::string_view name) {
  return !name.empty() && name.size() <= 128 && std::ranges::all_of(name, [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

// A DNS name or an IPv4/IPv6 literal (no brackets, no port, no path).
bool validHost(std::string_view host) {
  return !host.empty() && host.size() <= 253 && host.front() != '-' && host.front() != '.' &&
         std::ranges::all_of(host, [](unsigned char c) { return std::isalnum(c) || c == '.' || c == '-' || c == ':'; });
}

std::string cleanReason(std::string_view text) {
  std::string out(text.substr(0, kMaxReasonBytes));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

}  // namespace

std::expected<Nodes, std::string> parsePresenceDocument(std::string_view body) {
  if (body.size() > kMaxDocumentBytes) {
    return std::unexpected("the presence document is larger than " + std::to_string(kMaxDocumentBytes) + " bytes");
  }
  const wire::Json document = wire::parseBounded(body);
  if (!document.is_object()) return std::unexpected("the presence document is not a JSON object");
  const auto nodes = document.find("nodes");
  if (nodes == document.end() || !nodes->is_object()) {
    return std::unexpected("the presence document has no \"nodes\" object");
  }
  Nodes out;
  for (const auto& [name, state] : nodes->items()) {
    if (out.size() >= kMaxNodes) break;
    if (!validNodeName(name) || !state.is_object()) continue;
    dispatch::NodePresence node;
    if (const auto it = state.find("available"); it != state.end() && it->is_boolean()) node.available = it->get<bool>();
    if (const auto it = state.find("busy"); it != state.end() && it->is_boolean()) node.busy = it->get<bool>();
    if (const auto it = state.find("reason"); it != state.end() && it->is_string()) {
      node.reason = cleanReason(it->get_ref<const std::string&>());
    }
    const auto host = state.find("host");
    const auto port = state.find("port");
    if (host != state.end() && host->is_string() && validHost(host->get_ref<const std::string&>()) &&
        port != state.end() && port->is_number_integer()) {
      const int64_t number = port->get<int64_t>();
      if (number >= 1 && number <= 65535) {
        node.host = host->get<std::string>();
        node.port = static_cast<int>(number);
      }
    }
    out.emplace(name, std::move(node));
  }
  return out;
}

}  // namespace sluice::presence
