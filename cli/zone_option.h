#pragma once
// `--timezone NAME` of sluicectl usage: the zone's rules from the system tz database, read once
// (at most catalog::kMaxZoneFileBytes), or a message naming the option.

#include <expected>
#include <memory>
#include <string>
#include <string_view>

#include "catalog/zone_rules.h"

namespace sluice::cli {

// Null for UTC (offsets are always 0). Only a name isZoneName() accepts is looked up as a file.
std::expected<std::shared_ptr<const catalog::ZoneRules>, std::string> loadZone(
    std::string_view name, const std::string& zoneinfo = "/usr/share/zoneinfo");

}  // namespace sluice::cli
