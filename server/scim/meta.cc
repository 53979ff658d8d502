#include "server/scim/meta.h"

#include <cstdio>

namespace sluice::scim {

std::string isoTime(TimePoint time) {
  using namespace std::chrono;
  const auto seconds = floor<std::chrono::seconds>(time);
  const auto day = floor<days>(seconds);
  const year_month_day date{day};
  const hh_mm_ss clock{seconds - day};
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02ld:%02ld:%02ldZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<long>(clock.hours().count()), static_cast<long>(clock.minutes().count()),
                static_cast<long>(clock.seconds().count()));
  return text;
}

nlohmann::json metaOf(std::string_view resource_type, std::string_view base_url, std::string_view id,
                      TimePoint created, TimePoint last_modified) {
  return {{"resourceType", resource_type},
          {"created", isoTime(created)},
          {"lastModified", isoTime(last_modified)},
          {"location", std::string(base_url) + "/" + std::string(resource_type) + "s/" + std::string(id)}};
}

bool hasControl(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return true;
  }
  return false;
}

}  // namespace sluice::scim
