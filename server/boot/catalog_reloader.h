#pragma once
// The catalog at boot and its live reload: SIGHUP, and any change to the catalog's files once it
// has settled (config::CatalogWatch). An invalid catalog is refused at boot (exit 2) and on
// reload (the last good one keeps serving, reported to the gateway and logged).
//
// Thread-safety: reload() may be called from any thread (the signal loop, the watch); reloads
// run one at a time.

#include <chrono>
#include <expected>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "catalog/compiler.h"
#include "server/config/catalog_watch.h"
#include "server/http/gateway.h"

namespace sluice::boot {

struct BootCatalog {
  catalog::CompileResult loaded;                 // ok()
  std::optional<std::string> fingerprint;        // taken before the load, when watching
};

// Loads the catalog in `services_dir`; warnings are logged. With `watching`, fingerprints the
// files first, so a file changed while the gateway boots is reloaded once watched. An invalid
// catalog: every diagnostic and the refusal printed to stderr, and the exit code 2.
std::expected<BootCatalog, int> loadBootCatalog(const std::string& services_dir, bool watching);

class CatalogReloader {
 public:
  // `gateway` must outlive the reloader. `watch_interval` 0: SIGHUP only.
  CatalogReloader(std::string services_dir, http::Gateway& gateway, std::chrono::milliseconds watch_interval);
  ~CatalogReloader();  // stops the watch
  CatalogReloader(const CatalogReloader&) = delete;
  CatalogReloader& operator=(const CatalogReloader&) = delete;

  // Loads the catalog again and hands it to the gateway, or refuses it. `trigger`: "sighup" or
  // "watch"; a watch that finds the version being served changes nothing.
  void reload(const std::string& trigger);
  // Starts watching the files (when an interval was given); `baseline` as BootCatalog::fingerprint.
  void startWatch(std::optional<std::string> baseline);
  void stopWatch();

 private:
  std::string services_dir_;
  http::Gateway& gateway_;
  std::mutex mutex_;  // one reload at a time
  std::unique_ptr<config::CatalogWatch> watch_;
};

}  // namespace sluice::boot
