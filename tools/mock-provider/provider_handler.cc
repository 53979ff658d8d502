#include "tools/mock-provider/provider_handler.h"

#include <chrono>
#include <ctime>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/StreamCopier.h>

#include "tools/mock-provider/answer.h"
#include "tools/mock-provider/auth_check.h"
#include "tools/mock-provider/bedrock_auth.h"
#include "tools/mock-provider/bedrock_render.h"
#include "tools/mock-provider/cloud_request.h"
#include "tools/mock-provider/converse_render.h"
#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/fixture_loader.h"
#include "tools/mock-provider/operations_render.h"
#include "tools/mock-provider/received_request.h"
#include "tools/mock-provider/render.h"
#include "tools/mock-provider/request_info.h"
#include "tools/mock-provider/route.h"
#include "tools/mock-provider/script.h"
#include "tools/mock-provider/stream_writer.h"
#include "tools/mock-provider/tokens.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr std::streamsize kMaxBodyBytes = 64 << 20;

// Everything about one request/response pair, passed down the helpers below.
struct Exchange {
  Exchange(Poco::Net::HTTPServerRequest& request_in, Poco::Net::HTTPServerResponse& response_in, ServerContext& context_in)
      : request(request_in), response(response_in), context(context_in) {}

  Poco::Net::HTTPServerRequest& request;
  Poco::Net::HTTPServerResponse& response;
  ServerContext& context;
  ReceivedRequest received;
  std::uint64_t seq = 0;
  std::optional<Route> route;
  Script script;
  HeaderList extra_headers;  // replayed fixture headers
  int status = 0;
  std::string note;          // for the log line
  bool azure = false;        // taken as an Azure OpenAI / AI Foundry call (cloud_request.h)
};

Poco::Net::StreamSocket& socketOf(Poco::Net::HTTPServerRequest& request) {
  return static_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket();
}

std::string requestId(const Exchange& ex) { return "req_mock_" + std::to_string(ex.seq); }

void prepare(Exchange& ex, int status, const std::string& content_type) {
  ex.status = status;
  auto& response = ex.response;
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status), reasonPhrase(status));
  response.setContentType(content_type);
  const bool anthropic = ex.route && ex.route->wire == Wire::Anthropic;
  const bool bedrock = ex.route && ex.route->bedrock;
  response.set(bedrock ? "x-amzn-RequestId" : anthropic ? "request-id" : "x-request-id", requestId(ex));
  if (ex.route && (ex.route->wire == Wire::OpenAiChat || ex.route->wire == Wire::OpenAiResponses))
    response.set("openai-version", "2020-10-01");
  for (const auto& [name, value] : ex.extra_headers) response.set(name, value);
  if (ex.script.retry_after) response.set("retry-after", *ex.script.retry_after);
  for (const auto& [name, value] : ex.script.headers) response.set(name, value);
}

Pacing pacingOf(const Script& script) {
  return Pacing{script.chunk_delay_ms, script.stall_after_events, script.reset_after_events};
}

// A whole body. With stall_after_events / reset_after_events the body counts as two events,
// its halves: 0 cuts before any body byte, 1 after the first half.
void sendBody(Exchange& ex, int status, const std::string& content_type, const std::string& body) {
  prepare(ex, status, content_type);
  ex.context.stats().recordStatus(ex.received.path, status);
  const Pacing pacing = pacingOf(ex.script);
  if (!pacing.stall_after && !pacing.reset_after) {
    ex.response.setContentLength(static_cast<std::streamsize>(body.size()));
    ex.response.sendBuffer(body.data(), body.size());
    return;
  }
  ex.response.setContentLength(static_cast<std::streamsize>(body.size()));
  std::ostream& out = ex.response.send();
  out.flush();
  const std::size_t half = body.size() / 2;
  const std::vector<std::string> frames{body.substr(0, half), body.substr(half)};
  Pacing body_pacing = pacing;
  body_pacing.chunk_delay_ms = 0;
  auto& stats = ex.context.stats();
  const StreamEnd end = writeFrames(out, socketOf(ex.request), frames, body_pacing, ex.context.stopping(), [] {},
                                    [&] { stats.recordStall(ex.received.path); });
  ex.note = end == StreamEnd::Reset ? "body reset" : end == StreamEnd::ClientGone ? "body stalled, client gone" : "body cut";
}

void sendJson(Exchange& ex, int status, const Json& json) {
  sendBody(ex, status, "application/json", json.dump(-1, ' ', false, Json::error_handler_t::replace));
}

void sendError(Exchange& ex, const ErrorSpec& error) {
  const Wire wire = ex.route ? ex.route->wire : Wire::OpenAiChat;
  sendBody(ex, error.status, "application/json", renderErrorBody(wire, error, requestId(ex)));
  ex.note = error.type + ": " + error.message;
}

