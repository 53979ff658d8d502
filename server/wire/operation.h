#pragma once
// The /v1 endpoints that are not chat formats, each served by the catalog's models of one kind and
// relayed to the same path under an OpenAI-style deployment's base URL. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"

namespace sluice::wire {

enum class Operation { Embeddings, ImageGenerations, Speech, Transcriptions, Translations, Moderations, Rerank };

// "/v1/embeddings" and "/embeddings" -> Embeddings, and so on for each operation; nullopt otherwise.
std::optional<Operation> operationForPath(std::string_view path);

// "embeddings", "images/generations", "audio/speech", "audio/transcriptions", "audio/translations",
// "moderations", "rerank": the path under /v1, as route_match (`endpoint:<name>`) and logs name it.
std::string_view toString(Operation operation);

// What the provider is called on, appended to the endpoint's base URL: "/embeddings", ….
std::string_view upstreamPath(Operation operation);

// The model kind the operation serves: embedding, image, audio (speech, transcriptions and
// translations), moderation, rerank.
catalog::ModelKind kindFor(Operation operation);

// Where a model of `kind` is served, for messages: "/v1/messages, /v1/chat/completions and
// /v1/responses" for chat, "/v1/embeddings" for embedding, ….
std::string_view servedAt(catalog::ModelKind kind);

// The refusal text for a model of `kind` asked for on `path`, naming where it is served.
std::string kindMismatchMessage(std::string_view model_id, catalog::ModelKind kind, std::string_view path);

// True for the uploads (transcriptions, translations): multipart/form-data bodies, streamed.
bool isMultipart(Operation operation);

}  // namespace sluice::wire
