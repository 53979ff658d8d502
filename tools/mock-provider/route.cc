#include "tools/mock-provider/route.h"

namespace sluice::mock {

std::optional<Route> matchRoute(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);

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
