#include "catalog/yaml_reader.h"

#include <boost/test/unit_test.hpp>

namespace sluice::catalog {
namespace {

// Parses `text`, whose root is a mapping, and reads its entries with `allowed` keys.
struct Fixture {
  Environment env = {{"PORT", "8089"}};
  DiagnosticSink sink;
  YamlReader reader{"f.yaml", env, sink};
  std::vector<Diagnostic> diagnostics;

  Fields read(std::string_view text, std::initializer_list<std::string_view> allowed = {}) {
    std::optional<YAML::Node> root = reader.parse(text);
    BOOST_REQUIRE(root.has_value());
    return reader.fields(*root, {"f.yaml", 1, 1}, "thing 'x'", allowed);
  }
  const Entry& entry(const Fields& fields, std::string_view key) {
    const Entry* found = fields.find(key);
    BOOST_REQUIRE(found != nullptr);
    return *found;
  }
  std::string only() {
    diagnostics = sink.take();
    BOOST_REQUIRE_EQUAL(diagnostics.size(), 1u);
    return diagnostics.front().format();
  }
};

BOOST_AUTO_TEST_SUITE(yaml_reader)

BOOST_FIXTURE_TEST_CASE(syntax_errors_are_reported_one_based, Fixture) {
  BOOST_TEST(!reader.parse("a: [1, 2\nb: 3\n").has_value());
  std::string message = only();
  BOOST_TEST(message.starts_with("f.yaml:2:2: error: YAML syntax error: "), message);
}

BOOST_FIXTURE_TEST_CASE(unknown_keys_list_the_expected_ones_and_suggest_a_near_miss, Fixture) {
  Fields fields = read("name: a\npricng: 1\n", {"name", "pricing", "limits"});
  BOOST_TEST(fields.ok());
  BOOST_TEST(fields.entries().size() == 1u);
  BOOST_TEST(only() == "f.yaml:2:1: error: unknown key 'pricng' in thing 'x'; expected one of: name, "
                       "pricing, limits (did you mean 'pricing'?)");
}

BOOST_FIXTURE_TEST_CASE(unknown_keys_far_from_any_expected_one_get_no_suggestion, Fixture) {
  read("zzzzzz: 1\n", {"name"});
  BOOST_TEST(only().ends_with("expected one of: name"));
}

BOOST_FIXTURE_TEST_CASE(duplicate_keys_are_reported_and_the_first_wins, Fixture) {
  Fields fields = read("a: 1\nb: 2\na: 3\n");
  BOOST_TEST(only() == "f.yaml:3:1: error: duplicate key 'a' in thing 'x'; first defined at line 1");
  BOOST_TEST(fields.find("a")->value.Scalar() == "1");
}

BOOST_FIXTURE_TEST_CASE(a_non_mapping_is_refused_with_what_was_found, Fixture) {
  std::optional<YAML::Node> root = reader.parse("[1, 2]");
  Fields fields = reader.fields(*root, {"f.yaml", 1, 1}, "thing 'x'");
  BOOST_TEST(!fields.ok());
  BOOST_TEST(only() == "f.yaml:1:1: error: thing 'x' must be a mapping, got a list");
}

BOOST_FIXTURE_TEST_CASE(a_null_value_is_placed_at_its_key, Fixture) {
  Fields fields = read("a:\nb: 2\n");
  const Entry& a = entry(fields, "a");
  BOOST_TEST(a.value_at.line == 1);
  BOOST_TEST(a.value_at.column == 1);
  BOOST_TEST(!reader.string(a, "a of x").has_value());
  BOOST_TEST(only() == "f.yaml:1:1: error: a of x must be a string, got nothing");
}

BOOST_FIXTURE_TEST_CASE(strings_are_interpolated, Fixture) {
  Fields fields = read("url: \"http://localhost:${PORT}\"\n");
  BOOST_TEST(*reader.string(entry(fields, "url"), "url") == "http://localhost:8089");
}

BOOST_FIXTURE_TEST_CASE(interpolation_errors_name_the_value_and_its_place, Fixture) {
  Fields fields = read("x: 1\nurl: ${NOPE}\n");
  BOOST_TEST(!reader.string(entry(fields, "url"), "url of endpoint 'a/b'").has_value());
  BOOST_TEST(only() == "f.yaml:2:6: error: url of endpoint 'a/b': environment variable NOPE is not "
                       "set (write ${NOPE:-default} to give a default)");
}

BOOST_FIXTURE_TEST_CASE(integers_are_range_checked_with_the_expectation_named, Fixture) {
  Fields fields = read("a: 3\nb: 0\nc: 1.5\nd: 30\ne: \"${PORT}\"\n");
  BOOST_TEST(*reader.integer(entry(fields, "a"), "a", 1) == 3);
  BOOST_TEST(*reader.integer(entry(fields, "e"), "e", 1) == 8089);
  BOOST_TEST(!reader.integer(entry(fields, "b"), "weight", 1).has_value());
  BOOST_TEST(only() == "f.yaml:2:4: error: weight must be a positive integer, got '0'");
  BOOST_TEST(!reader.integer(entry(fields, "c"), "c", 0).has_value());
  BOOST_TEST(only() == "f.yaml:3:4: error: c must be a non-negative integer, got '1.5'");
  BOOST_TEST(!reader.integer(entry(fields, "d"), "seconds", 60, 2678400).has_value());
  BOOST_TEST(only() == "f.yaml:4:4: error: seconds must be an integer from 60 to 2678400, got '30'");
}

BOOST_FIXTURE_TEST_CASE(booleans_are_true_or_false_only, Fixture) {
  Fields fields = read("a: true\nb: False\nc: yes\nd: [x]\n");
  BOOST_TEST(*reader.boolean(entry(fields, "a"), "a") == true);
  BOOST_TEST(*reader.boolean(entry(fields, "b"), "b") == false);
  BOOST_TEST(!reader.boolean(entry(fields, "c"), "european").has_value());
  BOOST_TEST(only() == "f.yaml:3:4: error: european must be true or false, got 'yes'");
  BOOST_TEST(!reader.boolean(entry(fields, "d"), "european").has_value());
  BOOST_TEST(only() == "f.yaml:4:4: error: european must be true or false, got a list");
}

BOOST_FIXTURE_TEST_CASE(dollar_amounts_become_microdollars_rounded_to_nearest, Fixture) {
  Fields fields = read("a: 0.132\nb: 2\nc: 0.0000005\nd: 1e-3\ne: 3.0000004\nf: 0\n");
  BOOST_TEST(*reader.usdMicros(entry(fields, "a"), "a") == 132000);
  BOOST_TEST(*reader.usdMicros(entry(fields, "b"), "b") == 2000000);
  BOOST_TEST(*reader.usdMicros(entry(fields, "c"), "c") == 1);
  BOOST_TEST(*reader.usdMicros(entry(fields, "d"), "d") == 1000);
  BOOST_TEST(*reader.usdMicros(entry(fields, "e"), "e") == 3000000);
  BOOST_TEST(*reader.usdMicros(entry(fields, "f"), "f") == 0);
  BOOST_TEST(sink.take().empty());
}

BOOST_FIXTURE_TEST_CASE(dollar_amounts_refuse_negatives_and_non_numbers, Fixture) {
  Fields fields = read("a: -0.5\nb: cheap\nc: .nan\n");
  for (std::string_view key : {"a", "b", "c"}) {
    BOOST_TEST(!reader.usdMicros(entry(fields, key), "price").has_value());
    BOOST_TEST(only().find("price must be a non-negative number of US dollars") != std::string::npos);
  }
}

BOOST_FIXTURE_TEST_CASE(string_lists_accept_a_single_string_only_when_asked, Fixture) {
  Fields fields = read("a: [x, y]\nb: solo\nc:\n");
  auto a = reader.stringList(entry(fields, "a"), "a");
  BOOST_TEST(a->size() == 2u);
  BOOST_TEST(a->at(1).value == "y");
  BOOST_TEST(a->at(1).where.column == 8);
  BOOST_TEST(reader.stringList(entry(fields, "b"), "b", true)->size() == 1u);
  BOOST_TEST(reader.stringList(entry(fields, "c"), "c")->empty());
  BOOST_TEST(!reader.stringList(entry(fields, "b"), "clients").has_value());
  BOOST_TEST(only() == "f.yaml:2:4: error: clients must be a list of strings, got 'solo'");
}

BOOST_FIXTURE_TEST_CASE(string_list_items_of_the_wrong_type_are_reported_and_skipped, Fixture) {
  Fields fields = read("a: [x, {k: v}, z]\n");
  auto a = reader.stringList(entry(fields, "a"), "clients of model 'm'");
  BOOST_TEST(a->size() == 2u);
  BOOST_TEST(only() == "f.yaml:1:8: error: each item of clients of model 'm' must be a string, got a mapping");
}

BOOST_FIXTURE_TEST_CASE(choice_lists_the_options_on_a_miss, Fixture) {
  Fields fields = read("s: fastest\n");
  auto strategy = reader.choice<int>(entry(fields, "s"), "strategy of route 'r'",
                                     {{"ordered", 0}, {"weighted", 1}});
  BOOST_TEST(!strategy.has_value());
  BOOST_TEST(only() == "f.yaml:1:4: error: strategy of route 'r' must be one of: ordered, weighted; got 'fastest'");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog

namespace sluice::catalog {
namespace {

std::string blockNesting(int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += std::string(2 * i, ' ') + "k" + std::to_string(i) + ":\n";
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(yaml_nesting)

BOOST_AUTO_TEST_CASE(catalog_shaped_text_is_far_from_the_bound) {
  const std::string text =
      "gateway:\n  default_model: m  # a comment with [[[ brackets\n  routes:\n    - id: r\n      match: { paths: ['/v1/[x'] }\n"
      "      chain:\n        - - a\n          - b\n  note: \"quoted [[[{{{ and \\\" escapes\"\n  other: 'it''s [ fine'\n";
  // It counts a sequence entry's indentation as a level of its own: at most one more than yaml-cpp.
  BOOST_TEST(!yamlNestsDeeperThan(text, 7).has_value());
  BOOST_TEST(yamlNestsDeeperThan(text, 6).value() == 7);
}

BOOST_AUTO_TEST_CASE(each_kind_of_nesting_is_counted) {
  BOOST_TEST(!yamlNestsDeeperThan(blockNesting(64), 64).has_value());
  BOOST_TEST(yamlNestsDeeperThan(blockNesting(65), 64).value() == 65);
  // Flow brackets after a key at the root: one block level plus the brackets.
  BOOST_TEST(!yamlNestsDeeperThan("a: " + std::string(63, '[') + std::string(63, ']'), 64).has_value());
  BOOST_TEST(yamlNestsDeeperThan("a: " + std::string(64, '[') + std::string(64, ']'), 64).value() == 1);
  // Brackets spanning lines, and dashes opening sequences on one line.
  BOOST_TEST(yamlNestsDeeperThan("a: [\n" + std::string(70, '{') + "\n", 64).value() == 2);
  std::string dashes;
  for (int i = 0; i < 70; ++i) dashes += "- ";
  BOOST_TEST(yamlNestsDeeperThan(dashes + "x\n", 64).value() == 1);
  // Closing brackets inside a quoted string close nothing.
  BOOST_TEST(yamlNestsDeeperThan("a: " + std::string(40, '[') + " '" + std::string(40, ']') + "' " + std::string(40, '['), 64)
                 .has_value());
}

// What yaml-cpp would recurse on thousands deep is refused before it parses, with a diagnostic.
BOOST_AUTO_TEST_CASE(the_reader_refuses_deep_nesting_with_a_diagnostic) {
  Fixture f;
  BOOST_TEST(!f.reader.parse("a: " + std::string(100000, '[') + std::string(100000, ']')).has_value());
  BOOST_TEST(f.only() == "f.yaml:1:1: error: YAML nests lists and mappings deeper than 64 levels; it is not read");
  BOOST_TEST(!f.reader.parse(blockNesting(3000)).has_value());
  BOOST_TEST(f.only().starts_with("f.yaml:65:1: error: YAML nests"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::catalog
