#include "server/wire/bedrock/invoke.h"

#include <algorithm>
#include <array>

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

std::string errorEvent(std::string_view type, std::string message) {
  if (message.size() > kMaxErrorMessageBytes) message.resize(kMaxErrorMessageBytes);
  Json body = {{"type", "error"}, {"error", {{"type", std::string(type)}, {"message", message}}}};
  return sseFrame("error", dumpJsonText(body));
}

}  // namespace

std::string invokePath(std::string_view model_id, bool stream) {
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
  path += stream ? "/invoke-with-response-stream" : "/invoke";
  return path;
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
  if (exception_type == "throttlingException") return "rate_limit_error";
  if (exception_type == "serviceUnavailableException") return "overloaded_error";
  if (exception_type == "validationException") return "invalid_request_error";
  if (exception_type == "accessDeniedException") return "permission_error";
  if (exception_type == "resourceNotFoundException") return "not_found_error";
  return "api_error";  // modelStreamErrorException, internalServerException, modelTimeoutException, …
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
    return errorEvent(anthropicErrorType(type), text.empty() ? std::string(type) : text);
  }
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
  return sseFrame(parsed["type"].get_ref<const std::string&>(), dumpJsonText(parsed));
}

std::string InvokeStreamReframer::feed(std::string_view bytes) {
  std::string out;
  if (failure()) return out;
  for (const auto& message : decoder_.feed(bytes)) {
    out += reframe(message);
    if (failure_) break;
  }
  return out;
}

std::string InvokeStreamReframer::finish() {
  if (!failure()) decoder_.finish();
  return "";
}

}  // namespace sluice::wire::bedrock
