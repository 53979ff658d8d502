// decodeError and the Google RPC error mapping shared with the response and stream decoders.

#include <charconv>
#include <cmath>
#include <string>

#include "server/text/utf8.h"
#include "server/wire/gemini/codec.h"
#include "server/wire/json_parse.h"
#include "server/wire/gemini/google_error.h"
#include "server/wire/json_access.h"
#include "server/wire/retry_after.h"

namespace sluice::wire::gemini {
namespace {

constexpr size_t kMaxRawMessageBytes = 512;

// A non-JSON body (an HTML page from a proxy, say) as a message: cut short and made valid UTF-8,
// since every client encoder writes it into JSON.
std::string rawBodyMessage(std::string_view body) { return text::repairUtf8(body.substr(0, kMaxRawMessageBytes)); }

std::optional<int> ceilSeconds(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
  const double rounded = std::ceil(seconds);
  // The same cap as a Retry-After header (retry_after.h).
  return rounded > kMaxRetryAfter.count() ? static_cast<int>(kMaxRetryAfter.count()) : static_cast<int>(rounded);
}

std::optional<double> parseDecimal(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool endsWith(std::string_view text, std::string_view suffix) { return text.ends_with(suffix); }

std::optional<int> retryDelayOf(const Json& error_object) {
  const Json* details = arrayMember(error_object, "details");
  if (details == nullptr) return std::nullopt;
  for (const Json& detail : *details) {
    if (!endsWith(stringMember(detail, "@type"), "google.rpc.RetryInfo")) continue;
    if (const Json* delay = member(detail, "retryDelay")) {
      if (auto seconds = durationSeconds(*delay)) return seconds;
    }
  }
  return std::nullopt;
}

std::optional<std::string> fieldViolationOf(const Json& error_object) {
  const Json* details = arrayMember(error_object, "details");
  if (details == nullptr) return std::nullopt;
  for (const Json& detail : *details) {
    const Json* violations = arrayMember(detail, "fieldViolations");
    if (violations == nullptr) continue;
    for (const Json& violation : *violations) {
      if (std::string field = stringMember(violation, "field"); !field.empty()) return field;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> durationSeconds(const Json& duration) {
  if (duration.is_string()) {
    std::string_view text = duration.get_ref<const std::string&>();
    if (!text.ends_with('s')) return std::nullopt;
    text.remove_suffix(1);
    if (const auto seconds = parseDecimal(text)) return ceilSeconds(*seconds);
    return std::nullopt;
  }
  if (duration.is_object()) {
    const double seconds = static_cast<double>(int64Member(duration, "seconds").value_or(0)) +
                           static_cast<double>(int64Member(duration, "nanos").value_or(0)) / 1e9;
    return ceilSeconds(seconds);
  }
  return std::nullopt;
}

ApiError apiErrorFromGoogle(int http_status, const Json& error_object, std::optional<int> retry_after_seconds) {
  ApiError error;
  const auto code = int64Member(error_object, "code");
  if (http_status >= 400) {
    error.status = http_status;
  } else if (code && *code >= 400 && *code <= 599) {
    error.status = static_cast<int>(*code);
  } else {
    error.status = 502;
  }
  error.key = stringMember(error_object, "status");
  if (error.key.empty()) error.key = errorTypeFor(catalog::Wire::Gemini, error.status);
  error.message = stringMember(error_object, "message");
  if (error.message.empty()) error.message = "gemini answered " + std::to_string(error.status);
  error.param = fieldViolationOf(error_object);
  error.retry_after_seconds = retryDelayOf(error_object);
  if (!error.retry_after_seconds) error.retry_after_seconds = retry_after_seconds;
  return error;
}

ApiError decodeError(int status, std::string_view body, std::optional<int> retry_after_seconds) {
  const Json parsed = parseBounded(body);
  // streamGenerateContent without alt=sse wraps its answer, errors included, in an array.
  const Json& document = parsed.is_array() && !parsed.empty() ? parsed.front() : parsed;
  if (const Json* error_object = objectMember(document, "error")) {
    return apiErrorFromGoogle(status, *error_object, retry_after_seconds);
  }
  ApiError error;
  error.status = status >= 400 ? status : 502;
  error.key = errorTypeFor(catalog::Wire::Gemini, error.status);
  error.message = rawBodyMessage(body);
  if (error.message.empty()) error.message = "gemini answered " + std::to_string(status);
  error.retry_after_seconds = retry_after_seconds;
  return error;
}

}  // namespace sluice::wire::gemini
