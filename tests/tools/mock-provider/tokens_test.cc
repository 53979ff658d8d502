#include "tools/mock-provider/tokens.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::mock;

namespace {
std::string join(const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& piece : pieces) out += piece;
  return out;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(tokens)

BOOST_AUTO_TEST_CASE(counts_a_quarter_of_the_bytes_rounded_up) {
  BOOST_TEST(countTokens("") == 0);
  BOOST_TEST(countTokens("a") == 1);
  BOOST_TEST(countTokens("abcd") == 1);
  BOOST_TEST(countTokens("Hello") == 2);
}

BOOST_AUTO_TEST_CASE(splits_words_keeping_the_leading_space) {
  const auto pieces = splitWords("Hello from the mock");
  BOOST_TEST_REQUIRE(pieces.size() == 4u);
  BOOST_TEST(pieces[0] == "Hello");
  BOOST_TEST(pieces[1] == " from");
  BOOST_TEST(join(splitWords("  two  spaces\nand lines ")) == "  two  spaces\nand lines ");
  BOOST_TEST(splitWords("").empty());
}

BOOST_AUTO_TEST_CASE(splits_fragments_without_cutting_utf8) {
  const std::string text = "{\"city\":\"Zürich—🙂\"}";
  for (std::size_t size = 1; size < 12; ++size) {
    const auto pieces = splitFragments(text, size);
    BOOST_TEST(join(pieces) == text);
    for (const auto& piece : pieces) {
      BOOST_TEST((static_cast<unsigned char>(piece.front()) & 0xC0) != 0x80);
    }
  }
  BOOST_TEST(splitFragments("abcdefghij", 4).size() == 3u);
}

BOOST_AUTO_TEST_CASE(encodes_base64_with_padding) {
  BOOST_TEST(base64Encode("") == "");
  BOOST_TEST(base64Encode("f") == "Zg==");
  BOOST_TEST(base64Encode("fo") == "Zm8=");
  BOOST_TEST(base64Encode("foo") == "Zm9v");
  BOOST_TEST(base64Encode("foobar") == "Zm9vYmFy");
}

BOOST_AUTO_TEST_SUITE_END()
