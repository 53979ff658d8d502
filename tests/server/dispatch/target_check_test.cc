// Own machines and max_input_bytes: which targets are skipped before any call. A fake clock.
#include "server/dispatch/target_check.h"

#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"

using sluice::dispatch::checkTarget;
using sluice::dispatch::PresenceSnapshot;
using Clock = PresenceSnapshot::Clock;
using namespace std::chrono_literals;

namespace {

struct OwnMachine {
  sluice::catalog::Endpoint endpoint;
  sluice::dispatch::Attempt attempt;
  OwnMachine(std::string url, bool skip_busy, std::optional<int64_t> max_bytes) {
    endpoint.key = "own/studio";
    endpoint.wire = sluice::catalog::Wire::OpenAIChat;
    endpoint.url = std::move(url);
    endpoint.presence_node = "studio";
    endpoint.skip_busy = skip_busy;
    endpoint.max_input_bytes = max_bytes;
    // The studio is on the office LAN, as the hub reports it (10.0.0.7).
    endpoint.presence_hosts = {*sluice::catalog::parseCidr("10.0.0.0/8")};
    attempt.endpoint = &endpoint;
  }
};

PresenceSnapshot hubSaying(bool available, bool busy, Clock::time_point polled) {
  PresenceSnapshot snapshot;
  snapshot.configured = true;
  snapshot.last_success = polled;
  snapshot.stale_after = 5000ms;
  snapshot.nodes["studio"] = {available, busy, available ? "idle" : "lid closed", "10.0.0.7", 8081};
  return snapshot;
}

const Clock::time_point kT0{std::chrono::hours(100)};

}  // namespace

BOOST_AUTO_TEST_SUITE(target_check)

BOOST_AUTO_TEST_CASE(an_available_node_is_used_at_the_address_the_hub_reports) {
  OwnMachine own("", false, std::nullopt);
  const auto check = checkTarget(own.attempt, hubSaying(true, false, kT0), 100, kT0 + 1s);
  BOOST_TEST(!check.skip.has_value());
  BOOST_TEST(check.base_url == "http://10.0.0.7:8081/v1");
}

BOOST_AUTO_TEST_CASE(a_declared_url_wins_over_the_hub_address) {
  OwnMachine own("http://studio.lan:9000/v1", false, std::nullopt);
  const auto check = checkTarget(own.attempt, hubSaying(true, false, kT0), 100, kT0);
  BOOST_TEST(!check.skip.has_value());
  BOOST_TEST(check.base_url.empty());
}

