#include "server/http/gateway.h"

#include <algorithm>
#include <map>
#include <set>

#include <unistd.h>

#include "server/audit/writer.h"
#include "server/http/request_id.h"
#include "server/log/json_log.h"
#include "server/telemetry/tracer.h"

namespace sluice::http {

namespace {

metrics::BreakerLevel levelOf(dispatch::BreakerState state) {
  switch (state) {
    case dispatch::BreakerState::Closed: return metrics::BreakerLevel::Closed;
    case dispatch::BreakerState::HalfOpen: return metrics::BreakerLevel::HalfOpen;
    case dispatch::BreakerState::Open: return metrics::BreakerLevel::Open;
  }
  return metrics::BreakerLevel::Closed;
}

void declareEndpoints(metrics::GatewayMetrics& metrics, const catalog::Catalog& catalog, EndpointStates& states) {
  const auto now = std::chrono::steady_clock::now();
  std::map<std::string, dispatch::BreakerState> known;
  for (const auto& [key, state] : states.states(now)) known.emplace(key, state);
  for (const auto& provider : catalog.providers) {
    for (const auto& endpoint : provider.endpoints) {
      const auto it = known.find(endpoint.key);
      metrics.setBreakerState(provider.id, endpoint.id,
                              levelOf(it == known.end() ? dispatch::BreakerState::Closed : it->second));
    }
  }
}

// An eighth of the machine's memory, at least 64 MiB: room for thousands of ordinary bodies at
// once, never for the process to be pushed out of memory by bodies alone.
size_t defaultBodyBudget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const size_t memory = pages > 0 && page_size > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page_size) : 0;
  return std::max<size_t>(64u << 20, memory / 8);
}

}  // namespace

void Gateway::startRefusalFlush() {
  if (audit_sink_ == nullptr || options_.unauthenticated_rows_per_peer == 0) return;
  refusal_flush_ = std::make_unique<util::BackgroundTask>(
      util::BackgroundTask::every(std::chrono::seconds(1), [this] {
        writeRefusalSummaries(refusal_throttle_.due(std::chrono::steady_clock::now()));
      }),
      util::BackgroundTask::FirstRun::AfterWait, std::chrono::seconds(1));
  refusal_flush_->start();
}

void Gateway::flushRefusalSummaries() {
  if (refusal_flush_) refusal_flush_->stop();
  writeRefusalSummaries(refusal_throttle_.drainAll());
}

void Gateway::writeRefusalSummaries(const std::vector<audit::RefusalThrottle::Summary>& summaries) {
  if (audit_sink_ == nullptr) return;
  for (const auto& summary : summaries) {
    audit::Record row = audit::RefusalThrottle::summaryRow(summary, newRequestId(), std::chrono::system_clock::now(),
                                                           std::chrono::steady_clock::now());
    row.replica = options_.replica_name;
    audit_sink_->submit(std::move(row));
  }
}

Gateway::~Gateway() {
  if (refusal_flush_) refusal_flush_->stop();
}

Gateway::Gateway(ServerOptions options, std::shared_ptr<const catalog::Catalog> catalog, Wiring wiring)
    : options_(std::move(options)),
      catalog_(catalog),
      transport_(wiring.transport),
      tracer_(wiring.tracer),
      aws_credentials_(wiring.transport != nullptr ? *wiring.transport : upstream_),
      audit_(wiring.audit),
      audit_sink_(wiring.audit_sink != nullptr ? wiring.audit_sink : wiring.audit),
      identity_(std::move(wiring.identity)),
      tls_(std::move(wiring.tls)),
      response_store_(std::move(wiring.responses)) {
  body_budget_.setLimit(options_.max_buffered_bytes != 0 ? options_.max_buffered_bytes : defaultBodyBudget());
  endpoints_.onTransition([this](const std::string& key, const dispatch::Transition& transition) {
    const size_t slash = key.find('/');
    metrics_.setBreakerState(key.substr(0, slash), slash == std::string::npos ? "" : key.substr(slash + 1),
                             levelOf(transition.to));
    log::warn("breaker", {{"endpoint", key},
                          {"from", std::string(dispatch::toString(transition.from))},
                          {"to", std::string(dispatch::toString(transition.to))},
                          {"reason", transition.reason}});
  });
  if (catalog) {
    metrics_.setCatalogVersion(catalog->version);
    declareEndpoints(metrics_, *catalog, endpoints_);
    status_.version = catalog->version;
    status_.loaded_at = std::chrono::system_clock::now();
    status_.loaded_by = "boot";
  }
  startRefusalFlush();
  if (tracer_ != nullptr) {
    tracer_->on_drop = [&family = metrics_.telemetry_dropped](uint64_t spans) { family.with({"traces"}).inc(spans); };
  }
}

void Gateway::catalogReloaded(std::shared_ptr<const catalog::Catalog> next, const std::string& trigger) {
  const auto previous = catalog_.load();
  swapCatalog(next);
  if (previous) {
    std::set<std::string> kept;
    for (const auto& provider : next->providers) {
      for (const auto& endpoint : provider.endpoints) kept.insert(endpoint.key);
    }
    for (const auto& provider : previous->providers) {
      for (const auto& endpoint : provider.endpoints) {
        if (!kept.contains(endpoint.key)) metrics_.forgetBreaker(provider.id, endpoint.id);
      }
    }
  }
  declareEndpoints(metrics_, *next, endpoints_);
  metrics_.setCatalogVersion(next->version);
  metrics_.recordCatalogReload(true);
  std::lock_guard lock(status_mutex_);
  status_.version = next->version;
  status_.loaded_at = std::chrono::system_clock::now();
  status_.loaded_by = trigger;
  ++status_.reloads_accepted;
  status_.refusal_standing = false;
}

void Gateway::catalogUnchanged() {
  std::lock_guard lock(status_mutex_);
  status_.refusal_standing = false;
}

std::string Gateway::identityConflict(const catalog::Catalog& catalog) const {
  if (catalog.identity.mode == catalog::IdentityMode::Key) return "";
  if (tls_ && tls_->verifiesClients()) return "";
  const std::string where = catalog.identity.where.file.empty()
                                ? std::string("gateway.yaml")
                                : catalog.identity.where.file + ":" + std::to_string(catalog.identity.where.line);
  if (catalog.identity.mode == catalog::IdentityMode::Certificate) {
    return where + ": identity: certificate needs the gateway started with --tls-cert, --tls-key and --client-ca "
                   "(without them no caller could present a certificate, and every request would be refused)";
  }
  return "";
}

void Gateway::catalogRefused(const std::vector<std::string>& diagnostics, const std::string&) {
  metrics_.recordCatalogReload(false);
  std::lock_guard lock(status_mutex_);
  ++status_.reloads_refused;
  status_.refused_at = std::chrono::system_clock::now();
  status_.refused_diagnostics = diagnostics;
  status_.refusal_standing = true;
}

CatalogStatus Gateway::catalogStatus() const {
  std::lock_guard lock(status_mutex_);
  return status_;
}

}  // namespace sluice::http
