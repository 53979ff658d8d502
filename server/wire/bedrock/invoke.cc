#include "server/wire/bedrock/invoke.h"

#include <algorithm>
#include <array>
#include <utility>

#include "server/wire/json_parse.h"
#include "server/wire/sse.h"

namespace sluice::wire::bedrock {
namespace {

constexpr size_t kMaxErrorMessageBytes = 1024;

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

std::optional<std::string> base64Decode(std::string_view text) {
  static const std::array<int, 256> table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < alphabet.size(); ++i) t[static_cast<unsigned char>(alphabet[i])] = int(i);
    return t;
  }();
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t bits = 0;
  int count = 0;
  for (unsigned char c : text) {
    if (table[c] < 0) return std::nullopt;
    bits = (bits << 6) | uint32_t(table[c]);
    if (++count == 4) {
      out.push_back(char(bits >> 16));
      out.push_back(char(bits >> 8));
      out.push_back(char(bits));
      bits = 0;
      count = 0;
    }
  }
  if (count == 1) return std::nullopt;
  if (count == 2) out.push_back(char(bits >> 4));
  if (count == 3) {
    out.push_back(char(bits >> 10));
    out.push_back(char(bits >> 2));
  }
  return out;
}

std::string base64Encode(std::string_view bytes) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t n = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8) | uint8_t(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(alphabet[(n >> shift) & 63]);
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const uint32_t n = (uint32_t(uint8_t(bytes[i])) << 16) | (two ? uint32_t(uint8_t(bytes[i + 1])) << 8 : 0);
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    out.push_back(two ? alphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

EventHeader stringHeader(std::string name, std::string value) {
  return EventHeader{std::move(name), HeaderType::String, std::move(value), 0};
}

std::string errorEvent(std::string_view type, std::string message) {
  if (message.size() > kMaxErrorMessageBytes) message.resize(kMaxErrorMessageBytes);
  Json body = {{"type", "error"}, {"error", {{"type", std::string(type)}, {"message", message}}}};
  return sseFrame("error", dumpJsonText(body));
}

}  // namespace

namespace {

std::string modelPath(std::string_view model_id) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string path = "/model/";
  for (unsigned char c : model_id) {
    if (unreserved(c)) {
      path.push_back(char(c));
    } else {
      path.push_back('%');
      path.push_back(digits[c >> 4]);
      path.push_back(digits[c & 0xf]);
    }
  }
  return path;
}

}  // namespace

std::string invokePath(std::string_view model_id, bool stream) {
  return modelPath(model_id) + (stream ? "/invoke-with-response-stream" : "/invoke");
}

std::string conversePath(std::string_view model_id, bool stream) {
  return modelPath(model_id) + (stream ? "/converse-stream" : "/converse");
}

std::optional<std::string> invokeBody(std::string_view anthropic_body, std::string_view anthropic_beta_header) {
  Json body = parseBounded(anthropic_body);
  if (!body.is_object()) return std::nullopt;
  body.erase("model");
  body.erase("stream");
  if (!body.contains("anthropic_version")) body["anthropic_version"] = kAnthropicVersion;
  std::string_view rest = anthropic_beta_header;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.empty()) continue;
    Json& betas = body["anthropic_beta"];
    if (!betas.is_array()) betas = Json::array();
    Json value = std::string(item);
    if (std::find(betas.begin(), betas.end(), value) == betas.end()) betas.push_back(std::move(value));
  }
  return dumpJsonText(body);
}

std::string_view anthropicErrorType(std::string_view exception_type) {
  if (exception_type == "throttlingException" || exception_type == "serviceQuotaExceededException" ||
      exception_type == "modelNotReadyException") {
    return "rate_limit_error";
  }
  if (exception_type == "unrecognizedClientException" || exception_type == "expiredTokenException") {
    return "authentication_error";
  }
  if (exception_type == "serviceUnavailableException") return "overloaded_error";
  if (exception_type == "validationException") return "invalid_request_error";
  if (exception_type == "accessDeniedException") return "permission_error";
  if (exception_type == "resourceNotFoundException") return "not_found_error";
  return "api_error";  // modelStreamErrorException, internalServerException, modelTimeoutException, …
}

std::string chunkFrame(std::string_view anthropic_event_json) {
  EventMessage message;
  message.headers = {stringHeader(":event-type", "chunk"), stringHeader(":content-type", "application/json"),
                     stringHeader(":message-type", "event")};
  message.payload = dumpJsonText(Json{{"bytes", base64Encode(anthropic_event_json)}});
  return encodeEventMessage(message);
}

std::string exceptionFrame(std::string_view exception_name, std::string_view text) {
  EventMessage message;
  message.headers = {stringHeader(":exception-type", std::string(exception_name)),
                     stringHeader(":content-type", "application/json"), stringHeader(":message-type", "exception")};
  message.payload = dumpJsonText(Json{{"message", std::string(text)}});
  return encodeEventMessage(message);
}

