#include "server/boot/identity.h"

#include <chrono>
#include <iostream>

#include "server/config/catalog_loader.h"
#include "server/identity/authenticator.h"
#include "server/identity/quota_store.h"
#include "server/identity/vault.h"
#include "server/log/json_log.h"
#include "server/responses/store.h"
#include "server/store/pg_key_directory.h"
#include "server/store/pg_quota_counters.h"
#include "server/store/pg_response_items.h"

namespace sluice::boot {

namespace {

// The Responses store shares the identity pool when there is one (its own small pool without keys).
void bootResponseStore(const http::ServerOptions& options, http::Wiring& wiring,
                       std::shared_ptr<store::ConnectionPool> pool) {
  if (!options.database_url || options.responses_retention_days <= 0) {
    log::info("responses not stored", {{"reason", options.database_url ? "--responses-retention-days 0" : "no database"}});
    return;
  }
  if (!pool) pool = std::make_shared<store::ConnectionPool>(*options.database_url, store::PoolOptions{});
  responses::StoreOptions store_options;
  store_options.retention = std::chrono::hours(24 * options.responses_retention_days);
  store_options.max_bytes = options.responses_max_bytes;
  wiring.responses =
      std::make_shared<responses::Store>(std::make_shared<store::PgResponseItems>(std::move(pool)), store_options);
  log::info("responses stored", {{"retention_days", options.responses_retention_days},
                                 {"max_bytes", options.responses_max_bytes}});
}

}  // namespace

int bootIdentity(const http::ServerOptions& options, http::Wiring& wiring) {
  if (!options.database_url || options.insecure_no_auth) {
    log::warn("--insecure-no-auth: API keys are not checked; every request is anonymous");
    bootResponseStore(options, wiring, nullptr);
    return 0;
  }
  auto vault = identity::vaultFromEnvironment(config::processEnvironment());
  if (!vault) {
    std::cerr << "sluice: " << vault.error() << "\n";
    return 2;
  }
  http::Identity identity;
  identity.pool = std::make_shared<store::ConnectionPool>(*options.database_url, store::PoolOptions{});
  const std::shared_ptr<const identity::Vault> sealed =
      *vault ? std::make_shared<const identity::Vault>(std::move(**vault)) : nullptr;
  identity.authenticator =
      std::make_shared<identity::Authenticator>(std::make_shared<store::PgKeyDirectory>(identity.pool), sealed);
  identity.quotas = std::make_shared<identity::QuotaStore>(std::make_shared<store::PgQuotaCounters>(identity.pool));
  bootResponseStore(options, wiring, identity.pool);
  wiring.identity = std::move(identity);
  log::info("API keys required", {{"personal_credentials", sealed != nullptr}});
  return 0;
}

std::unique_ptr<util::BackgroundTask> startQuotaHousekeeping(http::Gateway& gateway) {
  const auto quotas = gateway.identity().quotas;
  responses::Store* const store = gateway.responseStore();
  if (!quotas && store == nullptr) return nullptr;
  auto task = std::make_unique<util::BackgroundTask>(util::BackgroundTask::every(std::chrono::hours(1), [quotas, store] {
    if (quotas) {
      try {
        const size_t pruned = quotas->prune(std::chrono::system_clock::now() - std::chrono::hours(24));
        if (pruned > 0) log::info("quota counters pruned", {{"rows", pruned}});
      } catch (const std::exception& error) {
        log::warn("quota counters not pruned", {{"error", error.what()}});
      }
    }
    if (store != nullptr) {
      try {
        const size_t purged = store->purgeExpired();
        if (purged > 0) log::info("expired responses purged", {{"responses", purged}});
      } catch (const std::exception& error) {
        log::warn("expired responses not purged", {{"error", error.what()}});
      }
    }
  }));
  task->start();
  return task;
}

}  // namespace sluice::boot
