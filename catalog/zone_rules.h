#pragma once
// A time zone's UTC offsets over time, read from the system's tz database (a TZif file from
// /usr/share/zoneinfo, RFC 8536), for calendar quota periods. Pure: bytes in, values out; the
// file is read by server/config (attachTimeZones).
//
// NOTE: only the transitions the file lists are used, not its POSIX footer rule: Debian's tzdata
// ships "fat" files listing every transition through 2037; after the last one the last offset
// holds.

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::catalog {

struct ZoneRules {
  std::string name;                 // "Europe/Paris"
  int32_t initial_offset = 0;       // seconds east of UTC before the first transition
  // (UTC second, offset from then on), ascending; bounded by kMaxZoneTransitions.
  std::vector<std::pair<int64_t, int32_t>> transitions;

  // Seconds east of UTC in force at `utc_seconds`.
  int32_t offsetAt(int64_t utc_seconds) const;
  // The first UTC second whose local time is `local_seconds` or later (local seconds count from
  // 1970-01-01T00:00 local). A local time skipped by a forward change maps to the instant of the
  // change; one repeated by a backward change maps to its first occurrence.
  int64_t utcOf(int64_t local_seconds) const;
};

inline constexpr size_t kMaxZoneTransitions = 4096;
inline constexpr size_t kMaxZoneFileBytes = 256 * 1024;

// Parses a TZif file (version 1, 2, 3 or 4; the 64-bit data when present). An error names what is
// wrong, never echoes bytes.
std::expected<ZoneRules, std::string> parseTzif(std::string_view name, std::string_view bytes);

// Whether `name` is shaped as an IANA zone name ("UTC", "Europe/Paris", "America/Argentina/Salta"):
// letters, digits, '_', '-', '+' in '/'-separated parts, no part "." or "..", at most 64 bytes.
// Only such a name is looked up as a file.
bool isZoneName(std::string_view name);

}  // namespace sluice::catalog
