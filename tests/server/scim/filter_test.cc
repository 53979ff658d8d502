#include "server/scim/filter.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::scim;

BOOST_AUTO_TEST_SUITE(filter)

BOOST_AUTO_TEST_CASE(reads_the_lookups_okta_and_entra_send) {
  auto okta = parseFilter("userName eq \"alice@example.com\"");
  BOOST_REQUIRE(okta);
  BOOST_TEST(okta->attribute == "username");
  BOOST_TEST(okta->value == "alice@example.com");
  auto entra = parseFilter("externalId eq \"6c2f1e43-0a9f-4f5e-9b1c-3d2e1f0a9b8c\"");
  BOOST_REQUIRE(entra);
  BOOST_TEST(entra->attribute == "externalid");
  auto group = parseFilter("displayName eq \"Platform Admins\"");
  BOOST_REQUIRE(group);
  BOOST_TEST(group->attribute == "displayname");
  BOOST_TEST(group->value == "Platform Admins");
}

BOOST_AUTO_TEST_CASE(attribute_and_operator_names_in_any_case_and_the_core_urn_removed) {
  auto upper = parseFilter("USERNAME EQ \"bob\"");
  BOOST_REQUIRE(upper);
  BOOST_TEST(upper->attribute == "username");
  auto urn = parseFilter("urn:ietf:params:scim:schemas:core:2.0:User:userName eq \"bob\"");
  BOOST_REQUIRE(urn);
  BOOST_TEST(urn->attribute == "username");
  auto sub = parseFilter("emails.value eq \"b@x.io\"");
  BOOST_REQUIRE(sub);
  BOOST_TEST(sub->attribute == "emails.value");
}

BOOST_AUTO_TEST_CASE(json_escapes_in_the_value_are_decoded) {
  auto escaped = parseFilter(R"(displayName eq "a \"quoted\" name\u00e9")");
  BOOST_REQUIRE(escaped);
  BOOST_TEST(escaped->value == "a \"quoted\" name\xc3\xa9");
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_served_with_invalid_filter) {
  for (const char* text : {"userName sw \"a\"", "userName eq \"a\" and active eq true", "userName eq alice",
                           "userName eq \"open", "", "eq \"x\"", "active eq true", "userName pr"}) {
    auto refused = parseFilter(text);
    BOOST_REQUIRE_MESSAGE(!refused, text);
    BOOST_TEST(refused.error().status == 400);
    BOOST_TEST(refused.error().scim_type == "invalidFilter");
  }
  BOOST_TEST(!parseFilter("userName eq \"" + std::string(2000, 'a') + "\""));
}

BOOST_AUTO_TEST_SUITE_END()
