#include "cli/identity_time.h"

#include <ctime>

#include "server/identity/quota.h"

namespace sluice::cli {

std::string readableUtc(TimePoint time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(time));
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &parts);
  return text;
}

std::string readableUtc(const std::optional<TimePoint>& time, const std::string& none) {
  return time ? readableUtc(*time) : none;
}

nlohmann::json jsonTime(const std::optional<TimePoint>& time) {
  return time ? nlohmann::json(identity::formatUtc(*time)) : nlohmann::json();
}

}  // namespace sluice::cli
