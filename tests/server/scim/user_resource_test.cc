#include "server/scim/user_resource.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::scim;
using nlohmann::json;

namespace {

UserFields applied(UserFields user, const char* body) {
  auto operations = parsePatch(json::parse(body));
  BOOST_REQUIRE_MESSAGE(operations, body);
  auto changed = applyUserPatch(std::move(user), *operations);
  BOOST_REQUIRE_MESSAGE(changed, (changed ? "" : changed.error().detail));
  return *changed;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(user_resource)

BOOST_AUTO_TEST_CASE(reads_the_user_okta_creates) {
  const auto body = json::parse(R"({"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
    "userName":"alice@example.com","name":{"givenName":"Alice","familyName":"Liddell"},
    "emails":[{"primary":true,"value":"alice@example.com","type":"work"}],"displayName":"Alice Liddell",
    "locale":"en-US","externalId":"00u1abcd","groups":[],"password":"never-kept","active":true})");
  auto user = userFromJson(body);
  BOOST_REQUIRE(user);
  BOOST_TEST(user->user_name == "alice@example.com");
  BOOST_TEST(*user->given_name == "Alice");
  BOOST_TEST(*user->family_name == "Liddell");
  BOOST_TEST(*user->display_name == "Alice Liddell");
  BOOST_TEST(*user->email == "alice@example.com");
  BOOST_TEST(*user->external_id == "00u1abcd");
  BOOST_TEST(user->active);
}

BOOST_AUTO_TEST_CASE(reads_the_user_entra_creates) {
  const auto body = json::parse(R"({"schemas":["urn:ietf:params:scim:schemas:core:2.0:User",
    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],"externalId":"bob","userName":"bob@contoso.com",
    "active":"False","emails":[{"primary":false,"type":"home","value":"bob@home.example"},
    {"primary":true,"type":"work","value":"bob@contoso.com"}],"meta":{"resourceType":"User"},
    "name":{"formatted":"Bob Jones","familyName":"Jones","givenName":"Bob"},"roles":[],
    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"department":"R&D"}})");
  auto user = userFromJson(body);
  BOOST_REQUIRE(user);
  BOOST_TEST(!user->active);  // "False", a string
  BOOST_TEST(*user->email == "bob@contoso.com");  // the primary one
  BOOST_TEST(*user->display_name == "Bob Jones");
}

BOOST_AUTO_TEST_CASE(refuses_bad_kept_attributes) {
  BOOST_TEST(userFromJson(json::parse(R"({"displayName":"x"})")).error().scim_type == "invalidValue");
  BOOST_TEST(userFromJson(json::parse(R"({"userName":5})")).error().scim_type == "invalidValue");
  BOOST_TEST(userFromJson(json::parse(R"({"userName":"a","active":"maybe"})")).error().scim_type == "invalidValue");
  BOOST_TEST(userFromJson(json::parse(R"({"userName":"a","displayName":"bell\u0007"})")).error().scim_type ==
             "invalidValue");
  BOOST_TEST(userFromJson(json{{"userName", "a"}, {"externalId", std::string(513, 'x')}}).error().scim_type ==
             "invalidValue");
  BOOST_TEST(userFromJson(json{{"userName", "a"}, {"emails", {{{"value", std::string(321, 'x')}}}}}).error().scim_type ==
             "invalidValue");
}

BOOST_AUTO_TEST_CASE(entra_patches_apply) {
  UserFields user{"bob@contoso.com", "bob", std::string("Bob"), std::nullopt, std::nullopt, std::string("bob@contoso.com"), true};
  const auto changed = applied(user, R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[
    {"op":"Replace","path":"active","value":"False"},
    {"op":"Add","path":"name.givenName","value":"Robert"},
    {"op":"Replace","path":"emails[type eq \"work\"].value","value":"robert@contoso.com"},
    {"op":"Add","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department","value":"Ops"},
    {"op":"Replace","path":"displayName","value":"Robert Jones"}]})");
  BOOST_TEST(!changed.active);
  BOOST_TEST(*changed.given_name == "Robert");
  BOOST_TEST(*changed.email == "robert@contoso.com");
  BOOST_TEST(*changed.display_name == "Robert Jones");
  const auto back = applied(changed, R"({"Operations":[{"op":"Replace","path":"active","value":"True"}]})");
  BOOST_TEST(back.active);
}

BOOST_AUTO_TEST_CASE(okta_patches_apply) {
  UserFields user{"alice@example.com", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true};
  const auto off = applied(user, R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    "Operations":[{"op":"replace","value":{"active":false}}]})");
  BOOST_TEST(!off.active);
  const auto named = applied(off, R"({"Operations":[{"op":"replace","value":{"name":{"givenName":"Al","familyName":"L"},
    "emails":[{"value":"al@example.com","primary":true}]}}]})");
  BOOST_TEST(*named.given_name == "Al");
  BOOST_TEST(*named.family_name == "L");
  BOOST_TEST(*named.email == "al@example.com");
  const auto removed = applied(named, R"({"Operations":[{"op":"remove","path":"name.familyName"}]})");
  BOOST_TEST(!removed.family_name);
}

BOOST_AUTO_TEST_CASE(user_name_cannot_be_removed_and_active_must_be_a_boolean) {
  UserFields user{"a", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true};
  auto remove = applyUserPatch(user, *parsePatch(json::parse(R"({"Operations":[{"op":"remove","path":"userName"}]})")));
  BOOST_TEST(remove.error().scim_type == "mutability");
  auto active = applyUserPatch(user, *parsePatch(json::parse(R"({"Operations":[{"op":"replace","path":"active","value":"off"}]})")));
  BOOST_TEST(active.error().scim_type == "invalidValue");
}

BOOST_AUTO_TEST_CASE(renders_the_kept_attributes_and_the_gateway_extension) {
  UserView view;
  view.id = "2819c223-7f76-453a-919d-413861904646";
  view.fields = {"alice", std::string("00u1"), std::string("Alice L"), std::string("Alice"), std::nullopt,
                 std::string("alice@example.com"), false};
  view.created = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  view.last_modified = view.created;
  view.source = "scim";
  view.role = "member";
  view.groups = {"eng"};
  const json body = renderUser(view, "https://gw.example.com/scim/v2");
  BOOST_TEST(body["id"] == view.id);
  BOOST_TEST(body["userName"] == "alice");
  BOOST_TEST(body["active"] == false);
  BOOST_TEST(body["externalId"] == "00u1");
  BOOST_TEST(body["name"]["formatted"] == "Alice L");
  BOOST_TEST(body["name"]["givenName"] == "Alice");
  BOOST_TEST(body["emails"][0]["value"] == "alice@example.com");
  BOOST_TEST(body["emails"][0]["primary"] == true);
  BOOST_TEST(body["groups"][0]["display"] == "eng");
  BOOST_TEST(body["urn:ietf:params:scim:schemas:extension:sluice:2.0:User"]["source"] == "scim");
  BOOST_TEST(body["meta"]["resourceType"] == "User");
  BOOST_TEST(body["meta"]["created"] == "2023-11-14T22:13:20Z");
  BOOST_TEST(body["meta"]["location"] == "https://gw.example.com/scim/v2/Users/" + view.id);
}

BOOST_AUTO_TEST_SUITE_END()
