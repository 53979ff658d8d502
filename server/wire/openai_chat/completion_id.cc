#include "server/wire/openai_chat/completion_id.h"

namespace sluice::wire::openai_chat {

std::string completionId(const ResponseContext& context, std::string_view provider_id) {
  constexpr std::string_view kPrefix = "chatcmpl-";
  if (!context.request_id.empty()) return std::string(kPrefix) + context.request_id;
  if (provider_id.starts_with(kPrefix)) return std::string(provider_id);
  return std::string(kPrefix) + std::string(provider_id.empty() ? "0" : provider_id);
}

}  // namespace sluice::wire::openai_chat