void sendStream(Exchange& ex, int status, const std::string& content_type, const std::vector<std::string>& frames) {
  prepare(ex, status, content_type);
  auto& stats = ex.context.stats();
  const std::string& path = ex.received.path;
  stats.recordStatus(path, status);
  ex.response.setChunkedTransferEncoding(true);
  ex.response.set("Cache-Control", "no-cache");
  std::ostream& out = ex.response.send();
  out.flush();
  stats.recordStreamStart(path);
  std::size_t sent = 0;
  const StreamEnd end = writeFrames(
      out, socketOf(ex.request), frames, pacingOf(ex.script), ex.context.stopping(),
      [&] {
        ++sent;
        stats.recordEvent(path);
      },
      [&] { stats.recordStall(path); });
  stats.recordStreamEnd(path, end);
  static constexpr const char* kEndNames[] = {"completed", "client gone", "reset", "server stopping"};
  ex.note = "stream events=" + std::to_string(sent) + "/" + std::to_string(frames.size()) + " " +
            kEndNames[static_cast<int>(end)];
}

// A Gemini answer's signed calls are remembered before it leaves, so the next turn is checked.
void rememberSignatures(Exchange& ex, bool stream, const std::string& body, const std::vector<std::string>& frames) {
  if (!ex.route || ex.route->wire != Wire::Gemini) return;
  std::string text = body;
  if (stream) {
    text.clear();
    for (const auto& frame : frames) text += frame;
  }
  ex.context.thoughtSignatures().remember(signedCalls(text));
}

void replay(Exchange& ex) {
  auto loaded = loadFixture(ex.context.fixturesDir(), *ex.script.fixture, ex.route->wire, ex.script.interaction);
  if (!loaded) {
    ErrorSpec error = errorForStatus(ex.route->wire, 400, Script{});
    error.message = "x-mock-script: " + loaded.error();
    sendError(ex, error);
    return;
  }
  ex.extra_headers = loaded->headers;
  const int status = ex.script.status.value_or(loaded->status);
  rememberSignatures(ex, loaded->stream, loaded->body, loaded->frames);
  if (loaded->stream) sendStream(ex, status, loaded->content_type, loaded->frames);
  else sendBody(ex, status, loaded->content_type, loaded->body);
  ex.note = "fixture " + *ex.script.fixture + (ex.note.empty() ? "" : ", " + ex.note);
}

Answer plannedAnswer(Exchange& ex, const RequestInfo& info) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  Answer planned = planAnswer(info, ex.script, ex.seq, std::chrono::duration_cast<std::chrono::seconds>(now).count());
  if (ex.script.prefix_cache && !ex.script.usage.cache_read) {
    // The path stands for the deployment: two endpoints of one provider differ by their prefix.
    const std::int64_t cached = ex.context.prefixCache().readAndRemember(ex.received.path, info.prompt_text);
    planned.usage.cache_read = std::min(cached, planned.usage.input_tokens);
    planned.usage.input_tokens -= planned.usage.cache_read;
  }
  return planned;
}

RenderOptions renderOptions(const Exchange& ex, const RequestInfo& info) {
  RenderOptions options;
  options.stream = info.stream;
  options.gemini_sse = findQueryParam(ex.received.query, "alt").value_or("") == "sse";
  options.include_usage = info.include_usage;
  options.error_after = ex.script.in_stream_error;
  options.stream_error = inStreamErrorFor(ex.route->wire, ex.script);
  return options;
}

void answer(Exchange& ex, const RequestInfo& info) {
  const Route& route = *ex.route;
  if (route.endpoint == Endpoint::CountTokens || route.endpoint == Endpoint::GeminiCountTokens) {
    const auto tokens = ex.script.usage.input_tokens.value_or(countTokens(info.prompt_text));
    const Rendered rendered = renderCountTokens(route, tokens);
    sendBody(ex, 200, rendered.content_type, rendered.body);
    return;
  }
  const Answer planned = plannedAnswer(ex, info);
  Rendered rendered = renderAnswer(route, planned, renderOptions(ex, info));
  if (ex.azure && route.wire == Wire::OpenAiChat && rendered.stream) {
    rendered.frames.insert(rendered.frames.begin(), azurePromptFilterFrame());
  }
  rememberSignatures(ex, rendered.stream, rendered.body, rendered.frames);
  if (rendered.stream) sendStream(ex, 200, rendered.content_type, rendered.frames);
  else sendBody(ex, 200, rendered.content_type, rendered.body);
}