std::string exceptionName(std::string_view raw) {
  raw = raw.substr(0, raw.find(':'));
  std::string name(raw.substr(0, 64));
  if (!name.empty() && name.front() >= 'A' && name.front() <= 'Z') name.front() = char(name.front() - 'A' + 'a');
  return name;
}

int exceptionStatus(std::string_view name) {
  static constexpr std::pair<std::string_view, int> kStatuses[] = {
      {"throttlingException", 429},       {"serviceQuotaExceededException", 429},
      {"modelNotReadyException", 429},    {"serviceUnavailableException", 503},
      {"validationException", 400},       {"accessDeniedException", 403},
      {"unrecognizedClientException", 403}, {"expiredTokenException", 403},
      {"resourceNotFoundException", 404}, {"modelTimeoutException", 408},
      {"modelErrorException", 424},       {"modelStreamErrorException", 424},
  };
  for (const auto& [known, status] : kStatuses) {
    if (name == known) return status;
  }
  return 500;
}

std::string anthropicErrorBody(int status, std::string_view error_type_header, std::string_view body) {
  const std::string name = exceptionName(error_type_header);
  std::string_view type = anthropicErrorType(name);
  if (type == "api_error") {  // a name without its own Anthropic type: the status says which
    type = status == 429 ? "rate_limit_error"
           : status == 503 ? "overloaded_error"
           : status == 401 ? "authentication_error"
           : status == 403 ? "permission_error"
           : status == 404 ? "not_found_error"
           : status >= 400 && status < 500 ? "invalid_request_error"
                                           : "api_error";
  }
  std::string message;
  const Json parsed = parseBounded(body);
  for (const char* key : {"message", "Message"}) {
    if (message.empty() && parsed.is_object() && parsed.contains(key) && parsed[key].is_string()) {
      message = parsed[key].get<std::string>();
    }
  }
  if (message.empty()) message = name.empty() ? "Bedrock answered HTTP " + std::to_string(status) : name;
  if (message.size() > kMaxErrorMessageBytes) message.resize(kMaxErrorMessageBytes);
  return dumpJsonText(Json{{"type", "error"}, {"error", {{"type", std::string(type)}, {"message", message}}}});
}

std::string InvokeStreamReframer::reframe(const EventMessage& message) {
  const std::string_view kind = message.text(":message-type").value_or("event");
  if (kind == "exception" || kind == "error") {
    const std::string_view type = kind == "exception" ? message.text(":exception-type").value_or("")
                                                      : message.text(":error-code").value_or("");
    Json payload = parseBounded(message.payload);
    std::string text = kind == "error" ? std::string(message.text(":error-message").value_or("")) : "";
    if (payload.is_object() && payload.contains("message") && payload["message"].is_string()) {
      text = payload["message"].get<std::string>();
    }
    if (text.empty()) text = std::string(type);
    if (text.size() > kMaxErrorMessageBytes) text.resize(kMaxErrorMessageBytes);
    if (!exception_) {
      exception_ = StreamException{exceptionName(type), text};
      chunks_before_exception_ = chunks_;
    }
    return errorEvent(anthropicErrorType(exceptionName(type)), text);
  }
  if (framing_ == Framing::ConverseEvents) return reframeConverse(message);
  if (message.text(":event-type").value_or("") != "chunk") return "";  // e.g. initial-response
  Json payload = parseBounded(message.payload);
  std::optional<std::string> event;
  if (payload.is_object() && payload.contains("bytes") && payload["bytes"].is_string()) {
    event = base64Decode(payload["bytes"].get_ref<const std::string&>());
  }
  Json parsed = event ? parseBounded(*event) : Json();
  if (!parsed.is_object() || !parsed.contains("type") || !parsed["type"].is_string()) {
    failure_ = "Bedrock chunk event does not carry a base64 Anthropic event";
    return "";
  }
  ++chunks_;
  return sseFrame(parsed["type"].get_ref<const std::string&>(), dumpJsonText(parsed));
}

std::string InvokeStreamReframer::reframeConverse(const EventMessage& message) {
  const std::string_view type = message.text(":event-type").value_or("");
  static constexpr std::string_view kEvents[] = {"messageStart", "contentBlockStart", "contentBlockDelta",
                                                 "contentBlockStop", "messageStop", "metadata"};
  if (std::find(std::begin(kEvents), std::end(kEvents), type) == std::end(kEvents)) return "";  // e.g. initial-response
  const Json payload = parseBounded(message.payload);
  if (!payload.is_object()) {
    failure_ = "Converse " + std::string(type) + " event does not carry a JSON object";
    return "";
  }
  ++chunks_;
  return sseFrame(type, dumpJsonText(payload));
}

std::string InvokeStreamReframer::feed(std::string_view bytes) {
  std::string out;
  if (failure() || exception_) return out;
  for (const auto& message : decoder_.feed(bytes)) {
    out += reframe(message);
    if (failure_ || exception_) break;  // nothing follows an exception on Bedrock's streams
  }
  return out;
}

std::string InvokeStreamReframer::finish() {
  if (!failure()) decoder_.finish();
  return "";
}

}  // namespace sluice::wire::bedrock
