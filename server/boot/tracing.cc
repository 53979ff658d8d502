#include "server/boot/tracing.h"

#include <cstdlib>
#include <string>

#include "server/log/json_log.h"

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
  if (!config.enabled) return;
  client_ = std::make_unique<upstream::Client>(2);
  const telemetry::Sender sender = telemetry::senderFor(config, options.replica_name, "");
  log::info("telemetry: traces exported over OTLP/HTTP",
            {{"endpoint", origin(config.url)},
             {"protocol", config.protocol == telemetry::Protocol::Json ? "http/json" : "http/protobuf"},
             {"sampler", samplerName(config.sampler)},
             {"ratio", config.sampler.ratio},
             {"service_name", config.service_name}});
  tracer_ = std::make_unique<telemetry::Tracer>(std::move(config), sender, *client_);
  wiring.tracer = tracer_.get();
}

void Tracing::start() {
  if (tracer_) tracer_->start();
}

void Tracing::stop() {
  if (tracer_) tracer_->stop();
}

Tracing::~Tracing() { stop(); }

}  // namespace sluice::boot
