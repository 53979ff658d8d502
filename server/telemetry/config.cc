#include "server/telemetry/config.h"

#include <charconv>
#include <cstdlib>

#include "server/text/hex.h"

namespace sluice::telemetry {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string lower(std::string_view text) {
  std::string out(trim(text));
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// The signal-specific variable, else the generic one.
std::optional<std::string> either(const Environment& environment, std::string_view specific, std::string_view generic) {
  if (auto value = environment(specific); value && !trim(*value).empty()) return value;
  if (auto value = environment(generic); value && !trim(*value).empty()) return value;
  return std::nullopt;
}

std::optional<long> wholeNumber(std::string_view text, long low, long high) {
  text = trim(text);
  long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < low || value > high) return std::nullopt;
  return value;
}

void readNumber(const Environment& environment, std::string_view name, long low, long high, auto& into,
                std::vector<std::string>& warnings) {
  const auto text = environment(name);
  if (!text || trim(*text).empty()) return;
  if (const auto value = wholeNumber(*text, low, high)) {
    into = static_cast<std::remove_reference_t<decltype(into)>>(*value);
  } else {
    warnings.push_back(std::string(name) + " is not a whole number from " + std::to_string(low) + " to " +
                       std::to_string(high) + "; the default stays");
  }
}

bool trueText(std::string_view text) { return lower(text) == "true"; }

}  // namespace

std::vector<std::pair<std::string, std::string>> readKeyValueList(std::string_view text, size_t* skipped) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t bad = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view entry = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (entry.empty()) continue;
    const size_t equals = entry.find('=');
    const std::string_view key = equals == std::string_view::npos ? std::string_view() : trim(entry.substr(0, equals));
    if (key.empty()) {
      ++bad;
      continue;
    }
    out.emplace_back(text::percentDecode(key, false), text::percentDecode(trim(entry.substr(equals + 1)), false));
  }
  if (skipped != nullptr) *skipped = bad;
  return out;
}

