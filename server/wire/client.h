#pragma once
// Which client wire a path speaks, and which client family a caller belongs to. Pure.

#include <optional>
#include <string_view>

#include "catalog/catalog.h"

namespace sluice::wire {

// "/v1/messages" -> Anthropic, "/v1/chat/completions" and "/chat/completions" -> OpenAIChat,
// "/v1/responses" and "/responses" -> OpenAIResponses; anything else nullopt.
std::optional<catalog::Wire> clientWireForPath(std::string_view path);

// Placed by the x-sluice-client header when it names a family, else by the User-Agent
// (claude-cli / Claude Code / anthropic SDKs -> claude, opencode -> opencode, codex -> codex),
// else by the wire called (anthropic -> claude, otherwise openai).
catalog::ClientFamily detectClientFamily(std::string_view sluice_client_header, std::string_view user_agent,
                                         catalog::Wire client_wire);

}  // namespace sluice::wire
