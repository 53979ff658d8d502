#pragma once
// OpenTelemetry traces at boot: the OTEL_* environment read (telemetry/config.h), and when an
// OTLP endpoint is set, a tracer with a socket client of its own, handed to the gateway through
// its Wiring. start() after the gateway is built (it counts drops into the gateway's metrics);
// the destructor exports what is queued and stops the thread.

#include <memory>

#include "server/http/gateway.h"
#include "server/telemetry/tracer.h"
#include "server/upstream/client.h"

namespace sluice::boot {

class Tracing {
 public:
  // Reads the environment; logs what it cannot read (never a header value) and, when on, where
  // traces go (the endpoint's scheme and host only) and how they are sampled.
  void configure(const http::ServerOptions& options, http::Wiring& wiring);
  void start();
  // Exports what is queued and stops; before the gateway goes (drops are counted into its metrics).
  void stop();
  ~Tracing();

 private:
  std::unique_ptr<upstream::Client> client_;
  std::unique_ptr<telemetry::Tracer> tracer_;
};

}  // namespace sluice::boot
