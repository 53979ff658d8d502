#include "server/scim/patch.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::scim;
using nlohmann::json;

BOOST_AUTO_TEST_SUITE(patch)

BOOST_AUTO_TEST_CASE(operation_names_in_any_case) {
  const auto body = json::parse(R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[
    {"op":"Replace","path":"active","value":"False"},{"op":"ADD","path":"displayName","value":"A"},
    {"op":"remove","path":"externalId"}]})");
  auto operations = parsePatch(body);
  BOOST_REQUIRE(operations);
  BOOST_REQUIRE_EQUAL(operations->size(), 3u);
  BOOST_TEST((operations->at(0).kind == PatchKind::Replace));
  BOOST_TEST((operations->at(1).kind == PatchKind::Add));
  BOOST_TEST((operations->at(2).kind == PatchKind::Remove));
}

BOOST_AUTO_TEST_CASE(a_path_less_object_becomes_one_operation_per_member) {
  // Okta's deactivation.
  const auto body = json::parse(R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    "Operations":[{"op":"replace","value":{"active":false,"name.givenName":"Al"}}]})");
  auto operations = parsePatch(body);
  BOOST_REQUIRE(operations);
  BOOST_REQUIRE_EQUAL(operations->size(), 2u);
  BOOST_TEST(operations->at(0).path->attribute == "active");
  BOOST_TEST(operations->at(0).value == false);
  BOOST_TEST(operations->at(1).path->attribute == "name");
  BOOST_TEST(operations->at(1).path->sub_attribute == "givenname");
}

BOOST_AUTO_TEST_CASE(paths_with_filters_and_sub_attributes_split) {
  auto email = parsePath("emails[type eq \"work\"].value");
  BOOST_REQUIRE(email);
  BOOST_TEST(email->attribute == "emails");
  BOOST_TEST(email->filter->attribute == "type");
  BOOST_TEST(email->filter->value == "work");
  BOOST_TEST(email->sub_attribute == "value");
  auto member = parsePath("members[value eq \"2819c223-7f76-453a-919d-413861904646\"]");
  BOOST_REQUIRE(member);
  BOOST_TEST(member->attribute == "members");
  BOOST_TEST(member->filter->value == "2819c223-7f76-453a-919d-413861904646");
  auto urn = parsePath("urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department");
  BOOST_REQUIRE(urn);
  BOOST_TEST(urn->attribute == "urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:department");
  BOOST_TEST(urn->sub_attribute.empty());
  BOOST_TEST(!parsePath("members[value eq \"x\""));
}

BOOST_AUTO_TEST_CASE(booleans_as_entra_writes_them) {
  BOOST_TEST((booleanOf(json("False")) == std::optional<bool>(false)));
  BOOST_TEST((booleanOf(json("TRUE")) == std::optional<bool>(true)));
  BOOST_TEST((booleanOf(json(true)) == std::optional<bool>(true)));
  BOOST_TEST(!booleanOf(json("no")));
  BOOST_TEST(!booleanOf(json(0)));
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_a_patch) {
  BOOST_TEST(parsePatch(json::parse(R"({"op":"replace"})")).error().scim_type == "invalidSyntax");
  BOOST_TEST(parsePatch(json::parse(R"({"Operations":[{"op":"move","path":"a"}]})")).error().scim_type ==
             "invalidSyntax");
  BOOST_TEST(parsePatch(json::parse(R"({"Operations":[{"op":"remove"}]})")).error().scim_type == "noTarget");
  BOOST_TEST(parsePatch(json::parse(R"({"Operations":[{"op":"replace","value":5}]})")).error().scim_type ==
             "invalidSyntax");
  json many = {{"Operations", json::array()}};
  for (int i = 0; i < 1001; ++i) many["Operations"].push_back({{"op", "add"}, {"path", "displayName"}, {"value", "x"}});
  BOOST_TEST(parsePatch(many).error().scim_type == "tooMany");
}

BOOST_AUTO_TEST_SUITE_END()