// OpenAI's other endpoints (operations_render.h): a fixture or a scripted status first, as for
// the chat endpoints, else the deterministic answer.
void answerOperation(Exchange& ex) {
  if (ex.script.fixture) {
    replay(ex);
    return;
  }
  if (ex.script.status && *ex.script.status != 200) {
    sendError(ex, errorForStatus(ex.route->wire, *ex.script.status, ex.script));
    return;
  }
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  auto rendered = renderOperation(ex.route->endpoint, findHeader(ex.received.headers, "content-type").value_or(""),
                                  ex.received.body, ex.seq, std::chrono::duration_cast<std::chrono::seconds>(now).count());
  if (!rendered) {
    sendError(ex, rendered.error());
    return;
  }
  sendBody(ex, 200, rendered->content_type, rendered->body);
}

void sendBedrockError(Exchange& ex, const ErrorSpec& error) {
  ex.extra_headers.emplace_back("x-amzn-ErrorType", error.type + ":http://internal.amazon.com/coral/com.amazon.bedrock/");
  sendBody(ex, error.status, "application/json", bedrockErrorBody(error));
  ex.note = error.type + ": " + error.message;
}

// Bedrock's InvokeModel and Converse: the signature (or API key) checked, the body checked as
// Bedrock does, then the Anthropic answer (InvokeModel) or Converse's, whole or as event-stream
// frames.
void serveBedrock(Exchange& ex) {
  if (auto refused = checkBedrockAuth(ex.received, ex.context.awsKeys(), ex.context.apiKey(),
                                      std::chrono::system_clock::now())) {
    sendBedrockError(ex, *refused);
    return;
  }
  const bool converse = ex.route->endpoint == Endpoint::BedrockConverse ||
                        ex.route->endpoint == Endpoint::BedrockConverseStream;
  const bool stream = ex.route->endpoint == Endpoint::BedrockInvokeStream ||
                      ex.route->endpoint == Endpoint::BedrockConverseStream;
  auto body = converse ? converseToMessagesBody(ex.received.body, ex.route->model, stream)
                       : messagesBodyOf(ex.received.body, ex.route->model, stream);
  if (!body) {
    sendBedrockError(ex, body.error());
    return;
  }
  const Route messages{Endpoint::Messages, Wire::Anthropic, {}};
  auto info = inspectRequest(messages, *body);
  if (!info) {
    ErrorSpec error = bedrockErrorFor(400, Script{});
    error.message = info.error().message;
    sendBedrockError(ex, error);
    return;
  }
  if (ex.script.status && *ex.script.status != 200) {
    sendBedrockError(ex, bedrockErrorFor(*ex.script.status, ex.script));
    return;
  }
  const Answer planned = plannedAnswer(ex, *info);
  const RenderOptions options = renderOptions(ex, *info);
  if (!stream) {
    const std::string answer = renderAnswer(messages, planned, options).body;
    sendBody(ex, 200, "application/json", converse ? converseAnswerOf(answer) : answer);
    return;
  }
  const auto events = streamEvents(messages, planned, options);
  sendStream(ex, 200, "application/vnd.amazon.eventstream",
             converse ? converseStreamFrames(events, ex.script) : eventStreamFrames(events, ex.script));
}

// The first of the script's reject_fields the body carries, refused in the wire's own words.
std::optional<ErrorSpec> rejectedField(const Exchange& ex, Wire wire) {
  if (ex.script.reject_fields.empty()) return std::nullopt;
  const Json body = Json::parse(ex.received.body, nullptr, false);
  if (!body.is_object()) return std::nullopt;
  for (const auto& field : ex.script.reject_fields) {
    if (!body.contains(field)) continue;
    ErrorSpec error = errorForStatus(wire, 400, Script{});
    switch (wire) {
      case Wire::Anthropic: error.message = field + ": Extra inputs are not permitted"; break;
      case Wire::OpenAiChat: error.message = "Unrecognized request argument supplied: " + field; break;
      case Wire::OpenAiResponses:
        error.message = "Unsupported parameter: '" + field + "' is not supported with this model.";
        error.param = field;
        error.code = "unsupported_parameter";
        break;
      case Wire::Gemini:
        error.message = "Invalid JSON payload received. Unknown name \"" + field + "\": Cannot find field.";
        break;
    }
    return error;
  }
  return std::nullopt;
}

