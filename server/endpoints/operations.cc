#include "server/endpoints/operations.h"

#include <array>

#include "server/dispatch/pricing.h"
#include "server/http/gateway.h"
#include "server/pipeline/exchange.h"
#include "server/protection/json_texts.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/multipart.h"

namespace sluice::endpoints {

namespace {

using catalog::Wire;

// The JSON members read before planning: the model (rewritten per deployment) and the text a
// speech request is counted by.
constexpr std::array<std::string_view, 2> kJsonKeys = {"model", "input"};

// Members whose values are options, not text a person wrote: never masked.
constexpr std::array<std::string_view, 11> kOptionKeys = {
    "model", "encoding_format", "response_format", "voice", "size", "quality", "style", "background",
    "output_format", "moderation", "user"};

// Unicode code points in UTF-8 text (continuation bytes not counted); invalid bytes count one each.
int64_t codePoints(std::string_view text) {
  int64_t count = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

}  // namespace

std::string Operations::endpointSegment() const { return "endpoint:" + std::string(wire::toString(operation_)); }

std::string_view Operations::operation() const {
  return operation_ == wire::Operation::Embeddings ? "embeddings" : wire::toString(operation_);
}

std::expected<pipeline::Inspected, wire::ApiError> Operations::read(pipeline::Exchange& exchange) {
  const std::string accept = exchange.request().header("Accept");
  accept_ = !accept.empty() && accept.size() <= 256           ? accept
            : operation_ == wire::Operation::Speech           ? "*/*"
                                                              : "application/json";
  auto model = wire::isMultipart(operation_) ? readUpload(exchange) : readJson(exchange);
  if (!model) {
    exchange.response().setKeepAlive(false);
    return std::unexpected(model.error());
  }
  pipeline::Inspected facts;
  facts.requested_model = std::move(*model);
  if (upload_) {
    const std::string length = exchange.request().header("Content-Length");
    facts.body_bytes = length.empty() ? 0 : static_cast<size_t>(std::strtoull(length.c_str(), nullptr, 10));
  } else {
    facts.body_bytes = raw_.size();
  }
  return facts;
}

// A JSON body: read whole (bounded), its model and (speech) input found by scanning.
std::expected<std::string, wire::ApiError> Operations::readJson(pipeline::Exchange& exchange) {
  auto raw = exchange.readWholeBody();
  if (!raw) return std::unexpected(raw.error());
  raw_ = std::move(*raw);
  scan_ = wire::scanTopLevelMembers(raw_, kJsonKeys);
  std::optional<wire::Json> parsed;
  if (!scan_.walked) {
    auto whole = wire::parseRequestObject(raw_);
    if (!whole) return std::unexpected(whole.error());
    parsed = std::move(*whole);
    scan_.repeated = wire::repeatedTopLevelKey(raw_, kJsonKeys);
  }
  // Authorised and priced as one model, served as another by a provider keeping the other copy.
  if (scan_.repeated) {
    const std::string key(kJsonKeys[*scan_.repeated]);
    return std::unexpected(wire::ApiError::invalidRequest("request body names '" + key + "' more than once", key));
  }
  const auto member = [&](size_t index) -> std::optional<wire::Json> {
    if (parsed) {
      const auto found = parsed->find(kJsonKeys[index]);
      if (found == parsed->end()) return std::nullopt;
      return *found;
    }
    if (!scan_.values[index]) return std::nullopt;
    return wire::parseJsonText(*scan_.values[index]);
  };
  const auto model = member(0);
  if (!model || (model->is_string() && model->get<std::string>().empty())) {
    return std::unexpected(wire::ApiError::invalidRequest("'model' is required", "model"));
  }
  if (!model->is_string()) return std::unexpected(wire::ApiError::invalidRequest("'model' must be a string", "model"));
  if (operation_ == wire::Operation::Speech) {
    if (const auto input = member(1); input && input->is_string()) input_characters_ = codePoints(input->get<std::string>());
  }
  return model->get<std::string>();
}

// A multipart upload: read as far as its model field (upload.h).
std::expected<std::string, wire::ApiError> Operations::readUpload(pipeline::Exchange& exchange) {
  const std::string content_type = exchange.request().header("Content-Type");
  auto boundary = wire::multipartBoundary(content_type);
  if (!boundary) {
    return std::unexpected(wire::ApiError::make(
        415, wire::error_keys::kUnsupportedMediaType,
        "/v1/" + std::string(wire::toString(operation_)) + " takes a multipart/form-data body with a boundary"));
  }
  content_type_ = content_type;
  exchange.bodyLease() = exchange.gateway().bodyBudget().lease();
  upload_.emplace(exchange.request(), std::move(*boundary), exchange.gateway().options().max_body_bytes,
                  exchange.bodyLease());
  if (auto head = upload_->readHead(); !head) return std::unexpected(head.error());
  return upload_->model();
}

pipeline::MaskOutcome Operations::maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) {
  if (upload_) {
    return std::unexpected(
        "a multipart upload streams to the provider as it arrives, so its fields cannot be scanned and masked first");
  }
  wire::Json document = wire::parseJsonText(raw_);
  if (!document.is_object()) return std::unexpected("the request body is not a JSON object, so it cannot be masked");
  auto result = protection::maskJsonTexts(document, detector, kOptionKeys, limits);
  if (!result) return std::unexpected("masking failed: " + result.error().reason);
  masked_ = wire::dumpJsonText(document);
  masked_scan_ = wire::scanTopLevelMembers(*masked_, kJsonKeys);
  return std::move(*result);
}

std::expected<std::string, wire::ApiError> Operations::withModel(const std::string& raw, const wire::MembersScan& scan,
                                                                 const std::string& upstream_model) const {
  if (scan.walked) {
    if (scan.values[0] && wire::parseJsonText(*scan.values[0]) == wire::Json(upstream_model)) return raw;
    const wire::MemberEdit edits[] = {{"model", wire::Json(upstream_model).dump()}};
    if (auto edited = wire::editTopLevelMembers(raw, scan, kJsonKeys, edits)) return std::move(*edited);
  }
  wire::Json body = wire::parseJsonText(raw);
  if (!body.is_object()) return std::unexpected(wire::ApiError::invalidJson());
  body["model"] = upstream_model;
  return wire::dumpJsonText(body);
}

std::expected<std::string, wire::ApiError> Operations::bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan&,
                                                               bool masked) {
  const std::string& upstream_model = attempt.deployment->upstream_model;
  if (upload_) return upload_->beginAttempt(upstream_model);
  return masked ? withModel(*masked_, masked_scan_, upstream_model) : withModel(raw_, scan_, upstream_model);
}

