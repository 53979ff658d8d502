#pragma once
// OpenTelemetry at boot: the OTEL_* environment read (telemetry/config.h). When an OTLP endpoint is
// set, a tracer with a socket client of its own, handed to the gateway through its Wiring; and
// when a logs endpoint is (or the generic one and gateway.telemetry.audit_logs), the audit rows
// committed to PostgreSQL exported as OTLP log records (telemetry/audit_log.h). start() after the
// gateway is built (drops are counted into its metrics); stop() exports what is queued.

#include <memory>
#include <string>
#include <utility>

#include "server/boot/audit_trail.h"
#include "server/http/gateway.h"
#include "server/telemetry/batch_exporter.h"
#include "server/telemetry/tracer.h"
#include "server/upstream/client.h"

namespace sluice::boot {

class Tracing {
 public:
  // Reads the environment; logs what it cannot read (never a header value) and, when on, where
  // traces and logs go (the endpoint's scheme and host only) and how traces are sampled.
  void configure(const http::ServerOptions& options, http::Wiring& wiring);
  // While it lives, audit rows committed by an AuditTrail's writer go to the logs exporter. It must
  // go before the gateway the sink reads the catalog of (declare it after the gateway).
  class AuditRowsSink {
   public:
    explicit AuditRowsSink(AuditTrail* audit = nullptr) : audit_(audit) {}
    ~AuditRowsSink() {
      if (audit_ != nullptr) audit_->onCommitted(nullptr);
    }
    AuditRowsSink(const AuditRowsSink&) = delete;
    AuditRowsSink& operator=(const AuditRowsSink&) = delete;
    AuditRowsSink(AuditRowsSink&& other) noexcept : audit_(std::exchange(other.audit_, nullptr)) {}

   private:
    AuditTrail* audit_;
  };

  // Starts the exporters; audit rows committed by `audit`'s writer from now on, until the returned
  // sink goes, are exported while the logs endpoint is the signal's own or the gateway's catalog
  // says gateway.telemetry.audit_logs: true.
  [[nodiscard]] AuditRowsSink start(http::Gateway& gateway, AuditTrail& audit);
  // Exports what is queued and stops; after the audit writer stopped, before the gateway goes.
  void stop();
  ~Tracing();

 private:
  std::unique_ptr<upstream::Client> client_;
  std::unique_ptr<telemetry::Tracer> tracer_;
  std::shared_ptr<telemetry::BatchExporter<std::string>> audit_logs_;  // shared with the writer's sink
  bool audit_logs_own_endpoint_ = false;
};

}  // namespace sluice::boot
