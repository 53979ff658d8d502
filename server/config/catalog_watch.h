#pragma once
// Watches the catalog's files (every regular file under the services directory) and calls back
// once a change has settled: a fingerprint (path, size, modification time) is taken every
// `interval`; a change is reported when two consecutive fingerprints agree again after differing
// (debounce: an editor's save or a `git pull` touching several files gives one reload).
//
// Polling rather than inotify: it sees files replaced by rename (editors, git), symlink swaps
// (Kubernetes ConfigMaps) and network file systems alike, at the cost of a few stat() calls.
// Thread-safe; the callback runs on the watch thread.

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "server/util/background_task.h"

namespace sluice::config {

class CatalogWatch {
 public:
  CatalogWatch(std::string services_dir, std::chrono::milliseconds interval, std::function<void()> on_change);
  ~CatalogWatch();  // stops
  CatalogWatch(const CatalogWatch&) = delete;
  CatalogWatch& operator=(const CatalogWatch&) = delete;

  // `baseline`: the fingerprint of what is being served, taken before the catalog was loaded; a
  // change made after it (while the gateway boots, before the watch thread's first look) is then
  // reported rather than taken as the starting point. Without one, the first look is the baseline.
  void start(std::optional<std::string> baseline = std::nullopt);
  void stop();

  // The fingerprint of a directory: one line per regular file below it ("path size mtime_ns").
  static std::string fingerprint(const std::string& services_dir);

 private:
  // One look at the files; the first (at start) takes the baseline.
  void look();

  std::string services_dir_;
  std::chrono::milliseconds interval_;
  std::function<void()> on_change_;
  // Set by start(), read by the task's first look (start() happens before it).
  std::optional<std::string> baseline_;
  // Owned by the task's thread.
  bool started_ = false;
  std::string settled_;
  std::string pending_;
  bool changing_ = false;
  std::atomic<bool> stopped_{false};  // a stopped watch stays stopped
  util::BackgroundTask task_;
};

}  // namespace sluice::config