std::string_view Operations::lane(const dispatch::Attempt&, bool masked) const {
  return masked ? metrics::lane::kMasked : metrics::lane::kPassthrough;
}

void Operations::shape(pipeline::AttemptCall& call) {
  call.path = std::string(wire::upstreamPath(operation_));
  call.field_retry = false;
  call.content_type = content_type_;
  call.accept = accept_;
  if (upload_ && !upload_->whole()) {
    call.body_source = &*upload_;
    call.single_try = true;  // the upload can be sent once: whatever answers is the answer
  }
}

pipeline::RelayResult Operations::relay(pipeline::Exchange& exchange, const dispatch::Plan& plan, const dispatch::Attempt&,
                                    pipeline::Answer& answer, bool, pipeline::RelayOptions options) {
  upstream::Response& provider = *answer.response;
  if (provider.status() >= 400) {
    wire::ResponseContext context;
    context.model = plan.requested_model;
    context.request_id = exchange.request().id();
    return pipeline::relayErrorBody(provider, answer.error_body, exchange.response(), Wire::OpenAIChat, Wire::OpenAIChat,
                                context);
  }
  options.restore = nullptr;  // the answers carry no text of the request to restore
  meter_ = wire::AnswerMeter{};
  return pipeline::relayAsItComes(provider, exchange.response(), options, &meter_);
}

dispatch::Charge Operations::charge(pipeline::Exchange& exchange, const dispatch::Attempt& attempt,
                                    pipeline::RelayResult& relayed) {
  if (relayed.status >= 400 || relayed.client_gone) return {};
  const wire::AnswerMeasure measure = meter_.measure();
  if (measure.usage) {
    relayed.usage = *measure.usage;
    relayed.usage_reported = true;
  }
  const dispatch::Units units = dispatch::unitsFor(operation_, measure, input_characters_);
  exchange.ledger().noteUnits(units);
  return dispatch::chargeFor(attempt.deployment->pricing, relayed.usage, units);
}

bool Operations::closesConnection(bool refused) const {
  if (!upload_) return false;
  return refused || !upload_->whole();  // the provider may not have read all of it
}

}  // namespace sluice::endpoints
