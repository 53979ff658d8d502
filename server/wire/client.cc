#include "server/wire/client.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace sluice::wire {

using catalog::ClientFamily;
using catalog::Wire;

std::optional<Wire> clientWireForPath(std::string_view path) {
  if (path == "/v1/messages") return Wire::Anthropic;
  if (path == "/v1/chat/completions" || path == "/chat/completions") return Wire::OpenAIChat;
  if (path == "/v1/responses" || path == "/responses") return Wire::OpenAIResponses;
  return std::nullopt;
}

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

ClientFamily detectClientFamily(std::string_view sluice_client_header, std::string_view user_agent, Wire client_wire) {
  if (auto family = catalog::parseClientFamily(lower(sluice_client_header))) return *family;
  const std::string agent = lower(user_agent);
  if (agent.find("opencode") != std::string::npos) return ClientFamily::OpenCode;
  if (agent.find("codex") != std::string::npos) return ClientFamily::Codex;
  if (agent.find("claude") != std::string::npos || agent.find("anthropic") != std::string::npos) {
    return ClientFamily::Claude;
  }
  return client_wire == Wire::Anthropic ? ClientFamily::Claude : ClientFamily::OpenAI;
}

}  // namespace sluice::wire
