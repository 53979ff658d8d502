#include "server/identity/scope.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::identity;

namespace {

Caller alice() {
  Caller caller;
  caller.user = "alice";
  caller.projects = {"odoo-delivery", "research"};
  caller.primary_project = "research";
  caller.api_key_id = "Ab3dE6gH";
  return caller;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scope)

BOOST_AUTO_TEST_CASE(header_wins_for_a_project_of_the_caller) {
  const auto scope = attributeScope(alice(), "odoo-delivery");
  BOOST_REQUIRE(scope.has_value());
  BOOST_TEST(*scope->project == "odoo-delivery");
  BOOST_TEST(toString(scope->source) == "header");
  BOOST_TEST(attributeScope(alice(), "  odoo-delivery ")->project.value() == "odoo-delivery");
}

BOOST_AUTO_TEST_CASE(header_for_another_project_is_refused) {
  const auto scope = attributeScope(alice(), "payroll");
  BOOST_REQUIRE(!scope.has_value());
  BOOST_TEST(scope.error().project == "payroll");
  BOOST_TEST(scope.error().message == "scope denied: alice is not a member of project 'payroll'");
  const auto weird = attributeScope(alice(), std::string(300, 'x'));
  BOOST_REQUIRE(!weird.has_value());
  BOOST_TEST(weird.error().message.size() < 120u);
}

BOOST_AUTO_TEST_CASE(bound_key_then_primary_then_none) {
  Caller bound = alice();
  bound.key_project = "odoo-delivery";
  BOOST_TEST(attributeScope(bound, std::nullopt)->project.value() == "odoo-delivery");
  BOOST_TEST(toString(attributeScope(bound, std::nullopt)->source) == "key");
  BOOST_TEST(attributeScope(alice(), std::nullopt)->project.value() == "research");
  BOOST_TEST(toString(attributeScope(alice(), "")->source) == "primary");
  Caller none = alice();
  none.primary_project.reset();
  const auto scope = attributeScope(none, std::nullopt);
  BOOST_TEST(!scope->project.has_value());
  BOOST_TEST(toString(scope->source) == "none");
}

BOOST_AUTO_TEST_CASE(a_bound_key_cannot_be_scoped_to_another_project) {
  Caller bound = alice();
  bound.key_project = "odoo-delivery";
  BOOST_TEST(attributeScope(bound, "odoo-delivery")->project.value() == "odoo-delivery");
  const auto other = attributeScope(bound, "research");
  BOOST_REQUIRE(!other.has_value());
  BOOST_TEST(other.error().message.find("bound to project 'odoo-delivery'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_key_bound_to_a_project_the_member_left_is_refused) {
  Caller bound = alice();
  bound.key_project = "old-project";
  const auto scope = attributeScope(bound, std::nullopt);
  BOOST_REQUIRE(!scope.has_value());
  BOOST_TEST(scope.error().message.find("no longer belongs") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
