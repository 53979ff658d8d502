#include "server/config/catalog_watch.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

namespace sluice::config {

CatalogWatch::CatalogWatch(std::string services_dir, std::chrono::milliseconds interval,
                           std::function<void()> on_change)
    : services_dir_(std::move(services_dir)),
      interval_(interval),
      on_change_(std::move(on_change)),
      task_([this] {
        look();
        return interval_;
      }) {}

CatalogWatch::~CatalogWatch() { stop(); }

void CatalogWatch::start(std::optional<std::string> baseline) {
  if (task_.running() || stopped_) return;
  baseline_ = std::move(baseline);
  task_.start();
}

void CatalogWatch::stop() {
  stopped_ = true;
  task_.stop();
}

std::string CatalogWatch::fingerprint(const std::string& services_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> lines;
  std::error_code error;
  fs::recursive_directory_iterator it(services_dir, fs::directory_options::follow_directory_symlink, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    std::error_code status_error;
    if (!it->is_regular_file(status_error)) continue;  // follows symlinks
    const auto size = fs::file_size(it->path(), status_error);
    const auto mtime = fs::last_write_time(it->path(), status_error);
    if (status_error) continue;
    lines.push_back(it->path().string() + " " + std::to_string(size) + " " +
                    std::to_string(mtime.time_since_epoch().count()));
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

void CatalogWatch::look() {
  if (!started_) {
    settled_ = baseline_ ? std::move(*baseline_) : fingerprint(services_dir_);
    started_ = true;
    return;
  }
  const std::string now = fingerprint(services_dir_);
  if (!changing_) {
    if (now != settled_) {
      changing_ = true;
      pending_ = now;
    }
  } else if (now == pending_) {
    changing_ = false;
    settled_ = now;
    on_change_();
  } else {
    pending_ = now;
  }
}

}  // namespace sluice::config
