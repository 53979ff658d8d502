#pragma once
// Structured logs: one JSON object per line on stderr, each written whole so lines from
// concurrent requests never interleave. Thread-safe. Lines logged on a fiber (net/fiber.h) are
// written by a log thread a few milliseconds later, so a request never waits on stderr; flush()
// writes them out (before the process exits).
//
// `Line` writes the object straight into one string, field by field: the per-request line is on
// every request's path, and building an nlohmann::json for it costs more than the request's own
// routing. Strings are escaped as JSON requires; bytes that are not UTF-8 become U+FFFD.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sluice::log {

enum class Level { Debug, Info, Warn, Error };

class Line {
 public:
  // Starts {"ts":…,"level":…,"msg":…; ts is RFC 3339 UTC with milliseconds.
  Line(Level level, std::string_view message);

  Line& field(std::string_view key, std::string_view value);
  Line& field(std::string_view key, const char* value) { return field(key, std::string_view(value)); }
  Line& field(std::string_view key, const std::string& value) { return field(key, std::string_view(value)); }
  Line& field(std::string_view key, int64_t value);
  Line& field(std::string_view key, int value) { return field(key, static_cast<int64_t>(value)); }
  Line& field(std::string_view key, double value);  // finite values, 3 decimals; others as null
  Line& field(std::string_view key, bool value);
  Line& field(std::string_view key, const nlohmann::json& value);

  // The line as it would be written (closed, with the newline).
  std::string text() const;
  // Writes the line to stderr.
  void write() const;

 private:
  void key(std::string_view name);
  std::string text_;
};

// Appends `value` to `out` as a JSON string literal (quotes included).
void appendJsonString(std::string& out, std::string_view value);

// Adds "ts", "level" and "msg" to `fields` and writes the line.
void write(Level level, std::string_view message, const nlohmann::json& fields = nlohmann::json::object());

// Waits (up to 5 s) until every line logged so far has been written.
void flush();

inline void info(std::string_view message, const nlohmann::json& fields = nlohmann::json::object()) {
  write(Level::Info, message, fields);
}
inline void warn(std::string_view message, const nlohmann::json& fields = nlohmann::json::object()) {
  write(Level::Warn, message, fields);
}
inline void error(std::string_view message, const nlohmann::json& fields = nlohmann::json::object()) {
  write(Level::Error, message, fields);
}

}  // namespace sluice::log
