#include "server/wire/endpoint.h"

#include "server/wire/bedrock/invoke.h"

namespace sluice::wire {

using catalog::Wire;

std::string upstreamPath(Wire wire, const std::string& upstream_model, bool stream) {
  switch (wire) {
    case Wire::Anthropic: return "/v1/messages";
    case Wire::OpenAIChat: return "/chat/completions";
    case Wire::OpenAIResponses: return "/responses";
    case Wire::Gemini:
      return "/v1beta/models/" + upstream_model + (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
    case Wire::BedrockConverse: return bedrock::conversePath(upstream_model, stream);
    case Wire::Mcp: return "";  // the endpoint's url is the server's whole address
  }
  return "/";
}

std::pair<std::string, std::string> credentialHeader(Wire wire, const std::string& secret) {
  switch (wire) {
    case Wire::Anthropic: return {"x-api-key", secret};
    case Wire::OpenAIChat:
    case Wire::OpenAIResponses:
    case Wire::Mcp:  // unless the endpoint names its own auth_header (pipeline/upstream_call.cc)
    case Wire::BedrockConverse: return {"Authorization", "Bearer " + secret};  // a Bedrock API key
    case Wire::Gemini: return {"x-goog-api-key", secret};
  }
  return {"Authorization", "Bearer " + secret};
}

std::span<const std::string_view> protocolHeaders(catalog::Wire wire) {
  static constexpr std::string_view kAnthropic[] = {"anthropic-beta", "anthropic-version"};
  static constexpr std::string_view kOpenAI[] = {"openai-beta"};
  switch (wire) {
    case catalog::Wire::Anthropic: return kAnthropic;
    case catalog::Wire::OpenAIChat:
    case catalog::Wire::OpenAIResponses: return kOpenAI;
    case catalog::Wire::Gemini:
    case catalog::Wire::Mcp:
    case catalog::Wire::BedrockConverse: return {};
  }
  return {};
}

std::span<const std::pair<std::string_view, std::string_view>> defaultHeaders(catalog::Wire wire) {
  static constexpr std::pair<std::string_view, std::string_view> kAnthropic[] = {{"anthropic-version", "2023-06-01"}};
  if (wire == catalog::Wire::Anthropic) return kAnthropic;
  return {};
}

}  // namespace sluice::wire
