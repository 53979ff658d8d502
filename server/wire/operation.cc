#include "server/wire/operation.h"

#include <array>

namespace sluice::wire {

namespace {

struct Spec {
  Operation operation;
  std::string_view name;
  catalog::ModelKind kind;
};

constexpr std::array<Spec, 7> kSpecs = {{
    {Operation::Embeddings, "embeddings", catalog::ModelKind::Embedding},
    {Operation::ImageGenerations, "images/generations", catalog::ModelKind::Image},
    {Operation::Speech, "audio/speech", catalog::ModelKind::Audio},
    {Operation::Transcriptions, "audio/transcriptions", catalog::ModelKind::Audio},
    {Operation::Translations, "audio/translations", catalog::ModelKind::Audio},
    {Operation::Moderations, "moderations", catalog::ModelKind::Moderation},
    {Operation::Rerank, "rerank", catalog::ModelKind::Rerank},
}};

const Spec& specOf(Operation operation) {
  for (const Spec& spec : kSpecs) {
    if (spec.operation == operation) return spec;
  }
  return kSpecs[0];
}

}  // namespace

std::optional<Operation> operationForPath(std::string_view path) {
  if (path.starts_with("/v1/")) {
    path.remove_prefix(4);
  } else if (path.starts_with("/")) {
    path.remove_prefix(1);
  } else {
    return std::nullopt;
  }
  for (const Spec& spec : kSpecs) {
    if (spec.name == path) return spec.operation;
  }
  return std::nullopt;
}

std::string_view toString(Operation operation) { return specOf(operation).name; }

std::string_view upstreamPath(Operation operation) {
  switch (operation) {
    case Operation::Embeddings: return "/embeddings";
    case Operation::ImageGenerations: return "/images/generations";
    case Operation::Speech: return "/audio/speech";
    case Operation::Transcriptions: return "/audio/transcriptions";
    case Operation::Translations: return "/audio/translations";
    case Operation::Moderations: return "/moderations";
    case Operation::Rerank: return "/rerank";
  }
  return "/embeddings";
}

catalog::ModelKind kindFor(Operation operation) { return specOf(operation).kind; }

std::string_view servedAt(catalog::ModelKind kind) {
  switch (kind) {
    case catalog::ModelKind::Chat: return "/v1/messages, /v1/chat/completions and /v1/responses";
    case catalog::ModelKind::Embedding: return "/v1/embeddings";
    case catalog::ModelKind::Image: return "/v1/images/generations";
    case catalog::ModelKind::Audio: return "/v1/audio/speech, /v1/audio/transcriptions and /v1/audio/translations";
    case catalog::ModelKind::Moderation: return "/v1/moderations";
    case catalog::ModelKind::Rerank: return "/v1/rerank";
  }
  return "";
}

std::string kindMismatchMessage(std::string_view model_id, catalog::ModelKind kind, std::string_view path) {
  const std::string_view name = catalog::toString(kind);
  const bool vowel = std::string_view("aeiou").find(name.front()) != std::string_view::npos;
  return "model '" + std::string(model_id) + "' is " + (vowel ? "an " : "a ") + std::string(name) + " model, served on " + std::string(servedAt(kind)) + ", not on " +
         std::string(path);
}

bool isMultipart(Operation operation) {
  return operation == Operation::Transcriptions || operation == Operation::Translations;
}

}  // namespace sluice::wire
