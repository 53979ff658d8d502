#pragma once
// How the identity commands show times: "2026-11-29 21:43 UTC" for people, RFC 3339 in --json.

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace sluice::cli {

using TimePoint = std::chrono::system_clock::time_point;

// "2026-11-29 21:43 UTC".
std::string readableUtc(TimePoint time);
// readableUtc, or `none` when absent.
std::string readableUtc(const std::optional<TimePoint>& time, const std::string& none);
// "2026-11-29T21:43:20Z", or null when absent.
nlohmann::json jsonTime(const std::optional<TimePoint>& time);

}  // namespace sluice::cli
