#include "server/boot/catalog_reloader.h"

#include <iostream>
#include <vector>

#include "server/config/catalog_loader.h"
#include "server/log/json_log.h"

namespace sluice::boot {

std::expected<BootCatalog, int> loadBootCatalog(const std::string& services_dir, bool watching) {
  BootCatalog boot;
  // Taken before the load, so a file changed while the gateway boots is reloaded once watched.
  if (watching) boot.fingerprint = config::CatalogWatch::fingerprint(services_dir);
  boot.loaded = config::loadCatalog(services_dir, config::processEnvironment());
  if (!boot.loaded.ok()) {
    for (const auto& diagnostic : boot.loaded.diagnostics) std::cerr << diagnostic.format() << "\n";
    std::cerr << "sluice: the catalog in " << services_dir << " is invalid; refusing to start\n";
    return std::unexpected(2);
  }
  for (const auto& diagnostic : boot.loaded.diagnostics) log::warn("catalog", {{"diagnostic", diagnostic.format()}});
  return boot;
}

CatalogReloader::CatalogReloader(std::string services_dir, http::Gateway& gateway,
                                 std::chrono::milliseconds watch_interval)
    : services_dir_(std::move(services_dir)), gateway_(gateway) {
  if (watch_interval.count() > 0) {
    watch_ = std::make_unique<config::CatalogWatch>(services_dir_, watch_interval, [this] { reload("watch"); });
  }
}

CatalogReloader::~CatalogReloader() { stopWatch(); }

void CatalogReloader::reload(const std::string& trigger) {
  std::lock_guard lock(mutex_);
  auto next = config::loadCatalog(services_dir_, config::processEnvironment());
  if (next.ok()) {
    if (const std::string conflict = gateway_.identityConflict(*next.catalog); !conflict.empty()) {
      gateway_.catalogRefused({conflict}, trigger);
      log::error("catalog reload refused; the last good catalog keeps serving",
                 {{"diagnostics", std::vector<std::string>{conflict}}, {"trigger", trigger}});
      return;
    }
    const auto current = gateway_.catalog();
    if (current && current->version == next.catalog->version && trigger == "watch") {
      gateway_.catalogUnchanged();
      return;
    }
    gateway_.catalogReloaded(next.catalog, trigger);
    log::info("catalog reloaded", {{"version", next.catalog->version}, {"trigger", trigger}});
  } else {
    std::vector<std::string> problems;
    for (const auto& diagnostic : next.diagnostics) problems.push_back(diagnostic.format());
    gateway_.catalogRefused(problems, trigger);
    log::error("catalog reload refused; the last good catalog keeps serving",
               {{"diagnostics", problems}, {"trigger", trigger}});
  }
}

void CatalogReloader::startWatch(std::optional<std::string> baseline) {
  if (watch_) watch_->start(std::move(baseline));
}

void CatalogReloader::stopWatch() {
  if (watch_) watch_->stop();
}

}  // namespace sluice::boot
