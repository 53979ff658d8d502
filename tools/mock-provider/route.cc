#include "tools/mock-provider/route.h"

namespace sluice::mock {

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Bedrock: /model/{id}/invoke[-with-response-stream] or /model/{id}/converse[-stream], the id
// percent-decoded (nullopt when bad).
std::optional<Route> bedrockRoute(std::string_view path) {
  if (!path.starts_with("/model/")) return std::nullopt;
  std::string_view rest = path.substr(7);
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  const std::string_view action = rest.substr(slash + 1);
  if (action != "invoke" && action != "invoke-with-response-stream" && action != "converse" &&
      action != "converse-stream") {
    return std::nullopt;
  }
  std::string model;
  for (size_t i = 0; i < slash; ++i) {
    if (rest[i] != '%') {
      model.push_back(rest[i]);
      continue;
    }
    if (i + 2 >= slash || hexValue(rest[i + 1]) < 0 || hexValue(rest[i + 2]) < 0) return std::nullopt;
    model.push_back(char(hexValue(rest[i + 1]) * 16 + hexValue(rest[i + 2])));
    i += 2;
  }
  const Endpoint endpoint = action == "invoke"     ? Endpoint::BedrockInvoke
                            : action == "converse" ? Endpoint::BedrockConverse
                            : action == "converse-stream" ? Endpoint::BedrockConverseStream
                                                          : Endpoint::BedrockInvokeStream;
  Route route{endpoint, Wire::Anthropic, model};
  route.bedrock = true;
  return route;
}

}  // namespace

std::optional<Route> matchRoute(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (auto bedrock = bedrockRoute(path)) return bedrock;

  if (path.ends_with("/messages/count_tokens")) return Route{Endpoint::CountTokens, Wire::Anthropic, {}};
  if (path.ends_with("/messages")) return Route{Endpoint::Messages, Wire::Anthropic, {}};
  if (path.ends_with("/chat/completions")) return Route{Endpoint::ChatCompletions, Wire::OpenAiChat, {}};
  if (path.ends_with("/responses")) return Route{Endpoint::Responses, Wire::OpenAiResponses, {}};
  if (path.ends_with("/embeddings")) return Route{Endpoint::Embeddings, Wire::OpenAiChat, {}};
  if (path.ends_with("/images/generations")) return Route{Endpoint::ImageGenerations, Wire::OpenAiChat, {}};
  if (path.ends_with("/audio/speech")) return Route{Endpoint::AudioSpeech, Wire::OpenAiChat, {}};
  if (path.ends_with("/audio/transcriptions")) return Route{Endpoint::AudioTranscriptions, Wire::OpenAiChat, {}};
  if (path.ends_with("/audio/translations")) return Route{Endpoint::AudioTranslations, Wire::OpenAiChat, {}};
  if (path.ends_with("/moderations")) return Route{Endpoint::Moderations, Wire::OpenAiChat, {}};
  if (path.ends_with("/rerank")) return Route{Endpoint::Rerank, Wire::OpenAiChat, {}};

  // Gemini: the last "/models/" segment holds "{model}:{method}".
  const auto models = path.rfind("/models/");
  if (models == std::string_view::npos) return std::nullopt;
  const std::string_view tail = path.substr(models + 8);
  const auto colon = tail.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view model = tail.substr(0, colon);
  const std::string_view method = tail.substr(colon + 1);
  if (model.find('/') != std::string_view::npos) return std::nullopt;

  Route route{Endpoint::GenerateContent, Wire::Gemini, std::string(model)};
  route.vertex = path.substr(0, models).find("/publishers/") != std::string_view::npos;
  if (route.vertex && path.substr(0, models).ends_with("/publishers/anthropic")) {
    if (method != "rawPredict" && method != "streamRawPredict") return std::nullopt;
    route.endpoint = model == "count-tokens" && method == "rawPredict" ? Endpoint::CountTokens : Endpoint::Messages;
    route.wire = Wire::Anthropic;
    route.raw_stream = method == "streamRawPredict";
    return route;
  }
  if (method == "generateContent") return route;
  if (method == "streamGenerateContent") {
    route.endpoint = Endpoint::StreamGenerateContent;
    return route;
  }
  if (method == "countTokens") {
    route.endpoint = Endpoint::GeminiCountTokens;
    return route;
  }
  return std::nullopt;
}

bool isOperation(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::Embeddings:
    case Endpoint::ImageGenerations:
    case Endpoint::AudioSpeech:
    case Endpoint::AudioTranscriptions:
    case Endpoint::AudioTranslations:
    case Endpoint::Moderations:
    case Endpoint::Rerank: return true;
    default: return false;
  }
}

std::string_view wireName(Wire wire) {
  switch (wire) {
    case Wire::Anthropic: return "anthropic";
    case Wire::OpenAiChat: return "openai-chat";
    case Wire::OpenAiResponses: return "openai-responses";
    case Wire::Gemini: return "gemini";
  }
  return "unknown";
}

}  // namespace sluice::mock
