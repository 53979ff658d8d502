#include "server/scim/group_resource.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::scim;
using nlohmann::json;

namespace {

using Ids = std::vector<std::string>;

GroupFields applied(GroupFields group, const char* body) {
  auto operations = parsePatch(json::parse(body));
  BOOST_REQUIRE_MESSAGE(operations, body);
  auto changed = applyGroupPatch(std::move(group), *operations);
  BOOST_REQUIRE_MESSAGE(changed, (changed ? "" : changed.error().detail));
  return *changed;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(group_resource)

BOOST_AUTO_TEST_CASE(reads_a_group_with_members) {
  auto group = groupFromJson(json::parse(R"({"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],
    "displayName":"Platform Admins","externalId":"8aa1","members":[{"value":"u1","display":"a"},{"value":"u2"},{"value":"u1"}]})"));
  BOOST_REQUIRE(group);
  BOOST_TEST(group->display_name == "Platform Admins");
  BOOST_TEST(*group->external_id == "8aa1");
  BOOST_TEST(group->member_ids == (Ids{"u1", "u2"}));
}

BOOST_AUTO_TEST_CASE(display_names_are_bounded) {
  BOOST_TEST(groupFromJson(json::parse(R"({"displayName":""})")).error().scim_type == "invalidValue");
  BOOST_TEST(groupFromJson(json{{"displayName", std::string(129, 'g')}}).error().scim_type == "invalidValue");
  BOOST_TEST(groupFromJson(json{{"displayName", std::string(128, 'g')}}).has_value());
  BOOST_TEST(groupFromJson(json::parse(R"({"displayName":"a\nb"})")).error().scim_type == "invalidValue");
  BOOST_TEST(groupFromJson(json::parse(R"({"members":[]})")).error().scim_type == "invalidValue");
  BOOST_TEST(groupFromJson(json::parse(R"({"displayName":"g","members":["u1"]})")).error().scim_type == "invalidValue");
}

BOOST_AUTO_TEST_CASE(entra_adds_and_removes_members_by_value_array) {
  GroupFields group{"eng", std::nullopt, {"u1"}};
  group = applied(group, R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[
    {"op":"Add","path":"members","value":[{"value":"u2"},{"value":"u3"}]}]})");
  BOOST_TEST(group.member_ids == (Ids{"u1", "u2", "u3"}));
  group = applied(group, R"({"Operations":[{"op":"Remove","path":"members","value":[{"value":"u1"}]}]})");
  BOOST_TEST(group.member_ids == (Ids{"u2", "u3"}));
  group = applied(group, R"({"Operations":[{"op":"Replace","path":"displayName","value":"engineering"}]})");
  BOOST_TEST(group.display_name == "engineering");
}

BOOST_AUTO_TEST_CASE(okta_removes_a_member_by_filtered_path_and_renames_without_a_path) {
  GroupFields group{"eng", std::nullopt, {"u1", "u2"}};
  group = applied(group, R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[
    {"op":"remove","path":"members[value eq \"u1\"]"}]})");
  BOOST_TEST(group.member_ids == (Ids{"u2"}));
  group = applied(group, R"({"Operations":[{"op":"replace","value":{"id":"g1","displayName":"Engineering"}}]})");
  BOOST_TEST(group.display_name == "Engineering");
  group = applied(group, R"({"Operations":[{"op":"replace","path":"members","value":[{"value":"u9"}]}]})");
  BOOST_TEST(group.member_ids == (Ids{"u9"}));
  group = applied(group, R"({"Operations":[{"op":"remove","path":"members"}]})");
  BOOST_TEST(group.member_ids.empty());
}

BOOST_AUTO_TEST_CASE(refuses_removing_the_display_name_and_other_member_filters) {
  GroupFields group{"eng", std::nullopt, {}};
  auto removed = applyGroupPatch(group, *parsePatch(json::parse(R"({"Operations":[{"op":"remove","path":"displayName"}]})")));
  BOOST_TEST(removed.error().scim_type == "mutability");
  auto filtered = applyGroupPatch(group, *parsePatch(json::parse(R"({"Operations":[{"op":"remove","path":"members[display eq \"a\"]"}]})")));
  BOOST_TEST(filtered.error().scim_type == "invalidFilter");
}

BOOST_AUTO_TEST_CASE(renders_members_unless_excluded) {
  GroupView view{"g1", "eng", std::string("x1"), {{"u1", "alice"}}, {}, {}};
  const json full = renderGroup(view, "https://gw/scim/v2");
  BOOST_TEST(full["members"][0]["value"] == "u1");
  BOOST_TEST(full["members"][0]["display"] == "alice");
  BOOST_TEST(full["members"][0]["$ref"] == "https://gw/scim/v2/Users/u1");
  BOOST_TEST(full["meta"]["location"] == "https://gw/scim/v2/Groups/g1");
  BOOST_TEST(!renderGroup(view, "https://gw/scim/v2", false).contains("members"));
}

BOOST_AUTO_TEST_SUITE_END()
