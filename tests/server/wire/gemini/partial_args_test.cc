#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/partial_args.h"
#include "tests/server/wire/gemini/test_support.h"

namespace sluice::wire::gemini {
namespace {

// Applies each array in turn; checks the concatenated text parses to value() and returns it.
std::string writeAll(PartialArgsWriter& writer, const std::vector<std::string>& pieces) {
  std::string text;
  for (const std::string& piece : pieces) text += writer.apply(Json::parse(piece));
  text += writer.close();
  const Json parsed = Json::parse(text, nullptr, false);
  BOOST_TEST_REQUIRE(!parsed.is_discarded(), "not JSON: " << text);
  BOOST_TEST(test::plain(parsed) == test::plain(writer.value()), text);
  return text;
}

BOOST_AUTO_TEST_SUITE(partial_args)

BOOST_AUTO_TEST_CASE(continued_strings_append_to_the_same_value) {
  PartialArgsWriter writer;
  BOOST_TEST(writer.apply(Json::parse(R"([{"jsonPath":"$.location","stringValue":"San ","willContinue":true}])")) ==
             R"({"location":"San )");
  BOOST_TEST(writer.apply(Json::parse(R"([{"jsonPath":"$.location","stringValue":"Francisco","willContinue":true}])")) ==
             "Francisco");
  BOOST_TEST(writer.apply(Json::parse(R"([{"jsonPath":"$.location","stringValue":""}])")) == "\"");
  BOOST_TEST(writer.close() == "}");
  BOOST_TEST(writer.value().dump() == R"({"location":"San Francisco"})");
}

BOOST_AUTO_TEST_CASE(nested_objects_and_arrays_are_written_in_order) {
  PartialArgsWriter writer;
  const std::string text = writeAll(writer, {
      R"([{"jsonPath":"$.recipe.ingredients[0].amount","stringValue":"16 oz","willContinue":true}])",
      R"([{"jsonPath":"$.recipe.ingredients[0].amount","stringValue":""}])",
      R"([{"jsonPath":"$.recipe.ingredients[0].name","stringValue":"Noodles"}])",
      R"([{"jsonPath":"$.recipe.ingredients[1].amount","stringValue":"1 lb"},
          {"jsonPath":"$.recipe.ingredients[1].name","stringValue":"Beef \"80/20\""}])",
      R"([{"jsonPath":"$.recipe.servings","numberValue":6},{"jsonPath":"$.recipe.vegan","boolValue":false},
          {"jsonPath":"$.note","nullValue":null}])",
  });
  BOOST_TEST(text ==
             R"({"recipe":{"ingredients":[{"amount":"16 oz","name":"Noodles"},{"amount":"1 lb","name":"Beef \"80/20\""}],"servings":6,"vegan":false},"note":null})");
}

BOOST_AUTO_TEST_CASE(skipped_array_indices_are_padded_with_null) {
  PartialArgsWriter writer;
  const std::string text = writeAll(writer, {R"([{"jsonPath":"$.xs[2]","numberValue":1.5}])"});
  BOOST_TEST(text == R"({"xs":[null,null,1.5]})");
}

BOOST_AUTO_TEST_CASE(no_arguments_close_as_an_empty_object) {
  PartialArgsWriter writer;
  BOOST_TEST(writer.apply(Json::array()) == "");
  BOOST_TEST(writer.close() == "{}");
  BOOST_TEST(writer.value() == Json::object());
}

BOOST_AUTO_TEST_CASE(malformed_entries_are_skipped) {
  PartialArgsWriter writer;
  const std::string text = writeAll(writer, {
      R"([{"jsonPath":"","stringValue":"x"},{"jsonPath":"$.","stringValue":"x"},{"jsonPath":"$.a[b]","numberValue":1},
          {"jsonPath":"$.ok"},{"stringValue":"no path"},7,{"jsonPath":"$.good","numberValue":2}])",
      R"({"not":"an array"})",
  });
  BOOST_TEST(text == R"({"good":2})");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
