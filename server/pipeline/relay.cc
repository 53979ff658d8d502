#include "server/pipeline/relay.h"

#include <ostream>

#include "server/http/respond.h"
#include "server/log/json_log.h"
#include "server/protection/restorer.h"
#include "server/wire/openai_chat/unasked_usage_filter.h"
#include "server/wire/openai_responses/response_id.h"

namespace sluice::pipeline {

using namespace http;  // NOTE: the front end's request, response and helpers, as before the move

namespace {

// A whole answer sent at once: its first byte went now.
RelayResult sentWhole(RelayResult& result) {
  result.first_byte_at = std::chrono::steady_clock::now();
  return result;
}

using SteadyClock = std::chrono::steady_clock;

bool isEventStream(const upstream::Response& answer) {
  return answer.header("Content-Type").find("text/event-stream") != std::string::npos;
}

bool cancelled(const RelayOptions& options) { return options.cancel && options.cancel->cancelled(); }

void copyProviderHeaders(const upstream::Response& answer, Poco::Net::HTTPServerResponse& response) {
  for (const char* name : {"retry-after", "retry-after-ms"}) {
    const std::string value = answer.header(name);
    if (!value.empty()) response.set(name, value);
  }
  for (const char* name : {"request-id", "x-request-id"}) {
    const std::string value = answer.header(name);
    if (!value.empty()) response.set("x-sluice-upstream-request-id", value);
  }
}

void beginStream(Poco::Net::HTTPServerResponse& response, int status) {
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  response.setContentType("text/event-stream; charset=utf-8");
  response.set("Cache-Control", "no-cache");
  response.set("X-Accel-Buffering", "no");
  response.setChunkedTransferEncoding(true);
}

// Folds the usage an event carries into the running total (MessageDelta usage is cumulative and
// authoritative; MessageStart gives the input side early).
void takeUsage(const wire::StreamEvent& event, RelayResult& result) {
  if (!event.usage_reported) return;
  if (event.type != wire::StreamEvent::Type::MessageStart && event.type != wire::StreamEvent::Type::MessageDelta) return;
  const wire::Usage& usage = event.usage;
  if (usage.input_tokens > 0 || event.type == wire::StreamEvent::Type::MessageStart) {
    result.usage.input_tokens = std::max(result.usage.input_tokens, usage.input_tokens);
    result.usage.cache_read_tokens = std::max(result.usage.cache_read_tokens, usage.cache_read_tokens);
    result.usage.cache_write_tokens = std::max(result.usage.cache_write_tokens, usage.cache_write_tokens);
  }
  result.usage.output_tokens = std::max(result.usage.output_tokens, usage.output_tokens);
  result.usage.reasoning_tokens = std::max(result.usage.reasoning_tokens, usage.reasoning_tokens);
  result.usage_reported = true;
}

void takeError(const wire::StreamEvent& event, RelayResult& result) {
  if (event.type != wire::StreamEvent::Type::Error) return;
  result.upstream_broke = true;
  result.error_key = event.error.key.empty() ? std::string(wire::error_keys::kUpstreamStreamError) : event.error.key;
  result.error_message = event.error.message;
}

wire::StreamEvent brokenStream(const std::string& why) {
  wire::StreamEvent event;
  event.type = wire::StreamEvent::Type::Error;
  event.error = wire::ApiError::make(502, wire::error_keys::kUpstreamStreamBroken, "the provider's stream broke: " + why);
  return event;
}

// The client's side of a stream: the head goes out with the first bytes; every write is flushed.
class ClientStream {
 public:
  ClientStream(Poco::Net::HTTPServerResponse& response, RelayResult& result) : response_(response), result_(result) {}

  // False when the client is gone.
  bool deliver(const std::string& bytes) {
    if (bytes.empty()) return true;
    if (!out_) {
      beginStream(response_, result_.status);
      out_ = &response_.send();
    }
    out_->write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out_->flush();
    if (!out_->good()) return false;
    if (!result_.first_byte_at) result_.first_byte_at = SteadyClock::now();
    return true;
  }

  // A stream that carried no bytes at all still owes the client a response.
  void close() {
    if (!out_) {
      beginStream(response_, result_.status);
      response_.send().flush();
    }
  }