namespace {

// The URL, protocol, headers and timeout of one signal: OTEL_EXPORTER_OTLP_<SIGNAL>_* first, then
// the generic variables (whose endpoint gets `path` appended). Returns whether the signal's own
// endpoint variable named the URL.
bool readTarget(const Environment& environment, std::string_view signal, std::string_view path, ExportTarget& target,
                std::vector<std::string>& warnings) {
  const std::string prefix = "OTEL_EXPORTER_OTLP_" + std::string(signal) + "_";
  const std::string name(signal == "TRACES" ? "traces" : "logs");
  bool own = false;
  if (const auto specific = environment(prefix + "ENDPOINT"); specific && !trim(*specific).empty()) {
    target.url = std::string(trim(*specific));  // used as is
    own = true;
  } else if (const auto base = environment("OTEL_EXPORTER_OTLP_ENDPOINT"); base && !trim(*base).empty()) {
    std::string url(trim(*base));
    if (!url.ends_with('/')) url += '/';
    target.url = url + std::string(path);
  }
  if (!target.url.empty() && !target.url.starts_with("http://") && !target.url.starts_with("https://")) {
    warnings.push_back("the OTLP " + name + " endpoint is not an http:// or https:// URL; " + name +
                       " are not exported");
    target.url.clear();
  }

  if (const auto protocol = either(environment, prefix + "PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")) {
    const std::string value = lower(*protocol);
    if (value == "http/json") {
      target.protocol = Protocol::Json;
    } else if (value != "http/protobuf") {
      warnings.push_back("OTLP protocol '" + value.substr(0, 40) + "' is not served (http/protobuf and http/json are); " +
                         name + " are not exported");
      target.url.clear();
    }
  }

  if (const auto headers = either(environment, prefix + "HEADERS", "OTEL_EXPORTER_OTLP_HEADERS")) {
    size_t skipped = 0;
    target.headers = readKeyValueList(*headers, &skipped);
    if (skipped > 0) warnings.push_back(std::to_string(skipped) + " OTLP header entries without a name were skipped");
  }
  if (const auto timeout = either(environment, prefix + "TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")) {
    if (const auto value = wholeNumber(*timeout, 1, 600'000)) {
      target.timeout_ms = static_cast<int>(*value);
    } else {
      warnings.push_back("OTEL_EXPORTER_OTLP_TIMEOUT is not a number of milliseconds from 1 to 600000; 10000 stays");
    }
  }
  return own;
}

// The batch queue's sizes: OTEL_BSP_* for spans, OTEL_BLRP_* for log records.
void readBatching(const Environment& environment, std::string_view prefix, ExportTarget& target,
                  std::vector<std::string>& warnings) {
  const std::string p(prefix);
  readNumber(environment, p + "MAX_QUEUE_SIZE", 1, 1'000'000, target.max_queue, warnings);
  readNumber(environment, p + "MAX_EXPORT_BATCH_SIZE", 1, 100'000, target.max_batch, warnings);
  readNumber(environment, p + "SCHEDULE_DELAY", 1, 3'600'000, target.schedule_delay_ms, warnings);
  target.max_batch = std::min(target.max_batch, target.max_queue);  // the spec: batch <= queue
}

bool sdkDisabled(const Environment& environment) {
  const auto disabled = environment("OTEL_SDK_DISABLED");
  return disabled && trueText(*disabled);
}

}  // namespace

TraceExport readTraceExport(const Environment& environment) {
  TraceExport config;
  auto& warnings = config.warnings;
  readTarget(environment, "TRACES", "v1/traces", config, warnings);

  if (const auto resource = environment("OTEL_RESOURCE_ATTRIBUTES"); resource && !trim(*resource).empty()) {
    config.resource = readKeyValueList(*resource);
    for (const auto& [key, value] : config.resource) {
      if (key == "service.name" && !value.empty()) config.service_name = value;
    }
  }
  if (const auto name = environment("OTEL_SERVICE_NAME"); name && !trim(*name).empty()) {
    config.service_name = std::string(trim(*name));
  }

  if (const auto sampler = environment("OTEL_TRACES_SAMPLER"); sampler && !trim(*sampler).empty()) {
    const std::string value = lower(*sampler);
    Sampler& s = config.sampler;
    if (value == "always_on") s = {SamplerKind::AlwaysOn, false, 1.0};
    else if (value == "always_off") s = {SamplerKind::AlwaysOff, false, 1.0};
    else if (value == "traceidratio") s = {SamplerKind::TraceIdRatio, false, 1.0};
    else if (value == "parentbased_always_on") s = {SamplerKind::AlwaysOn, true, 1.0};
    else if (value == "parentbased_always_off") s = {SamplerKind::AlwaysOff, true, 1.0};
    else if (value == "parentbased_traceidratio") s = {SamplerKind::TraceIdRatio, true, 1.0};
    else warnings.push_back("OTEL_TRACES_SAMPLER '" + value.substr(0, 40) + "' is not known; parentbased_always_on stays");
  }
  if (config.sampler.root == SamplerKind::TraceIdRatio) {
    if (const auto arg = environment("OTEL_TRACES_SAMPLER_ARG"); arg && !trim(*arg).empty()) {
      char* end = nullptr;
      const std::string text(trim(*arg));
      const double ratio = std::strtod(text.c_str(), &end);
      if (end == text.c_str() + text.size() && ratio >= 0.0 && ratio <= 1.0) {
        config.sampler.ratio = ratio;
      } else {
        warnings.push_back("OTEL_TRACES_SAMPLER_ARG is not a ratio from 0 to 1; 1.0 stays");
      }
    }
  }

  readBatching(environment, "OTEL_BSP_", config, warnings);
  config.enabled = !config.url.empty() && !sdkDisabled(environment);
  return config;
}

LogExport readLogExport(const Environment& environment) {
  LogExport config;
  config.schedule_delay_ms = 1000;  // the spec's default for log records
  config.own_endpoint = readTarget(environment, "LOGS", "v1/logs", config, config.warnings);
  readBatching(environment, "OTEL_BLRP_", config, config.warnings);
  config.enabled = !config.url.empty() && !sdkDisabled(environment);
  config.own_endpoint = config.own_endpoint && config.enabled;
  return config;
}

}  // namespace sluice::telemetry
