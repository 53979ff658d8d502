#include "server/http/relay.h"

#include <ostream>

#include "server/http/respond.h"
#include "server/log/json_log.h"

namespace sluice::http {

namespace {

bool isEventStream(const upstream::Response& answer) {
  return answer.header("Content-Type").find("text/event-stream") != std::string::npos;
}

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
  result.error_key = event.error.key.empty() ? "upstream_stream_error" : event.error.key;
  result.error_message = event.error.message;
}

// Writes and flushes; false when the client is gone.
bool deliver(std::ostream& out, const std::string& bytes) {
  if (bytes.empty()) return true;
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  return out.good();
}

// The provider's error as a client of another wire expects it: OpenAI-style clients key their
// retry logic on code "rate_limit_exceeded" (429) and "server_is_overloaded" (503), whatever the
// provider called it. The audit keeps the provider's own key.
wire::ApiError clientFacing(wire::ApiError error, catalog::Wire client_wire) {
  if (client_wire == catalog::Wire::Anthropic || error.key == "insufficient_quota") return error;
  if (error.status == 429) error.key = "rate_limit_exceeded";
  if (error.status == 503 || error.status == 529) error.key = "server_is_overloaded";
  return error;
}

RelayResult relayError(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                       catalog::Wire provider_wire, catalog::Wire client_wire, const wire::ResponseContext& context) {
  RelayResult result;
  const std::string body = answer.readAll();
  wire::ApiError error = wire::decodeError(provider_wire, answer.status(), body, answer.header("Retry-After"));
  copyProviderHeaders(answer, response);
  sendError(response, client_wire, clientFacing(error, client_wire), context.request_id);
  result.status = wire::clientStatusFor(client_wire, error.status);
  result.error_key = error.key.empty() ? "upstream_error" : error.key;
  result.error_message = error.message;
  return result;
}

}  // namespace

RelayResult relayPassthrough(upstream::Response& answer, Poco::Net::HTTPServerResponse& response, catalog::Wire wire,
                             const wire::ResponseContext& context) {
  RelayResult result;
  result.status = answer.status();
  copyProviderHeaders(answer, response);
  const std::string content_type = answer.header("Content-Type");
  if (!isEventStream(answer)) {
    const std::string body = answer.readAll();
    if (result.status >= 400) {
      const auto error = wire::decodeError(wire, result.status, body, answer.header("Retry-After"));
      result.error_key = error.key.empty() ? "upstream_error" : error.key;
      result.error_message = error.message;
    } else if (auto decoded = wire::decodeResponse(wire, body)) {
      result.usage = decoded->usage;
      result.usage_reported = decoded->usage_reported;
    }
    sendBody(response, result.status, content_type.empty() ? "application/json" : content_type, body);
    return result;
  }
  beginStream(response, result.status);
  std::ostream& out = response.send();
  auto tap = wire::makeStreamDecoder(wire);
  std::string chunk;
  try {
    while (answer.readSome(chunk)) {
      for (const auto& event : tap->feed(chunk)) {
        takeUsage(event, result);
        takeError(event, result);
      }
      if (!deliver(out, chunk)) {
        answer.abort();  // closing the upstream socket is what stops generation and billing
        result.client_gone = true;
        return result;
      }
      chunk.clear();
    }
    for (const auto& event : tap->finish()) {
      takeUsage(event, result);
      if (event.type == wire::StreamEvent::Type::Error) {
        takeError(event, result);
        // The provider's stream ended without its terminal event: end the client's cleanly.
        auto encoder = wire::makeStreamEncoder(wire, context);
        if (encoder) deliver(out, encoder->encode(event));
      }
    }
  } catch (const upstream::TransportError& failure) {
    result.upstream_broke = true;
    result.error_key = "upstream_stream_broken";
    result.error_message = failure.what();
    wire::StreamEvent event;
    event.type = wire::StreamEvent::Type::Error;
    event.error = {502, "upstream_stream_broken", std::string("the provider's stream broke: ") + failure.what(), {}, {}};
    if (auto encoder = wire::makeStreamEncoder(wire, context)) {
      if (!deliver(out, encoder->encode(event))) result.client_gone = true;
    }
  }
  return result;
}

RelayResult relayTranslated(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                            catalog::Wire provider_wire, catalog::Wire client_wire,
                            const wire::ResponseContext& context) {
  if (answer.status() >= 400) return relayError(answer, response, provider_wire, client_wire, context);
  RelayResult result;
  result.status = answer.status();
  copyProviderHeaders(answer, response);
  if (!isEventStream(answer)) {
    const std::string body = answer.readAll();
    auto decoded = wire::decodeResponse(provider_wire, body);
    if (!decoded) {
      sendError(response, client_wire, decoded.error(), context.request_id);
      result.status = decoded.error().status;
      result.error_key = decoded.error().key;
      result.error_message = decoded.error().message;
      return result;
    }
    result.usage = decoded->usage;
    result.usage_reported = decoded->usage_reported;
    sendJson(response, result.status, wire::encodeResponse(client_wire, *decoded, context));
    return result;
  }
  beginStream(response, result.status);
  std::ostream& out = response.send();
  auto decoder = wire::makeStreamDecoder(provider_wire);
  auto encoder = wire::makeStreamEncoder(client_wire, context);
  std::string chunk;
  auto forward = [&](const std::vector<wire::StreamEvent>& events) {
    std::string bytes;
    for (const auto& event : events) {
      takeUsage(event, result);
      takeError(event, result);
      bytes += encoder->encode(event);
    }
    return deliver(out, bytes);
  };
  try {
    while (answer.readSome(chunk)) {
      if (!forward(decoder->feed(chunk))) {
        answer.abort();
        result.client_gone = true;
        return result;
      }
      chunk.clear();
    }
    if (!forward(decoder->finish()) || !deliver(out, encoder->finish())) result.client_gone = true;
  } catch (const upstream::TransportError& failure) {
    answer.abort();
    wire::StreamEvent event;
    event.type = wire::StreamEvent::Type::Error;
    event.error = {502, "upstream_stream_broken", std::string("the provider's stream broke: ") + failure.what(), {}, {}};
    if (!forward({event}) || !deliver(out, encoder->finish())) result.client_gone = true;
  }
  return result;
}

}  // namespace sluice::http
