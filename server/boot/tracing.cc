#include "server/boot/tracing.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "server/log/json_log.h"
#include "server/telemetry/otlp_encode.h"

namespace sluice::boot {

namespace {

std::optional<std::string> fromEnvironment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// "https://collector.example:4318" of a URL: no path, query or user information.
std::string origin(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  return std::string(url.substr(0, scheme + 3)) + std::string(rest);
}

std::string samplerName(const telemetry::Sampler& sampler) {
  std::string root = sampler.root == telemetry::SamplerKind::AlwaysOn    ? "always_on"
                     : sampler.root == telemetry::SamplerKind::AlwaysOff ? "always_off"
                                                                         : "traceidratio";
  return (sampler.parent_based ? "parentbased_" : "") + root;
}

}  // namespace

void Tracing::configure(const http::ServerOptions& options, http::Wiring& wiring) {
  telemetry::TraceExport config = telemetry::readTraceExport(fromEnvironment);
  for (const auto& warning : config.warnings) log::warn("telemetry: " + warning);
  const telemetry::LogExport logs = telemetry::readLogExport(fromEnvironment);
  for (const auto& warning : logs.warnings) log::warn("telemetry: " + warning);
  if (!config.enabled && !logs.enabled) return;
  client_ = std::make_unique<upstream::Client>(2);
  const telemetry::Sender sender = telemetry::senderFor(config, options.replica_name, "");
  if (logs.enabled) {
    log::info("telemetry: audit rows exported as OTLP log records",
              {{"endpoint", origin(logs.url)},
               {"protocol", logs.protocol == telemetry::Protocol::Json ? "http/json" : "http/protobuf"},
               {"always", logs.own_endpoint}});
    audit_logs_own_endpoint_ = logs.own_endpoint;
    audit_logs_ = std::make_shared<telemetry::BatchExporter<std::string>>(
        "log records", logs,
        [sender](const std::vector<std::string>& lines, bool json) {
          const auto now = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                     std::chrono::system_clock::now().time_since_epoch())
                                                     .count());
          return json ? telemetry::encodeAuditLinesJson(sender, lines, now)
                      : telemetry::encodeAuditLinesProtobuf(sender, lines, now);
        },
        *client_);
  }
  if (!config.enabled) return;
  log::info("telemetry: traces exported over OTLP/HTTP",
            {{"endpoint", origin(config.url)},
             {"protocol", config.protocol == telemetry::Protocol::Json ? "http/json" : "http/protobuf"},
             {"sampler", samplerName(config.sampler)},
             {"ratio", config.sampler.ratio},
             {"service_name", config.service_name}});
  tracer_ = std::make_unique<telemetry::Tracer>(std::move(config), sender, *client_);
  wiring.tracer = tracer_.get();
}

Tracing::AuditRowsSink Tracing::start(http::Gateway& gateway, AuditTrail& audit) {
  if (tracer_) tracer_->start();
  if (!audit_logs_) return AuditRowsSink();
  audit_logs_->on_drop = [&family = gateway.metrics().telemetry_dropped](uint64_t records) {
    family.with({"logs"}).inc(records);
  };
  audit_logs_->start();
  audit.onCommitted(std::make_shared<const AuditTrail::CommittedRows>(
      [exporter = audit_logs_, always = audit_logs_own_endpoint_, &gateway](std::vector<std::string> lines) {
        if (always || gateway.catalog()->telemetry.audit_logs) exporter->offer(std::move(lines));
      }));
  return AuditRowsSink(&audit);
}

void Tracing::stop() {
  if (tracer_) tracer_->stop();
  if (audit_logs_) audit_logs_->stop();
}

Tracing::~Tracing() { stop(); }

}  // namespace sluice::boot
