#include "server/scim/listing.h"

#include <boost/test/unit_test.hpp>

#include "server/scim/discovery.h"
#include "server/scim/scim_error.h"

using namespace sluice::scim;

BOOST_AUTO_TEST_SUITE(listing)

BOOST_AUTO_TEST_CASE(paging_is_bounded_and_one_based) {
  auto list = parseListQuery({{"startIndex", "0"}, {"count", "5000"}});
  BOOST_REQUIRE(list);
  BOOST_TEST(list->start_index == 1u);
  BOOST_TEST(list->count == 200u);
  auto negative = parseListQuery({{"count", "-3"}});
  BOOST_TEST(negative->count == 0u);
  BOOST_TEST(parseListQuery({{"count", "ten"}}).error().scim_type == "invalidValue");
  BOOST_TEST(parseListQuery({}).value().count == 100u);
}

BOOST_AUTO_TEST_CASE(reads_entra_group_lookup) {
  auto list = parseListQuery({{"filter", "displayName eq \"Sales\""}, {"excludedAttributes", "members"}});
  BOOST_REQUIRE(list);
  BOOST_TEST(list->filter->attribute == "displayname");
  BOOST_TEST(list->without_members);
  BOOST_TEST(parseListQuery({{"filter", "displayName co \"S\""}}).error().scim_type == "invalidFilter");
}

BOOST_AUTO_TEST_CASE(list_and_error_bodies_are_rfc_shaped) {
  const auto body = listResponse(nlohmann::json::array({{{"id", "a"}}}), 7, 3);
  BOOST_TEST(body["schemas"][0] == "urn:ietf:params:scim:api:messages:2.0:ListResponse");
  BOOST_TEST(body["totalResults"] == 7);
  BOOST_TEST(body["startIndex"] == 3);
  BOOST_TEST(body["itemsPerPage"] == 1);
  const auto error = errorBody({409, "uniqueness", "taken"});
  BOOST_TEST(error["status"] == "409");  // a string
  BOOST_TEST(error["scimType"] == "uniqueness");
  BOOST_TEST(!errorBody({404, "", "none"}).contains("scimType"));
}

BOOST_AUTO_TEST_CASE(the_service_provider_config_is_honest) {
  const auto config = serviceProviderConfig("https://gw/scim/v2");
  BOOST_TEST(config["patch"]["supported"] == true);
  BOOST_TEST(config["filter"]["supported"] == true);
  BOOST_TEST(config["filter"]["maxResults"] == 200);
  BOOST_TEST(config["bulk"]["supported"] == false);
  BOOST_TEST(config["sort"]["supported"] == false);
  BOOST_TEST(config["etag"]["supported"] == false);
  BOOST_TEST(config["changePassword"]["supported"] == false);
  BOOST_TEST(resourceTypes("https://gw/scim/v2")["totalResults"] == 2);
  BOOST_TEST(schemas("https://gw/scim/v2")["Resources"].size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()

#include "server/scim/body.h"

BOOST_AUTO_TEST_SUITE(body)

BOOST_AUTO_TEST_CASE(bodies_are_bounded_before_parsing) {
  BOOST_TEST(parseBody(R"({"userName":"a"})").has_value());
  BOOST_TEST(parseBody("{not json").error().scim_type == "invalidSyntax");
  BOOST_TEST(parseBody(std::string(40, '[') + std::string(40, ']')).error().scim_type == "invalidSyntax");
  BOOST_TEST(parseBody(R"({"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["})").has_value());  // inside a string
  BOOST_TEST(parseBody(std::string((1 << 20) + 1, ' ')).error().status == 413);
}

BOOST_AUTO_TEST_SUITE_END()
