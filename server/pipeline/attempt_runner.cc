#include "server/pipeline/attempt_runner.h"

#include <strings.h>

#include <cassert>

#include "server/cloud/bedrock_call.h"
#include "server/cloud/platform_call.h"
#include "server/dispatch/attempt_walk.h"
#include "server/dispatch/optional_field.h"
#include "server/pipeline/relay.h"
#include "server/pipeline/request_ledger.h"
#include "server/pipeline/upstream_call.h"
#include "server/log/json_log.h"
#include "server/wire/codec.h"
#include "server/wire/retry_after.h"

namespace sluice::pipeline {

using namespace http;  // NOTE: the front end's request, response and helpers, as before the move

namespace {

dispatch::TransportKind kindOf(upstream::TransportFailure failure) {
  switch (failure) {
    case upstream::TransportFailure::Connect: return dispatch::TransportKind::Connect;
    case upstream::TransportFailure::Timeout: return dispatch::TransportKind::Timeout;
    case upstream::TransportFailure::Reset: return dispatch::TransportKind::Reset;
    case upstream::TransportFailure::Tls: return dispatch::TransportKind::Tls;
    case upstream::TransportFailure::Protocol: return dispatch::TransportKind::Protocol;
  }
  return dispatch::TransportKind::Reset;
}

std::string resultOf(const dispatch::AttemptOutcome& outcome) {
  if (outcome.transport) return "transport:" + std::string(dispatch::toString(*outcome.transport));
  return "status_" + std::to_string(outcome.status.value_or(0));
}

std::string shortMessage(catalog::Wire wire, int status, const std::string& body) {
  return wire::decodeError(wire, status, body, "", std::chrono::system_clock::now()).message;
}

// Reads an error answer's body, at most kMaxErrorBody bytes; a longer one is cut and the
// connection closed rather than read on.
std::string readBounded(upstream::Response& answer) {
  std::string body;
  while (body.size() < kMaxErrorBody && answer.readSome(body)) {
  }
  if (body.size() >= kMaxErrorBody) {
    body.resize(kMaxErrorBody);
    answer.abort();
  }
  return body;
}

}  // namespace

AttemptRunner::AttemptRunner(upstream::Transport& transport, EndpointStates& states, RequestLedger& ledger,
                             upstream::Cancel& cancel, PersonalKeys personal_keys, dispatch::CallBudget* budget,
                             const cloud::AwsCredentialStore* aws)
    : transport_(transport), states_(states), ledger_(ledger), cancel_(cancel),
      personal_keys_(std::move(personal_keys)), budget_(budget), aws_(aws) {}

std::string AttemptRunner::errorDetail(catalog::Wire wire, const dispatch::AttemptOutcome& outcome,
                                       const std::string& error_body, const std::string& failure_text) const {
  if (outcome.transport) return failure_text.empty() ? std::string() : ": " + failure_text;
  if (outcome.status && *outcome.status >= 400) return ": " + shortMessage(wire, *outcome.status, error_body);
  return {};
}

AttemptResult AttemptRunner::run(AttemptCall call) {
  if (auto failed = bind(*call.attempt, call.ask_breaker)) return std::move(*failed);
  return send(std::move(call));
}

std::optional<Failed> AttemptRunner::bind(const dispatch::Attempt& attempt, bool ask_breaker) {
  bound_ = nullptr;
  personal_key_.reset();
  aws_keys_.reset();
  const catalog::Endpoint& endpoint = *attempt.endpoint;
  // The credential: a personal one is the member's own key, looked up now; never the caller's.
  const bool personal = attempt.credential && attempt.credential->kind == catalog::CredentialKind::Personal;
  std::string personal_why;
  bool personal_missing = false;
  if (personal && personal_keys_) {
    auto key = personal_keys_(*attempt.credential);
    if (key) {
      personal_key_ = std::move(*key);
    } else {
      personal_why = key.error().message;
      personal_missing = key.error().missing;
    }
  }
  if (auto why = dispatch::unboundReason(attempt, personal_key_.has_value())) {
    if (!personal_why.empty()) why = personal_why;
    ledger_.recordAttempt(attempt, 0, personal ? "skipped:personal_key_missing" : "skipped:credential_unconfigured",
                          endpoint.key + ": " + *why, 0);
    Failed failed{Failed::Stage::Unbound, *why, {}, {}};
    failed.personal_key_missing = personal_missing;
    return failed;
  }
  if (attempt.credential && attempt.credential->aws) {
    // AWS keys (static, or the chain's): a credential that cannot be had is this attempt's failure.
    auto keys = aws_ ? aws_->get(*attempt.credential, std::chrono::system_clock::now())
                     : std::expected<upstream::aws::Credentials, std::string>(std::unexpected("no AWS credential store"));
    if (!keys) {
      ledger_.recordAttempt(attempt, 0, "skipped:credential_unavailable", endpoint.key + ": " + keys.error(), 0);
      return Failed{Failed::Stage::Unbound, keys.error(), {}, {}};
    }
    aws_keys_ = std::move(*keys);
  }
  if (auto failed = bindCloud(attempt)) return failed;
  if (ask_breaker) {
    const auto admitted =
        states_.apply(endpoint, attempt.provider->breaker, dispatch::BreakerEvent::probe(), Clock::now());
    if (!admitted.admitted) {
      ledger_.recordAttempt(attempt, 0, "skipped:circuit_open", admitted.reason, 0);
      return Failed{Failed::Stage::CircuitOpen, admitted.reason, {}, {}};
    }
  }
  bound_ = &attempt;
  return std::nullopt;
}

// On a Vertex or Azure provider: the header that authorises the call (an api-key, or a token
// fetched now when none is fresh). A token that cannot be had fails the attempt over.
std::optional<Failed> AttemptRunner::bindCloud(const dispatch::Attempt& attempt) {
  cloud_header_.reset();
  const catalog::Platform platform = attempt.provider->platform;
  if ((platform != catalog::Platform::Vertex && platform != catalog::Platform::Azure) || !attempt.credential) {
    return std::nullopt;
  }
  std::expected<cloud::Header, std::string> auth = std::unexpected("no cloud credential store");
  if (attempt.credential->gcp || attempt.credential->azure) {
    if (cloud_auth_) auth = cloud_auth_->authorize(*attempt.credential, transport_);
  } else if (personal_key_ || attempt.credential->secret) {
    auth = cloud::Header{"api-key", personal_key_ ? *personal_key_ : *attempt.credential->secret};  // an Azure key
  } else {
    auth = std::unexpected("the credential has no key");
  }
  if (!auth) {
    ledger_.recordAttempt(attempt, 0, "skipped:credential_unavailable", attempt.endpoint->key + ": " + auth.error(), 0);
    return Failed{Failed::Stage::Unbound, auth.error(), {}, {}};
  }
  cloud_header_ = std::move(*auth);
  return std::nullopt;
}

bool AttemptRunner::retryWithNewToken(const dispatch::Attempt& attempt) {
  if (!cloud_auth_ || !attempt.credential || !cloud_header_ || !cloud_auth_->refused(*attempt.credential, *cloud_header_)) {
    return false;
  }
  auto fresh = cloud_auth_->authorize(*attempt.credential, transport_);
  if (!fresh) return false;
  cloud_header_ = std::move(*fresh);
  return true;
}

AttemptResult AttemptRunner::send(AttemptCall call) {
  assert(bound_ == call.attempt);
  if (cancel_.cancelled()) return ClientGone{};
  const dispatch::Attempt& attempt = *call.attempt;
  const catalog::Endpoint& endpoint = *attempt.endpoint;
  const std::optional<std::string> personal_key = personal_key_;
  const bool bedrock = attempt.provider->platform == catalog::Platform::Bedrock && call.path.empty();
  const bool cloud = cloud_header_ && call.path.empty();  // Vertex or Azure: readdressed, maybe reframed
  const bool vertex = attempt.provider->platform == catalog::Platform::Vertex;
  const bool vertex_count = cloud_header_ && vertex && call.path == "/v1/messages/count_tokens";
  const bool rewrites = bedrock || ((cloud || vertex_count) && vertex);
  int retries = 0;
  bool field_retried = !call.field_retry || call.single_try;
  bool token_retried = !cloud && !vertex_count;
  for (;;) {
    // The body moves into the provider's request and back once it is sent (the transport reads it
    // through a const reference): a retry or a refused optional field needs it again, and a copy
    // per attempt cost megabyte bodies a second pass over their pages on the event loop. Bedrock
    // rewrites the body it is given, so it gets a copy.
    upstream::Request request = buildUpstreamCall(attempt, call.client, call.client_wire,
                                                  rewrites ? std::string(call.body) : std::move(call.body), call.stream,
                                                  call.path, personal_key ? &*personal_key : nullptr, call.base_url,
                                                  call.content_type, call.accept, aws_keys_ ? &*aws_keys_ : nullptr);
    request.body_source = call.body_source;
    request.method = call.method;
    for (const auto& header : call.headers) request.headers.push_back(header);
    if (cloud) {
      cloud::toPlatformCall(request, *attempt.provider, endpoint, call.base_url.empty() ? endpoint.url : call.base_url,
                            attempt.deployment->upstream_model, call.stream, *cloud_header_);
    } else if (vertex_count) {
      cloud::toVertexCountTokensCall(request, endpoint.url, *attempt.provider, *cloud_header_);
    }
    if (std::string traceparent = ledger_.attemptTraceparent(); !traceparent.empty()) {
      // Ours names this attempt's span; a client's own (forward_headers) would skip the gateway.
      std::erase_if(request.headers, [](const auto& header) {
        return header.first.size() == 11 && ::strncasecmp(header.first.c_str(), "traceparent", 11) == 0;
      });
      request.headers.emplace_back("traceparent", std::move(traceparent));
    }
    if (budget_) budget_->take();  // the exchange checked one is left; a retry asked mayRetry()
    const auto sent_at = Clock::now();
    auto in_flight = states_.enter(endpoint.key);
    ++sent_;
    std::unique_ptr<upstream::Response> response;
    dispatch::AttemptOutcome outcome;
    std::string failure_text;
    std::string error_body;
    try {
      response = transport_.send(request, &cancel_);
      if (bedrock) {
        // Anthropic's answer shape (InvokeModel), or ConverseStream's events as SSE.
        response = cloud::bedrockAnswer(std::move(response), endpoint.wire == catalog::Wire::BedrockConverse);
      }
      if (response->status() >= 400) {
        error_body = readBounded(*response);
        if (cancel_.cancelled()) throw upstream::TransportError(upstream::TransportFailure::Reset, "cancelled");
      }
    } catch (const upstream::TransportError& failure) {
      if (cancel_.cancelled()) {
        ledger_.addUpstreamMs(ledger_.millisSince(sent_at));
        ledger_.recordAttempt(attempt, 0, "client_gone", "the client hung up while the provider had not answered",
                              ledger_.millisSince(sent_at));
        return ClientGone{};
      }
      response.reset();
      outcome = dispatch::AttemptOutcome::transportFailure(kindOf(failure.failure()));
      failure_text = failure.what();
    }
    if (!rewrites) call.body = std::move(request.body);  // Bedrock's was rewritten: call.body is still the client's
    if (response) {
      const int status = response->status();
      outcome = dispatch::AttemptOutcome::http(
          status, wire::parseRetryAfter(response->header("Retry-After"), std::chrono::system_clock::now()));
      if (status == 401 && !token_retried && (!budget_ || budget_->left()) && retryWithNewToken(attempt)) {
        // The cloud refused a token still in its lifetime (revoked, or the cloud forgot it): once,
        // with a new one.
        ledger_.addUpstreamMs(ledger_.millisSince(sent_at));
        ledger_.recordAttempt(attempt, status, "status_401",
                              "the cloud refused its access token; retried with a new one",
                              ledger_.millisSince(sent_at));
        token_retried = true;
        continue;
      }
      if (status >= 400 && !field_retried && (!budget_ || budget_->left())) {
        if (auto retry = dispatch::optionalFieldRetry(status, error_body, call.body)) {
          ledger_.addUpstreamMs(ledger_.millisSince(sent_at));
          ledger_.recordAttempt(attempt, status, retry->segment(), shortMessage(endpoint.wire, status, error_body),
                                ledger_.millisSince(sent_at));
          states_.apply(endpoint, attempt.provider->breaker, dispatch::BreakerEvent::success(), Clock::now());
          log::info("retrying without an optional field the provider refused",
                    {{"request_id", ledger_.requestId()}, {"endpoint", endpoint.key}, {"field", retry->field}});
          field_segments_.push_back(retry->segment());
          call.body = std::move(retry->body);
          field_retried = true;
          continue;
        }
      }
    }
    dispatch::Classification verdict = dispatch::classifyAttempt(outcome, retries, attempt.provider->retry);
    if (call.single_try && response) verdict.verdict = dispatch::AttemptVerdict::Final;
    if (!call.retry_same && verdict.verdict == dispatch::AttemptVerdict::RetrySame) {
      verdict.verdict = dispatch::AttemptVerdict::NextDeployment;
    }
    if (verdict.verdict == dispatch::AttemptVerdict::RetrySame && budget_ && !budget_->mayRetry(verdict.delay)) {
      // gateway.limits: this request has spent its calls or its retry time; the next deployment
      // may still be asked if a call is left.
      verdict.verdict = dispatch::AttemptVerdict::NextDeployment;
    }
    if (auto event = dispatch::breakerEventFor(outcome)) states_.apply(endpoint, attempt.provider->breaker, *event, Clock::now());
    switch (verdict.verdict) {
      case dispatch::AttemptVerdict::Success:
      case dispatch::AttemptVerdict::Final:
        return Answer{std::move(response), std::move(error_body), outcome, sent_at, std::move(in_flight)};
      case dispatch::AttemptVerdict::RetrySame: {
        ledger_.addUpstreamMs(ledger_.millisSince(sent_at));
        ledger_.recordAttempt(attempt, outcome.status.value_or(0), resultOf(outcome),
                              verdict.reason + errorDetail(endpoint.wire, outcome, error_body, failure_text),
                              ledger_.millisSince(sent_at));
        response.reset();
        log::warn("upstream busy, retrying the same deployment",
                  {{"request_id", ledger_.requestId()}, {"endpoint", endpoint.key}, {"reason", verdict.reason}});
        if (!cancel_.waitFor(verdict.delay)) return ClientGone{};
        ++retries;
        continue;
      }
      case dispatch::AttemptVerdict::NextDeployment: {
        ledger_.addUpstreamMs(ledger_.millisSince(sent_at));
        ledger_.recordAttempt(attempt, outcome.status.value_or(0), resultOf(outcome),
                              errorDetail(endpoint.wire, outcome, error_body, failure_text),
                              ledger_.millisSince(sent_at));
        Failed failed{Failed::Stage::Sent, resultOf(outcome), outcome, {}};
        if (outcome.status) {
          failed.error = wire::decodeError(endpoint.wire, *outcome.status, error_body,
                                           response ? response->header("Retry-After") : std::string(),
                                           std::chrono::system_clock::now());
        } else {
          failed.error = wire::ApiError::make(outcome.transport == dispatch::TransportKind::Timeout ? 504 : 502,
                                              wire::error_keys::kUpstreamUnreachable, endpoint.key + ": " + failure_text);
        }
        log::warn("upstream failed, trying the next deployment",
                  {{"request_id", ledger_.requestId()}, {"endpoint", endpoint.key}, {"result", resultOf(outcome)}});
        return failed;
      }
    }
  }
}

void AttemptRunner::relayed(const dispatch::Attempt& attempt, const Answer& answer, const RelayResult& result) {
  const int64_t ms = ledger_.millisSince(answer.sent_at);
  ledger_.addUpstreamMs(ms);
  const int status = answer.response->status();
  ledger_.recordAttempt(attempt, status,
                        result.client_gone      ? "client_gone"
                        : status >= 400         ? "status_" + std::to_string(status)
                        : result.upstream_broke ? "stream_broken"
                                                : "ok",
                        result.error_message, ms);
}

Failed AttemptRunner::relayFailed(const dispatch::Attempt& attempt, const Answer& answer,
                                  const upstream::TransportError& failure) {
  const int64_t ms = ledger_.millisSince(answer.sent_at);
  ledger_.addUpstreamMs(ms);
  ledger_.recordAttempt(attempt, answer.response->status(),
                        "transport:" + std::string(upstream::toString(failure.failure())),
                        std::string("before the first byte: ") + failure.what(), ms);
  states_.apply(*attempt.endpoint, attempt.provider->breaker, dispatch::BreakerEvent::failure(), Clock::now());
  const auto outcome = dispatch::AttemptOutcome::transportFailure(dispatch::TransportKind::Reset);
  return Failed{Failed::Stage::Sent, "transport:reset", outcome,
                wire::ApiError::make(502, wire::error_keys::kUpstreamUnreachable, attempt.endpoint->key + ": " + failure.what())};
}

}  // namespace sluice::pipeline
