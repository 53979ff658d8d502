#include "server/log/json_log.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>

namespace sluice::log {

namespace {

std::mutex& lineMutex() {
  static std::mutex mutex;
  return mutex;
}

std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(millis % 1000));
  return buffer;
}

std::string_view levelName(Level level) {
  switch (level) {
    case Level::Debug: return "debug";
    case Level::Info: return "info";
    case Level::Warn: return "warn";
    case Level::Error: return "error";
  }
  return "info";
}

}  // namespace

void write(Level level, std::string_view message, nlohmann::json fields) {
  nlohmann::json line = nlohmann::json::object();
  line["ts"] = timestamp();
  line["level"] = levelName(level);
  line["msg"] = message;
  if (fields.is_object()) {
    for (auto& [key, value] : fields.items()) line[key] = std::move(value);
  }
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(lineMutex());
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace sluice::log
