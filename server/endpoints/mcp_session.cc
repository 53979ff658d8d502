#include "server/endpoints/mcp_session.h"

#include <array>
#include <cstdlib>
#include <map>

#include <openssl/rand.h>

#include "server/log/json_log.h"
#include "server/wire/mcp/jsonrpc.h"

namespace sluice::endpoints {

namespace {

constexpr std::string_view kPrefix = "mcp1-";
constexpr size_t kNonceBytes = 12;
// A sealed server id of kMaxSessionIdBytes, as hex, with the prefix and key id.
constexpr size_t kMaxTokenBytes = 2 * (wire::mcp::kMaxSessionIdBytes + 16 + kNonceBytes) + 64;

std::string associated(std::string_view member, std::string_view provider) {
  std::string text = "sluice-mcp-session\n";
  text += member;
  text += '\n';
  text += provider;
  return text;
}

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::optional<std::string> unhex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  const auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    const int high = value(text[i]);
    const int low = value(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high << 4 | low);
  }
  return out;
}

}  // namespace

const McpSessions& McpSessions::shared() {
  static const McpSessions sessions(identity::processVault([](const std::string& why) {
    log::warn("MCP sessions: the master key is unusable; sessions are this replica's own", {{"error", why}});
  }));
  return sessions;
}

std::string McpSessions::seal(std::string_view server_session, std::string_view member,
                              std::string_view provider) const {
  const identity::Sealed sealed = vault_.seal(server_session, associated(member, provider));
  return std::string(kPrefix) + sealed.key_id + "-" + hex(sealed.nonce) + hex(sealed.ciphertext);
}

std::optional<std::string> McpSessions::open(std::string_view token, std::string_view member,
                                             std::string_view provider) const {
  if (token.size() > kMaxTokenBytes || !token.starts_with(kPrefix)) return std::nullopt;
  token.remove_prefix(kPrefix.size());
  const size_t dash = token.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  identity::Sealed sealed;
  sealed.key_id = std::string(token.substr(0, dash));
  auto bytes = unhex(token.substr(dash + 1));
  if (!bytes || bytes->size() < kNonceBytes + 16 || !vault_.canOpen(sealed.key_id)) return std::nullopt;
  sealed.nonce = bytes->substr(0, kNonceBytes);
  sealed.ciphertext = bytes->substr(kNonceBytes);
  try {
    auto opened = vault_.open(sealed, associated(member, provider));
    if (!opened) return std::nullopt;
    return std::move(*opened);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace sluice::endpoints
