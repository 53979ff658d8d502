#pragma once
// Times in the console's JSON: RFC 3339 UTC with milliseconds ("2026-11-29T22:35:48.123Z").

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace sluice::admin {

inline std::string isoTime(std::chrono::system_clock::time_point time) {
  const auto millis = std::chrono::floor<std::chrono::milliseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(millis >= 0 ? millis / 1000 : (millis - 999) / 1000);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[80];  // room for any int the format could print (g++ -O2 checks)
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1,
                parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec, static_cast<int>(((millis % 1000) + 1000) % 1000));
  return text;
}

}  // namespace sluice::admin
