#include "server/protection/placeholder.h"

#include <boost/test/unit_test.hpp>

#include <string>

#include "server/protection/mapping.h"

namespace sluice::protection {
namespace {

using State = PlaceholderRead::State;

BOOST_AUTO_TEST_SUITE(placeholder)

BOOST_AUTO_TEST_CASE(placeholders_name_the_kind_in_upper_case) {
  BOOST_TEST(makePlaceholder(Kind::Email, 1) == "\u27e6EMAIL_1\u27e7");
  BOOST_TEST(makePlaceholder(Kind::ApiKey, 12) == "\u27e6API_KEY_12\u27e7");
  BOOST_TEST(makePlaceholder(Kind::UrlCredentials, kMaxPlaceholderNumber).size() == kMaxPlaceholderBytes);
  BOOST_TEST(placeholderName(Kind::PaymentCard) == "PAYMENT_CARD");
  BOOST_TEST(placeholderName(Kind::IpAddress) == "IP_ADDRESS");
}

BOOST_AUTO_TEST_CASE(reads_whole_partial_and_foreign_text) {
  const std::string whole = makePlaceholder(Kind::PaymentCard, 305);
  const PlaceholderRead read = readPlaceholder(whole + " tail", false);
  BOOST_TEST((read.state == State::Complete));
  BOOST_TEST(read.length == whole.size());
  BOOST_TEST((read.kind == Kind::PaymentCard));
  BOOST_TEST(read.number == 305);
  // Every proper prefix may still become a placeholder.
  for (size_t n = 1; n < whole.size(); ++n) {
    BOOST_TEST((readPlaceholder(whole.substr(0, n), false).state == State::Partial), n);
  }
  for (const std::string foreign : {"\u27e6EMAIL_0\u27e7", "\u27e6EMAIL_01\u27e7", "\u27e6EMAIL_123456\u27e7",
                                    "\u27e6EMAILS_1\u27e7", "\u27e6email_1\u27e7", "\u27e6EMAIL1\u27e7", "\u27e6EMAIL_1]",
                                    "\u2014 dash", "\u27e7", "[EMAIL_1]", "\u27e6FOO_1\u27e7"}) {
    BOOST_TEST((readPlaceholder(foreign, false).state == State::NoMatch), foreign);
  }
}

BOOST_AUTO_TEST_CASE(json_escaped_brackets_are_read_only_in_json_mode) {
  for (const std::string text : {"\\u27e6JWT_3\\u27e7", "\\u27E6JWT_3\\u27E7", "\u27e6JWT_3\\u27e7", "\\u27e6JWT_3\u27e7"}) {
    const PlaceholderRead read = readPlaceholder(text, true);
    BOOST_TEST((read.state == State::Complete), text);
    BOOST_TEST(read.length == text.size());
    BOOST_TEST(read.number == 3);
    for (size_t n = 1; n < text.size(); ++n) {
      BOOST_TEST((readPlaceholder(text.substr(0, n), true).state == State::Partial), text << " " << n);
    }
  }
  BOOST_TEST((readPlaceholder("\\u27e6JWT_3\\u27e7", false).state == State::NoMatch));
  BOOST_TEST((readPlaceholder("\\n", true).state == State::NoMatch));
  BOOST_TEST((readPlaceholder("\\u27e5", true).state == State::NoMatch));
}

BOOST_AUTO_TEST_CASE(json_escaping_covers_quotes_backslashes_and_controls) {
  BOOST_TEST(jsonEscape("a\"b\\c\nd\te\x01 \u00e9") == "a\\\"b\\\\c\\nd\\te\\u0001 \u00e9");
}

BOOST_AUTO_TEST_CASE(a_mapping_answers_only_what_it_minted) {
  Mapping mapping;
  mapping.assign(Kind::Email, 2, "bob@example.com");
  BOOST_TEST(mapping.size() == 1u);
  BOOST_TEST(*mapping.original(Kind::Email, 2) == "bob@example.com");
  BOOST_TEST(mapping.original(Kind::Email, 1) == nullptr);
  BOOST_TEST(mapping.original(Kind::Email, 3) == nullptr);
  BOOST_TEST(mapping.original(Kind::Phone, 2) == nullptr);
  BOOST_TEST(mapping.original(Kind::Email, 0) == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::protection
