#pragma once
// Structured logs: one JSON object per line on stderr, written whole under a lock so lines from
// concurrent requests never interleave. Thread-safe.

#include <string_view>

#include <nlohmann/json.hpp>

namespace sluice::log {

enum class Level { Debug, Info, Warn, Error };

// Adds "ts" (RFC 3339 UTC, milliseconds), "level" and "msg" to `fields` and writes the line.
void write(Level level, std::string_view message, nlohmann::json fields = nlohmann::json::object());

inline void info(std::string_view message, nlohmann::json fields = nlohmann::json::object()) {
  write(Level::Info, message, std::move(fields));
}
inline void warn(std::string_view message, nlohmann::json fields = nlohmann::json::object()) {
  write(Level::Warn, message, std::move(fields));
}
inline void error(std::string_view message, nlohmann::json fields = nlohmann::json::object()) {
  write(Level::Error, message, std::move(fields));
}

}  // namespace sluice::log
