#pragma once
// What a budget alert says and how a receiver trusts it: the body in the webhook's format (Slack's
// and Teams' incoming-webhook shapes, or Sluice's own JSON) and, for json, the HMAC-SHA256
// signature headers. Pure but for the HMAC (OpenSSL). docs/identity.md "Budget alerts" is the
// receiver's side.

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "server/identity/budget_alerts.h"

namespace sluice::alerts {

inline constexpr std::string_view kSignatureHeader = "X-Sluice-Signature";
inline constexpr std::string_view kTimestampHeader = "X-Sluice-Timestamp";
inline constexpr std::string_view kAlertIdHeader = "X-Sluice-Alert-Id";

// "Budget 'monthly' for project research: 80% of $5,000.00 reached ($4,012.50 spent; the limit of
// project/research); period 2026-12-01T00:00:00Z to 2027-01-01T00:00:00Z".
std::string alertText(const identity::AlertDue& alert);

// The request body for `format`. json: {"type":"budget_alert","id",..,"window","scope_kind",
// "scope_value","threshold_percent","measure","used","limit","limit_source","period_start",
// "period_end","text"} (cost in US dollars as a decimal string and in microdollars).
std::string alertBody(const identity::AlertDue& alert, catalog::WebhookFormat format);

// The alert's stable id (hex of SHA-256 of identity::alertKey): the same on every attempt and
// replica, so a receiver can drop a repeat.
std::string alertId(const identity::AlertDue& alert);

// "sha256=" + lowercase hex HMAC-SHA256(secret, timestamp + "." + body).
std::string alertSignature(std::string_view secret, std::string_view timestamp, std::string_view body);

// The headers of one attempt sent at `now`: Content-Type, the alert id, and for json the
// timestamp (Unix seconds) and the signature.
std::vector<std::pair<std::string, std::string>> alertHeaders(const identity::AlertDue& alert,
                                                              const catalog::Webhook& webhook, std::string_view body,
                                                              std::chrono::system_clock::time_point now);

// The wait before attempt `attempt` (2, 3, ...): `base` doubled each time, at most `cap`.
std::chrono::milliseconds retryDelay(int attempt, std::chrono::milliseconds base, std::chrono::milliseconds cap);

// The URL without its query string or user info, for logs (a Slack or Teams URL is a credential
// in its path too, so only scheme and host are kept): "https://hooks.slack.com/…".
std::string redactedUrl(std::string_view url);

}  // namespace sluice::alerts