 private:
  Poco::Net::HTTPServerResponse& response_;
  RelayResult& result_;
  std::ostream* out_ = nullptr;
};

// Reads the first bytes of a streamed answer before anything is sent to the client. Throws
// TransportError (nothing sent) when the provider fails first. False at an empty body.
bool firstBytes(upstream::Response& answer, std::string& chunk) { return answer.readSome(chunk); }

// Reads a streamed answer's first bytes into `chunk` (`more`: the body goes on) and passes the
// provider's headers on. False when the client left meanwhile (result.client_gone is then set).
bool startStream(upstream::Response& answer, Poco::Net::HTTPServerResponse& response, const RelayOptions& options,
                 RelayResult& result, std::string& chunk, bool& more) {
  more = firstBytes(answer, chunk);
  if (cancelled(options)) {
    result.client_gone = true;
    return false;
  }
  copyProviderHeaders(answer, response);
  return true;
}

}  // namespace

// OpenAI-style clients key their retry logic on code "rate_limit_exceeded" (429) and
// "server_is_overloaded" (503), whatever the provider called it. The audit keeps the provider's key.
wire::ApiError clientFacing(wire::ApiError error, catalog::Wire client_wire) {
  if (client_wire == catalog::Wire::Anthropic || error.key == "insufficient_quota") return error;
  if (error.status == 429) error.key = wire::error_keys::kRateLimitExceeded;
  if (error.status == 503 || error.status == 529) error.key = wire::error_keys::kServerIsOverloaded;
  return error;
}

RelayResult relayErrorBody(const upstream::Response& answer, const std::string& body,
                           Poco::Net::HTTPServerResponse& response, catalog::Wire provider_wire,
                           catalog::Wire client_wire, const wire::ResponseContext& context) {
  RelayResult result;
  const wire::ApiError error = wire::decodeError(provider_wire, answer.status(), body, answer.header("Retry-After"),
                                                 std::chrono::system_clock::now());
  result.error_key = error.key.empty() ? "upstream_error" : error.key;
  result.error_message = error.message;
  copyProviderHeaders(answer, response);
  if (provider_wire == client_wire) {
    const std::string content_type = answer.header("Content-Type");
    result.status = answer.status();
    sendBody(response, result.status, content_type.empty() ? "application/json" : content_type, body);
  } else {
    sendError(response, client_wire, clientFacing(error, client_wire), context.request_id);
    result.status = wire::clientStatusFor(client_wire, error.status);
  }
  result.first_byte_at = SteadyClock::now();
  return result;
}

RelayResult relayPassthrough(upstream::Response& answer, Poco::Net::HTTPServerResponse& response, catalog::Wire wire,
                             const wire::ResponseContext& context, const RelayOptions& options) {
  RelayResult result;
  result.status = answer.status();
  if (!isEventStream(answer)) {
    const std::string content_type = answer.header("Content-Type");
    std::string body = answer.readAll();
    if (cancelled(options)) {
      result.client_gone = true;
      return result;
    }
    if (result.status >= 400) return relayErrorBody(answer, body, response, wire, wire, context);
    if (options.response_id) {
      if (auto shown = wire::openai_responses::withResponseId(body, *options.response_id)) body = std::move(*shown);
    }
    // The bytes go out unchanged (but for the id above): only the usage is read, from its own
    // member when it can be.
    if (const auto reading = wire::scanResponseUsage(wire, body)) {
      result.usage = reading->usage;
      result.usage_reported = reading->reported;
    } else if (auto decoded = wire::decodeResponse(wire, body)) {
      result.usage = decoded->usage;
      result.usage_reported = decoded->usage_reported;
    }
    copyProviderHeaders(answer, response);
    sendBody(response, result.status, content_type.empty() ? "application/json" : content_type, body);
    return sentWhole(result);
  }
  std::string chunk;
  bool more = false;
  if (!startStream(answer, response, options, result, chunk, more)) return result;
  ClientStream client(response, result);
  auto tap = wire::makeStreamDecoder(wire);
  std::optional<wire::SseEventFilter> filter;
  if (options.hide_unasked_usage) filter.emplace(wire::openai_chat::UnaskedUsageFilter());
  if (options.response_id) filter.emplace(wire::openai_responses::ResponseIdFilter(*options.response_id));
  auto gone = [&] {
    answer.abort();  // closing the upstream socket is what stops generation and billing
    result.client_gone = true;
    return result;
  };
  try {
    while (more) {
      for (const auto& event : tap->feed(chunk)) {
        takeUsage(event, result);
        takeError(event, result);
      }
      if (!client.deliver(filter ? filter->feed(chunk) : chunk)) return gone();
      chunk.clear();
      more = answer.readSome(chunk);
    }
    if (cancelled(options)) return gone();
    if (filter && !client.deliver(filter->finish())) return gone();
    for (const auto& event : tap->finish()) {
      takeUsage(event, result);
      if (event.type == wire::StreamEvent::Type::Error) {
        takeError(event, result);
        // The provider's stream ended without its terminal event: end the client's cleanly.
        auto encoder = wire::makeStreamEncoder(wire, context);
        if (encoder && !client.deliver(encoder->encode(event))) return gone();
      }
    }
    client.close();
  } catch (const upstream::TransportError& failure) {
    if (cancelled(options)) return gone();
    result.upstream_broke = true;
    result.error_key = wire::error_keys::kUpstreamStreamBroken;
    result.error_message = failure.what();
    if (auto encoder = wire::makeStreamEncoder(wire, context)) {
      if (!client.deliver(encoder->encode(brokenStream(failure.what())))) result.client_gone = true;
    }
  }
  return result;
}

RelayResult relayTranslated(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                            catalog::Wire provider_wire, catalog::Wire client_wire,
                            const wire::ResponseContext& context, const RelayOptions& options) {
  RelayResult result;
  result.status = answer.status();
  if (!isEventStream(answer)) {
    const std::string body = answer.readAll();
    if (cancelled(options)) {
      result.client_gone = true;
      return result;
    }
    if (result.status >= 400) return relayErrorBody(answer, body, response, provider_wire, client_wire, context);
    copyProviderHeaders(answer, response);
    auto decoded = wire::decodeResponse(provider_wire, body);
    if (!decoded) {
      sendError(response, client_wire, decoded.error(), context.request_id);
      result.status = decoded.error().status;
      result.error_key = decoded.error().key;
      result.error_message = decoded.error().message;
      result.upstream_broke = true;
      return result;
    }
    result.usage = decoded->usage;
    result.usage_reported = decoded->usage_reported;
    if (options.restore) protection::restoreResponse(*decoded, *options.restore);
    sendJson(response, result.status, wire::encodeResponse(client_wire, *decoded, context));
    return sentWhole(result);
  }
  std::string chunk;
  bool more = false;
  if (!startStream(answer, response, options, result, chunk, more)) return result;
  ClientStream client(response, result);
  auto decoder = wire::makeStreamDecoder(provider_wire);
  auto encoder = wire::makeStreamEncoder(client_wire, context);
  // Between the decoder and the encoder: holds back at most a placeholder's possible prefix.
  std::optional<protection::StreamRestorer> restorer;
  if (options.restore) restorer.emplace(*options.restore);
  std::vector<wire::StreamEvent> restored;
  auto forward = [&](std::vector<wire::StreamEvent> events) {
    if (restorer) {
      restored.clear();
      for (auto& event : events) restorer->feed(std::move(event), restored);
      events.swap(restored);
    }
    std::string bytes;
    for (const auto& event : events) {
      takeUsage(event, result);
      takeError(event, result);
      bytes += encoder->encode(event);
    }
    return client.deliver(bytes);
  };
  auto gone = [&] {
    answer.abort();
    result.client_gone = true;
    return result;
  };
  try {
    while (more) {
      if (!forward(decoder->feed(chunk))) return gone();
      chunk.clear();
      more = answer.readSome(chunk);
    }
    if (cancelled(options)) return gone();
    if (!forward(decoder->finish()) || !client.deliver(encoder->finish())) return gone();
    client.close();
  } catch (const upstream::TransportError& failure) {
    if (cancelled(options)) return gone();
    answer.abort();
    if (!forward({brokenStream(failure.what())}) || !client.deliver(encoder->finish())) result.client_gone = true;
  }
  return result;
}

RelayResult relayAsItComes(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                           const RelayOptions& options, wire::AnswerMeter* meter) {
  RelayResult result;
  result.status = answer.status();
  std::string chunk;
  bool more = firstBytes(answer, chunk);  // throws with nothing sent: the caller may fail over
  if (cancelled(options)) {
    answer.abort();
    result.client_gone = true;
    return result;
  }
  const std::string content_type = answer.header("Content-Type");
  if (meter && content_type.find("json") == std::string::npos) meter = nullptr;
  copyProviderHeaders(answer, response);
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(result.status));
  response.setContentType(content_type.empty() ? "application/octet-stream" : content_type);
  const std::string length = answer.header("Content-Length");
  if (!length.empty() && length.size() <= 18 &&
      length.find_first_not_of("0123456789") == std::string::npos) {
    response.setContentLength64(static_cast<Poco::Int64>(std::stoll(length)));
  } else {
    response.setChunkedTransferEncoding(true);
  }
  std::ostream& out = response.send();
  const auto gone = [&] {
    answer.abort();  // closing the upstream socket stops the provider's work
    result.client_gone = true;
    return result;
  };
  try {
    while (more || !chunk.empty()) {
      if (!chunk.empty()) {
        if (meter) meter->feed(chunk);
        out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        out.flush();
        if (!out.good()) return gone();
        if (!result.first_byte_at) result.first_byte_at = SteadyClock::now();
        chunk.clear();
      }
      if (!more) break;
      more = answer.readSome(chunk);
    }
    if (!result.first_byte_at) {
      out.flush();  // an empty body still owes the client its head
      result.first_byte_at = SteadyClock::now();
    }
  } catch (const upstream::TransportError& failure) {
    if (cancelled(options)) return gone();
    result.upstream_broke = true;
    result.error_key = wire::error_keys::kUpstreamStreamBroken;
    result.error_message = failure.what();
  }
  return result;
}

}  // namespace sluice::pipeline
