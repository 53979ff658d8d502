// gateway.yaml `webhooks:` (where budget alerts go) and a quota window's `alerts:` (when to tell
// them). The URL's query string and the secret are never put in a message: a Slack or Teams
// incoming-webhook URL is itself a credential.
#include <string>

#include "catalog/parsers.h"
#include "catalog/suggest.h"

namespace sluice::catalog {

namespace {

constexpr size_t kMaxWebhooks = 50;
constexpr size_t kMaxUrlBytes = 2048;
constexpr size_t kMaxAlerts = 10;

// env:NAME or file:PATH; an unset source is an error (a signed webhook with no key cannot sign).
std::optional<std::string> readWebhookSecret(YamlReader& reader, const ParseContext& context, const Entry& entry,
                                             const std::string& owner) {
  const std::string what = "secret of " + owner;
  const std::optional<std::string> ref = reader.string(entry, what);
  if (!ref) return std::nullopt;
  const auto trimmed = [](std::string value) {
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r' || value.back() == ' ')) value.pop_back();
    return value;
  };
  std::optional<std::string> value;
  if (ref->starts_with("env:") && ref->size() > 4) {
    if (auto found = context.env.find(ref->substr(4)); found != context.env.end()) value = trimmed(found->second);
  } else if (ref->starts_with("file:") && ref->size() > 5) {
    if (auto found = context.secret_files.find(ref->substr(5)); found != context.secret_files.end()) {
      value = trimmed(found->second);
    }
  } else {
    reader.error(entry.value_at, what + " must be env:NAME or file:PATH; secrets are never written in the catalog");
    return std::nullopt;
  }
  if (!value || value->empty()) {
    reader.error(entry.value_at, what + ": " + (ref->starts_with("env:") ? "environment variable " : "file ") +
                                     ref->substr(ref->find(':') + 1) + " is not set or empty");
    return std::nullopt;
  }
  return value;
}

Webhook readWebhook(YamlReader& reader, const ParseContext& context, const Entry& entry) {
  Webhook webhook;
  webhook.id = entry.key;
  webhook.where = entry.key_at;
  const std::string owner = "webhook '" + entry.key + "'";
  checkName(reader, {entry.key, entry.key_at}, "webhook");
  Fields fields = reader.fields(entry, owner, {"url", "format", "secret"});
  if (!fields.ok()) return webhook;
  if (const Entry* url = fields.find("url")) {
    const std::string text = reader.string(*url, "url of " + owner).value_or("");
    const bool scheme = text.starts_with("https://") || text.starts_with("http://");
    const bool clean = text.size() <= kMaxUrlBytes &&
                       text.find_first_of(" \t\r\n\"<>\\") == std::string::npos;
    if (!scheme || !clean || text.find("://") + 3 == text.size()) {
      reader.error(url->value_at, "url of " + owner + " must be an http:// or https:// URL of at most " +
                                      std::to_string(kMaxUrlBytes) + " bytes without spaces or quotes");
    } else {
      webhook.url = text;
    }
  } else {
    reader.error(entry.key_at, owner + " needs url");
  }
  if (const Entry* format = fields.find("format")) {
    webhook.format = reader.choice<WebhookFormat>(*format, "format of " + owner,
                                                  {{"slack", WebhookFormat::Slack},
                                                   {"teams", WebhookFormat::Teams},
                                                   {"json", WebhookFormat::Json}})
                         .value_or(WebhookFormat::Json);
  }
  const Entry* secret = fields.find("secret");
  if (secret != nullptr) {
    webhook.secret_ref = reader.string(*secret, "secret of " + owner).value_or("");
    webhook.secret = readWebhookSecret(reader, context, *secret, owner).value_or("");
  } else if (webhook.format == WebhookFormat::Json) {
    reader.error(entry.key_at, owner + " of format json needs secret: env:NAME (its bodies are signed with it)");
  }
  return webhook;
}

// `at: 80%` or `at: 80`.
std::optional<int> readPercent(YamlReader& reader, const Entry& entry, const std::string& what) {
  std::string text = reader.string(entry, what).value_or("");
  if (text.ends_with('%')) text.pop_back();
  int value = 0;
  bool digits = !text.empty() && text.size() <= 3;
  for (char c : text) {
    if (c < '0' || c > '9') digits = false;
    else value = value * 10 + (c - '0');
  }
  if (!digits || value < 1 || value > 100) {
    reader.error(entry.value_at, what + " must be a percentage from 1% to 100% of the limit, got '" +
                                     text.substr(0, 16) + "'");
    return std::nullopt;
  }
  return value;
}

}  // namespace

void readWebhooks(YamlReader& reader, const ParseContext& context, const Entry& entry, std::vector<Webhook>& webhooks) {
  if (entry.value.IsNull()) return;
  if (!entry.value.IsMap()) {
    reader.error(entry.value_at, "webhooks must be a mapping of names to { url, format, secret }, got " +
                                     describeNode(entry.value));
    return;
  }
  Fields fields = reader.fields(entry, "webhooks");
  for (const Entry& e : fields.entries()) {
    if (webhooks.size() >= kMaxWebhooks) {
      reader.error(e.key_at, "webhooks has more than " + std::to_string(kMaxWebhooks) + " entries");
      return;
    }
    webhooks.push_back(readWebhook(reader, context, e));
  }
}

void readAlerts(YamlReader& reader, const Entry& entry, const std::string& owner, QuotaWindow& window) {
  const std::string what = "alerts of " + owner;
  if (!entry.value.IsSequence()) {
    reader.error(entry.value_at, what + " must be a list such as [{ at: 80%, notify: webhook/finance }], got " +
                                     describeNode(entry.value));
    return;
  }
  size_t index = 0;
  for (const YAML::Node& item : entry.value) {
    const Location at = reader.at(item, entry.value_at);
    if (index >= kMaxAlerts) {
      reader.error(at, what + " has more than " + std::to_string(kMaxAlerts) + " entries");
      return;
    }
    const std::string alert = "alert #" + std::to_string(++index) + " of " + owner;
    Fields fields = reader.fields(item, at, alert, {"at", "notify"});
    if (!fields.ok()) continue;
    const Entry* percent = fields.find("at");
    const Entry* notify = fields.find("notify");
    if (percent == nullptr || notify == nullptr) {
      reader.error(at, alert + " needs at: PERCENT% and notify: webhook/NAME");
      continue;
    }
    QuotaAlert parsed;
    parsed.where = notify->value_at;
    const std::optional<int> value = readPercent(reader, *percent, "at of " + alert);
    const std::string target = reader.string(*notify, "notify of " + alert).value_or("");
    if (!target.starts_with("webhook/") || target.size() == 8) {
      reader.error(notify->value_at, "notify of " + alert + " must be webhook/NAME, a name under gateway.webhooks");
      continue;
    }
    if (!value) continue;
    parsed.percent = *value;
    parsed.webhook = target.substr(8);
    bool repeated = false;
    for (const QuotaAlert& earlier : window.alerts) {
      repeated = repeated || (earlier.percent == parsed.percent && earlier.webhook == parsed.webhook);
    }
    if (repeated) {
      reader.error(percent->value_at, alert + " repeats at " + std::to_string(parsed.percent) + "% for webhook/" +
                                          parsed.webhook);
      continue;
    }
    window.alerts.push_back(std::move(parsed));
  }
  std::ranges::stable_sort(window.alerts, {}, &QuotaAlert::percent);
}

void checkAlertTargets(YamlReader& reader, const Quotas& quotas, const std::vector<Webhook>& webhooks) {
  std::vector<std::string> names;
  for (const Webhook& webhook : webhooks) names.push_back(webhook.id);
  for (const QuotaWindow& window : quotas.windows) {
    for (const QuotaAlert& alert : window.alerts) {
      if (std::ranges::find(names, alert.webhook) != names.end()) continue;
      std::string message = "alert of quota window '" + window.id + "' notifies unknown webhook '" + alert.webhook +
                            "'; declare it under gateway.webhooks";
      const std::vector<std::string> near = nearestNames(alert.webhook, names);
      if (!near.empty()) message += "; did you mean '" + near.front() + "'?";
      reader.error(alert.where, message);
    }
  }
}

}  // namespace sluice::catalog
