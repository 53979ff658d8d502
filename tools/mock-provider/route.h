#pragma once
// Maps a request path to the provider wire and endpoint the mock answers it as.
// Pure. A path prefix before the provider's own path is tolerated (`/openai/v1/chat/completions`,
// `/anthropic/v1/messages`, a Vertex `/v1/projects/p/locations/l/publishers/google/models/m:generateContent`).

#include <optional>
#include <string>
#include <string_view>

namespace sluice::mock {

enum class Wire { Anthropic, OpenAiChat, OpenAiResponses, Gemini };

enum class Endpoint {
  Messages,               // Anthropic POST …/messages
  CountTokens,            // Anthropic POST …/messages/count_tokens
  ChatCompletions,        // OpenAI POST …/chat/completions
  Responses,              // OpenAI POST …/responses
  GenerateContent,        // Gemini POST …/models/{model}:generateContent
  StreamGenerateContent,  // Gemini POST …/models/{model}:streamGenerateContent
  GeminiCountTokens,      // Gemini POST …/models/{model}:countTokens
  // OpenAI's other endpoints (the OpenAI wire's credentials), answered by operations_render.h:
  Embeddings,             // POST …/embeddings
  ImageGenerations,       // POST …/images/generations
  AudioSpeech,            // POST …/audio/speech
  AudioTranscriptions,    // POST …/audio/transcriptions (multipart/form-data)
  AudioTranslations,      // POST …/audio/translations (multipart/form-data)
  Moderations,            // POST …/moderations
  Rerank,                 // POST …/rerank
  // AWS Bedrock's InvokeModel (wire Anthropic, answered by bedrock_render.h):
  BedrockInvoke,          // POST /model/{id}/invoke
  BedrockInvokeStream,    // POST /model/{id}/invoke-with-response-stream (event stream)
  // AWS Bedrock's Converse (answered by converse_render.h):
  BedrockConverse,        // POST /model/{id}/converse
  BedrockConverseStream,  // POST /model/{id}/converse-stream (event stream)
};

// One of the OpenAI endpoints besides chat and responses (embeddings … rerank).
bool isOperation(Endpoint endpoint);

struct Route {
  Endpoint endpoint;
  Wire wire;
  std::string model;    // Gemini only: the model named in the path
  // A Vertex AI path: Gemini `…/publishers/google/models/{model}:…`, or Claude
  // `…/publishers/anthropic/models/{model}:rawPredict|:streamRawPredict` (Endpoint::Messages, `model` set).
  bool vertex = false;
  bool raw_stream = false;  // Vertex Claude's :streamRawPredict
  bool bedrock = false; // Bedrock InvokeModel or Converse: `model` is the model id, percent-decoded
};

// Returns the route for `path` (no query string), or nullopt when no provider endpoint matches.
std::optional<Route> matchRoute(std::string_view path);

// "anthropic", "openai-chat", "openai-responses", "gemini": the names used in stats and logs.
std::string_view wireName(Wire wire);

}  // namespace sluice::mock