void serve(Exchange& ex) {
  if (!ex.route) {
    sendJson(ex, 404,
             Json{{"error", Json{{"message", "sluice-mock-provider has no route for " + ex.received.path},
                                 {"type", "invalid_request_error"},
                                 {"param", nullptr},
                                 {"code", "unknown_url"}}}});
    return;
  }
  const Wire wire = ex.route->wire;
  if (ex.received.method != "POST") {
    ErrorSpec error = errorForStatus(wire, 405, Script{});
    error.message = "method " + ex.received.method + " not allowed; use POST";
    sendError(ex, error);
    return;
  }
  if (auto header = findHeader(ex.received.headers, "x-mock-script")) {
    auto parsed = parseScript(*header);
    if (!parsed) {
      ErrorSpec error = errorForStatus(wire, 400, Script{});
      error.message = parsed.error();
      sendError(ex, error);
      return;
    }
    ex.script = std::move(*parsed);
  }
  if (ex.script.delay_ms > 0) {
    const Wait waited = pauseWatching(ex.script.delay_ms, socketOf(ex.request), ex.context.stopping());
    if (waited == Wait::Stopped) {
      ex.note = "server stopping during delay_ms";
      return;
    }
    if (waited == Wait::ClientGone) {
      ex.context.stats().recordDelayAbandoned(ex.received.path);
      ex.note = "client gone during delay_ms";
      return;
    }
  }
  if (ex.script.echo) {
    Json echo = toJson(ex.received);
    echo["seq"] = ex.seq;
    echo["wire"] = wireName(wire);
    sendJson(ex, 200, echo);
    return;
  }
  if (ex.route->bedrock) {
    serveBedrock(ex);
    return;
  }
  // Vertex and Azure: the platform's own authentication and URL rules (cloud_request.h).
  CloudCheck cloud = checkCloudRequest(*ex.route, ex.received, ex.context.apiKey(), ex.context.googleTokens(),
                                       ex.context.entraTokens(), std::chrono::system_clock::now());
  if (cloud.refusal) {
    sendBody(ex, cloud.refusal->status, "application/json", cloud.refusal->body);
    ex.note = cloud.refusal->note;
    return;
  }
  if (cloud.messages_body) ex.received.body = std::move(*cloud.messages_body);
  ex.azure = cloud.azure;
  if (!cloud.azure && !cloud.vertex) {
    if (auto error = checkAuth(*ex.route, ex.received, ex.context.apiKey())) {
      sendError(ex, *error);
      return;
    }
  }
  if (isOperation(ex.route->endpoint)) {
    answerOperation(ex);
    return;
  }
  auto info = inspectRequest(*ex.route, ex.received.body);
  if (!info) {
    sendError(ex, info.error());
    return;
  }
  if (auto rejected = rejectedField(ex, wire)) {
    sendError(ex, *rejected);
    return;
  }
  if (wire == Wire::Gemini && ex.route->endpoint != Endpoint::GeminiCountTokens) {
    if (auto refused = ex.context.thoughtSignatures().check(ex.received.body)) {
      sendError(ex, *refused);
      return;
    }
  }
  if (ex.script.fixture) {
    replay(ex);
    return;
  }
  if (ex.script.status && *ex.script.status != 200) {
    if (ex.azure) sendBody(ex, *ex.script.status, "application/json", azureErrorBody(*ex.script.status, ex.script));
    else sendError(ex, errorForStatus(wire, *ex.script.status, ex.script));
    return;
  }
  answer(ex, *info);
}

// The one top-level catch: log, and answer 500 in the wire's shape if nothing was sent yet.
void fail(Exchange& ex, const std::string& what) {
  if (!ex.response.sent()) {
    ErrorSpec error = errorForStatus(ex.route ? ex.route->wire : Wire::OpenAiChat, 500, Script{});
    error.message = "sluice-mock-provider failed: " + what;
    try {
      sendError(ex, error);
    } catch (const Poco::Exception&) {
      // NOTE: the client is gone too; the log line below is all that is left to do.
    }
  }
  ex.note = "failed: " + what;
}

}  // namespace

ReceivedRequest readRequest(Poco::Net::HTTPServerRequest& request) {
  ReceivedRequest received;
  received.method = request.getMethod();
  const std::string& uri = request.getURI();
  const auto question = uri.find('?');
  received.path = uri.substr(0, question);
  if (question != std::string::npos) received.query = uri.substr(question + 1);
  for (const auto& [name, value] : request) received.headers.emplace_back(name, value);
  std::istream& body = request.stream();
  char buffer[16384];
  while (body && static_cast<std::streamsize>(received.body.size()) < kMaxBodyBytes) {
    body.read(buffer, sizeof buffer);
    received.body.append(buffer, static_cast<std::size_t>(body.gcount()));
  }
  return received;
}

void ProviderHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  const auto started = Clock::now();
  Exchange ex(request, response, context_);
  ex.received = readRequest(request);
  ex.seq = context_.nextSeq();
  ex.route = matchRoute(ex.received.path);
  context_.stats().recordRequest(ex.received, ex.seq, ex.route ? wireName(ex.route->wire) : "none");
  try {
    serve(ex);
  } catch (const Poco::Exception& error) {
    fail(ex, error.displayText());
  } catch (const std::exception& error) {
    fail(ex, error.what());
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  context_.log("#" + std::to_string(ex.seq) + " " + ex.received.method + " " + ex.received.path + " -> " +
               std::to_string(ex.status) + (ex.note.empty() ? "" : " " + ex.note) + " (" + std::to_string(ms) + " ms)");
}

}  // namespace sluice::mock