BOOST_AUTO_TEST_CASE(an_unavailable_node_is_skipped_with_the_hubs_reason) {
  OwnMachine own("", false, std::nullopt);
  const auto check = checkTarget(own.attempt, hubSaying(false, false, kT0), 100, kT0);
  BOOST_REQUIRE(check.skip.has_value());
  BOOST_TEST(check.skip->segment == "presence:unavailable");
  BOOST_TEST(check.skip->result == "skipped:presence");
  BOOST_TEST(check.skip->detail.find("lid closed") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_absent_node_is_skipped) {
  OwnMachine own("", false, std::nullopt);
  PresenceSnapshot snapshot = hubSaying(true, false, kT0);
  snapshot.nodes.clear();
  BOOST_TEST(checkTarget(own.attempt, snapshot, 1, kT0).skip->segment == "presence:absent");
}

BOOST_AUTO_TEST_CASE(a_node_goes_stale_once_the_last_success_is_older_than_stale_ms) {
  OwnMachine own("", false, std::nullopt);
  const PresenceSnapshot snapshot = hubSaying(true, false, kT0);
  BOOST_TEST(!checkTarget(own.attempt, snapshot, 1, kT0 + 5000ms).skip.has_value());
  const auto late = checkTarget(own.attempt, snapshot, 1, kT0 + 5001ms);
  BOOST_REQUIRE(late.skip.has_value());
  BOOST_TEST(late.skip->segment == "presence:stale");
  // Never read at all: stale too.
  BOOST_TEST(checkTarget(own.attempt, PresenceSnapshot{}, 1, kT0).skip->segment == "presence:stale");
}

BOOST_AUTO_TEST_CASE(a_busy_node_is_skipped_only_with_skip_busy) {
  OwnMachine patient("", false, std::nullopt);
  OwnMachine hasty("", true, std::nullopt);
  const PresenceSnapshot busy = hubSaying(true, true, kT0);
  BOOST_TEST(!checkTarget(patient.attempt, busy, 1, kT0).skip.has_value());
  BOOST_TEST(checkTarget(hasty.attempt, busy, 1, kT0).skip->segment == "presence:busy");
}

BOOST_AUTO_TEST_CASE(an_available_node_without_an_address_or_url_cannot_be_reached) {
  OwnMachine own("", false, std::nullopt);
  PresenceSnapshot snapshot = hubSaying(true, false, kT0);
  snapshot.nodes["studio"].host.clear();
  BOOST_TEST(checkTarget(own.attempt, snapshot, 1, kT0).skip->segment == "presence:no_address");
}

BOOST_AUTO_TEST_CASE(a_body_over_max_input_bytes_skips_the_endpoint_whatever_the_hub_says) {
  OwnMachine own("http://studio.lan:9000/v1", false, 1000);
  const PresenceSnapshot up = hubSaying(true, false, kT0);
  BOOST_TEST(!checkTarget(own.attempt, up, 1000, kT0).skip.has_value());
  const auto over = checkTarget(own.attempt, up, 1001, kT0);
  BOOST_REQUIRE(over.skip.has_value());
  BOOST_TEST(over.skip->segment == "skip:max_input_bytes");
  BOOST_TEST(over.skip->result == "skipped:max_input_bytes");
  BOOST_TEST(over.skip->detail.find("1001") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_endpoint_without_presence_or_limit_is_never_skipped) {
  sluice::catalog::Endpoint endpoint;
  endpoint.key = "anthropic/api";
  endpoint.url = "https://api.anthropic.com";
  sluice::dispatch::Attempt attempt;
  attempt.endpoint = &endpoint;
  const auto check = checkTarget(attempt, PresenceSnapshot{}, 1 << 30, kT0);
  BOOST_TEST(!check.skip.has_value());
  BOOST_TEST(check.base_url.empty());
}

BOOST_AUTO_TEST_CASE(base_urls_follow_the_wire_and_bracket_ipv6) {
  using sluice::catalog::Wire;
  BOOST_TEST(sluice::dispatch::presenceBaseUrl(Wire::Anthropic, "h", 1) == "http://h:1");
  BOOST_TEST(sluice::dispatch::presenceBaseUrl(Wire::OpenAIResponses, "h", 1) == "http://h:1/v1");
  BOOST_TEST(sluice::dispatch::presenceBaseUrl(Wire::OpenAIChat, "::1", 8081) == "http://[::1]:8081/v1");
}

BOOST_AUTO_TEST_CASE(the_hub_cannot_send_own_machine_traffic_outside_presence_hosts) {
  // Declaring none allows loopback only: a hub reporting a LAN or public address is not obeyed.
  OwnMachine own("", false, std::nullopt);
  own.endpoint.presence_hosts.clear();
  PresenceSnapshot snapshot = hubSaying(true, false, kT0);
  const auto refused = checkTarget(own.attempt, snapshot, 1, kT0);
  BOOST_REQUIRE(refused.skip.has_value());
  BOOST_TEST(refused.skip->segment == "presence:host_not_allowed");
  BOOST_TEST(refused.skip->result == "skipped:presence");
  BOOST_TEST(refused.skip->detail.find("'10.0.0.7'") != std::string::npos, refused.skip->detail);
  BOOST_TEST(refused.base_url.empty());
  for (const char* host : {"127.0.0.1", "127.8.0.1", "::1", "localhost"}) {
    snapshot.nodes["studio"].host = host;
    BOOST_TEST(!checkTarget(own.attempt, snapshot, 1, kT0).skip.has_value(), host);
  }
  // A DNS name is never checked against address blocks: refused, whatever it resolves to.
  for (const char* host : {"evil.example", "studio.lan", "8.8.8.8", "::ffff:8.8.8.8", "169.254.169.254"}) {
    snapshot.nodes["studio"].host = host;
    BOOST_TEST(checkTarget(own.attempt, snapshot, 1, kT0).skip->segment == "presence:host_not_allowed", host);
  }
  // Declared blocks replace the default.
  own.endpoint.presence_hosts = {*sluice::catalog::parseCidr("192.168.5.0/24")};
  snapshot.nodes["studio"].host = "192.168.5.20";
  BOOST_TEST(checkTarget(own.attempt, snapshot, 1, kT0).base_url == "http://192.168.5.20:8081/v1");
  snapshot.nodes["studio"].host = "127.0.0.1";
  BOOST_TEST(checkTarget(own.attempt, snapshot, 1, kT0).skip->segment == "presence:host_not_allowed");
}

BOOST_AUTO_TEST_CASE(an_address_from_the_hub_gets_no_credential_the_endpoint_did_not_declare) {
  OwnMachine own("", false, std::nullopt);
  BOOST_TEST(sluice::dispatch::sendsCredential(own.endpoint, ""));  // its own url: the provider's credential
  BOOST_TEST(!sluice::dispatch::sendsCredential(own.endpoint, "http://127.0.0.1:8081/v1"));
  own.endpoint.credential_id = "studio-token";
  BOOST_TEST(sluice::dispatch::sendsCredential(own.endpoint, "http://127.0.0.1:8081/v1"));
}

BOOST_AUTO_TEST_SUITE_END()
