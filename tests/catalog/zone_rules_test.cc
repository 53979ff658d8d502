// ZoneRules from TZif bytes built here: offsets around daylight-saving changes, local times that
// are skipped or repeated, and files that are not what they claim.
#include <boost/test/unit_test.hpp>

#include <string>
#include <utility>
#include <vector>

#include "catalog/zone_rules.h"

namespace sluice::catalog {
namespace {

void bigEndian(std::string& out, int64_t value, int width) {
  for (int i = width - 1; i >= 0; --i) out.push_back(static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff));
}

// A version-2 TZif file: an empty 32-bit block, then `transitions` (UTC second, index into
// `offsets`) in the 64-bit block.
std::string tzif(const std::vector<int32_t>& offsets, const std::vector<std::pair<int64_t, int>>& transitions) {
  const auto header = [&](std::string& out, size_t timecnt, size_t typecnt) {
    out += "TZif2";
    out += std::string(15, '\0');
    for (size_t count : {size_t{0}, size_t{0}, size_t{0}, timecnt, typecnt, size_t{4}}) bigEndian(out, static_cast<int64_t>(count), 4);
  };
  std::string out;
  header(out, 0, 1);
  bigEndian(out, 0, 4);  // one type: UTC
  out += std::string(2, '\0') + std::string(4, '\0');
  header(out, transitions.size(), offsets.size());
  for (const auto& transition : transitions) bigEndian(out, transition.first, 8);
  for (const auto& transition : transitions) out.push_back(static_cast<char>(transition.second));
  for (int32_t offset : offsets) {
    bigEndian(out, offset, 4);
    out += std::string(2, '\0');
  }
  out += std::string(4, '\0');
  out += "\nCET-1CEST,M3.5.0,M10.5.0/3\n";
  return out;
}

// Paris in 2026: CET (+1) until 2026-03-29T01:00Z, CEST (+2) until 2026-10-25T01:00Z.
constexpr int64_t kSpring2026 = 1'774'746'000;
constexpr int64_t kAutumn2026 = 1'792'890'000;

ZoneRules paris() {
  return parseTzif("Europe/Paris", tzif({3600, 7200}, {{kSpring2026, 1}, {kAutumn2026, 0}})).value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(zone_rules)

BOOST_AUTO_TEST_CASE(offsets_follow_the_transitions_of_the_64_bit_block) {
  const ZoneRules rules = paris();
  BOOST_TEST(rules.name == "Europe/Paris");
  BOOST_TEST(rules.offsetAt(kSpring2026 - 1) == 3600);
  BOOST_TEST(rules.offsetAt(kSpring2026) == 7200);
  BOOST_TEST(rules.offsetAt(kAutumn2026 - 1) == 7200);
  BOOST_TEST(rules.offsetAt(kAutumn2026) == 3600);
}

BOOST_AUTO_TEST_CASE(local_times_map_back_to_utc_through_gaps_and_overlaps) {
  const ZoneRules rules = paris();
  // 2026-03-29 00:00 local (before the change, +1) is 2026-03-28T23:00Z.
  const int64_t march29 = 1'774'742'400;  // 2026-03-29T00:00 as local seconds
  BOOST_TEST(rules.utcOf(march29) == march29 - 3600);
  // 02:30 local was skipped (clocks went from 02:00 to 03:00): the instant of the change.
  BOOST_TEST(rules.utcOf(march29 + 2 * 3600 + 1800) == kSpring2026);
  // 2026-10-25 02:30 local happened twice: the first time (+2).
  const int64_t october25 = 1'792'886'400;
  BOOST_TEST(rules.utcOf(october25 + 2 * 3600 + 1800) == october25 + 2 * 3600 + 1800 - 7200);
  // Midnight after the change is read with the new offset.
  BOOST_TEST(rules.utcOf(october25 + 86400) == october25 + 86400 - 3600);
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_tzif_or_is_cut_short_is_refused_by_name) {
  BOOST_TEST(parseTzif("Nowhere/City", "not a zone file at all, but long enough for a header").error() ==
             "the zone file of Nowhere/City is not valid: not a TZif file");
  const std::string whole = tzif({3600, 7200}, {{kSpring2026, 1}, {kAutumn2026, 0}});
  BOOST_TEST(parseTzif("Europe/Paris", whole.substr(0, whole.size() - 40)).error() ==
             "the zone file of Europe/Paris is truncated");
  BOOST_TEST(parseTzif("Europe/Paris", tzif({3600}, {{kSpring2026, 3}})).error() ==
             "the zone file of Europe/Paris is not valid");
  BOOST_TEST(!parseTzif("Big/File", std::string(kMaxZoneFileBytes + 1, 'x')).has_value());
}

BOOST_AUTO_TEST_CASE(only_iana_shaped_names_are_looked_up) {
  for (const char* good : {"UTC", "Europe/Paris", "America/Argentina/Salta", "Etc/GMT+5", "America/Port-au-Prince"}) {
    BOOST_TEST(isZoneName(good), good);
  }
  for (const char* bad : {"", "/etc/passwd", "../secrets", "Europe/../../x", "Europe//Paris", "Europe/Paris/",
                          ".hidden", "Europe/Paris\n", "Europe Paris"}) {
    BOOST_TEST(!isZoneName(bad), bad);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::catalog
