#include "server/alerts/alert_message.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <nlohmann/json.hpp>

namespace sluice::alerts {

namespace {

std::string hex(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

// "$5,000.00" for microdollars; cents rounded down.
std::string dollars(int64_t microdollars) {
  const int64_t cents = microdollars / 10'000;
  std::string whole = std::to_string(cents / 100);
  for (int i = static_cast<int>(whole.size()) - 3; i > 0; i -= 3) whole.insert(static_cast<size_t>(i), ",");
  const int64_t rest = cents % 100;
  return "$" + whole + "." + (rest < 10 ? "0" : "") + std::to_string(rest);
}

std::string amount(const identity::AlertDue& alert, int64_t value) {
  if (alert.measure == identity::QuotaMeasure::Cost) return dollars(value);
  return std::to_string(value) + " " + std::string(identity::toString(alert.measure));
}

std::string decimalDollars(int64_t microdollars) {
  const int64_t rest = microdollars % 1'000'000;
  std::string fraction = std::to_string(rest);
  fraction.insert(0, 6 - fraction.size(), '0');
  return std::to_string(microdollars / 1'000'000) + "." + fraction;
}

}  // namespace

std::string alertText(const identity::AlertDue& alert) {
  const std::string subject = alert.scope_kind == "organisation" ? "the organisation"
                                                                 : alert.scope_kind + " " + alert.scope_value;
  const std::string source = alert.limit_source == "default" ? "the window's default" : "the limit of " + alert.limit_source;
  return "Budget '" + alert.window_id + "' for " + subject + ": " + std::to_string(alert.percent) + "% of " +
         amount(alert, alert.limit) + " reached (" + amount(alert, alert.used) + " " +
         (alert.measure == identity::QuotaMeasure::Cost ? "spent" : "used") + "; " + source + "); period " +
         identity::formatUtc(alert.span.start) + " to " + identity::formatUtc(alert.span.end);
}

std::string alertId(const identity::AlertDue& alert) {
  const std::string key = identity::alertKey(alert);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), digest);
  return hex(digest, 16);
}

std::string alertBody(const identity::AlertDue& alert, catalog::WebhookFormat format) {
  const std::string text = alertText(alert);
  nlohmann::json body;
  switch (format) {
    case catalog::WebhookFormat::Slack:
      body = {{"text", text}};
      break;
    case catalog::WebhookFormat::Teams:
      body = {{"@type", "MessageCard"},
              {"@context", "https://schema.org/extensions"},
              {"summary", "Budget " + std::to_string(alert.percent) + "% reached"},
              {"title", "Sluice budget alert"},
              {"text", text}};
      break;
    case catalog::WebhookFormat::Json:
      body = {{"type", "budget_alert"},
              {"id", alertId(alert)},
              {"window", alert.window_id},
              {"scope_kind", alert.scope_kind},
              {"scope_value", alert.scope_value},
              {"threshold_percent", alert.percent},
              {"measure", identity::toString(alert.measure)},
              {"used", alert.used},
              {"limit", alert.limit},
              {"limit_source", alert.limit_source},
              {"period_start", identity::formatUtc(alert.span.start)},
              {"period_end", identity::formatUtc(alert.span.end)},
              {"text", text}};
      if (alert.measure == identity::QuotaMeasure::Cost) {
        body["used_usd"] = decimalDollars(alert.used);
        body["limit_usd"] = decimalDollars(alert.limit);
      }
      break;
  }
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string alertSignature(std::string_view secret, std::string_view timestamp, std::string_view body) {
  std::string message;
  message.reserve(timestamp.size() + 1 + body.size());
  message.append(timestamp).append(".").append(body);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), digest, &size);
  return "sha256=" + hex(digest, size);
}

std::vector<std::pair<std::string, std::string>> alertHeaders(const identity::AlertDue& alert,
                                                              const catalog::Webhook& webhook, std::string_view body,
                                                              std::chrono::system_clock::time_point now) {
  std::vector<std::pair<std::string, std::string>> headers = {{"Content-Type", "application/json"},
                                                              {std::string(kAlertIdHeader), alertId(alert)}};
  if (webhook.format == catalog::WebhookFormat::Json && !webhook.secret.empty()) {
    const std::string timestamp =
        std::to_string(std::chrono::floor<std::chrono::seconds>(now.time_since_epoch()).count());
    headers.emplace_back(std::string(kTimestampHeader), timestamp);
    headers.emplace_back(std::string(kSignatureHeader), alertSignature(webhook.secret, timestamp, body));
  }
  return headers;
}

std::chrono::milliseconds retryDelay(int attempt, std::chrono::milliseconds base, std::chrono::milliseconds cap) {
  std::chrono::milliseconds delay = base;
  for (int i = 2; i < attempt && delay < cap; ++i) delay *= 2;
  return std::min(delay, cap);
}

std::string redactedUrl(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "(a webhook URL)";
  const size_t host_start = scheme + 3;
  size_t host_end = url.find_first_of("/?#", host_start);
  if (host_end == std::string_view::npos) host_end = url.size();
  std::string_view host = url.substr(host_start, host_end - host_start);
  if (const size_t at = host.rfind('@'); at != std::string_view::npos) host = host.substr(at + 1);
  return std::string(url.substr(0, host_start)) + std::string(host) + "/…";
}

}  // namespace sluice::alerts
