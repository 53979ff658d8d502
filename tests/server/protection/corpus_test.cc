// The corpora in tests/fixtures/protection/: code and log snippets no detector may flag (and that
// come back byte-identical after masking and restoring), and snippets with the values expected.
// Records are separated by a line "%%%". In true_positives.txt a record starts with lines
// "@ KIND VALUE" (the spans expected, in order; "\n" in VALUE is a line break); the rest of the
// record is the text.

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "server/protection/masker.h"
#include "server/protection/placeholder.h"
#include "server/protection/restorer.h"

namespace sluice::protection {
namespace {

namespace fs = std::filesystem;

std::string sourceDir() {
  const char* dir = std::getenv("SLUICE_SOURCE_DIR");
  return dir ? dir : SLUICE_SOURCE_DIR_DEFAULT;
}

std::vector<std::string> records(const std::string& name) {
  std::ifstream in(fs::path(sourceDir()) / "tests/fixtures/protection" / name, std::ios::binary);
  BOOST_TEST_REQUIRE(in.good(), name);
  std::vector<std::string> out;
  std::string line;
  std::string current;
  bool any = false;
  while (std::getline(in, line)) {
    if (line == "%%%") {
      if (any) out.push_back(current);
      current.clear();
      any = false;
      continue;
    }
    if (any) current += '\n';
    current += line;
    any = true;
  }
  if (any) out.push_back(current);
  return out;
}

const Detector& all() {
  static const Detector d =
      *Detector::create({Kind::Email, Kind::Phone, Kind::PaymentCard, Kind::Iban, Kind::ApiKey, Kind::Jwt,
                         Kind::PrivateKey, Kind::Password, Kind::UrlCredentials, Kind::IpAddress},
                        {});
  return d;
}

wire::Request requestOf(const std::string& text) {
  wire::Request request;
  wire::Message user;
  user.content.push_back(wire::ContentBlock::ofText(text));
  wire::ContentBlock result;
  result.type = wire::ContentBlock::Type::ToolResult;
  result.tool_use_id = "toolu_1";
  result.result.push_back(wire::ContentBlock::ofText(text));
  user.content.push_back(result);
  request.messages.push_back(user);
  wire::Message assistant;
  assistant.role = wire::Role::Assistant;
  wire::ContentBlock call;
  call.type = wire::ContentBlock::Type::ToolUse;
  call.tool_input = wire::Json{{"command", text}, {"args", wire::Json::array({text})}};
  assistant.content.push_back(call);
  request.messages.push_back(assistant);
  return request;
}

BOOST_AUTO_TEST_SUITE(corpus)

BOOST_AUTO_TEST_CASE(false_positive_corpus_is_left_alone) {
  const std::vector<std::string> snippets = records("false_positives.txt");
  BOOST_TEST(snippets.size() >= 220u);
  std::string everything;
  for (const std::string& snippet : snippets) {
    everything += snippet + "\n";
    for (const Span& span : all().find(snippet)) {
      BOOST_ERROR("flagged " << toString(span.kind) << " '" << snippet.substr(span.offset, span.length) << "' in:\n"
                             << snippet);
    }
    wire::Request request = requestOf(snippet);
    const auto masked = maskRequest(request, all());
    BOOST_TEST_REQUIRE(masked.has_value());
    BOOST_TEST(masked->mapping.empty());
    BOOST_TEST(request.messages[0].content[0].text == snippet);
    BOOST_TEST(request.messages[0].content[1].result[0].text == snippet);
    BOOST_TEST(request.messages[1].content[0].tool_input["command"] == snippet);
    BOOST_TEST(request.messages[0].content[0].text.find(kOpenBracket) == std::string::npos);
    BOOST_TEST(restoreText(request.messages[0].content[0].text, masked->mapping) == snippet);
  }
  // All of it as one request (one numbering, one set of values found earlier).
  wire::Request request = requestOf(everything);
  const auto masked = maskRequest(request, all());
  BOOST_TEST_REQUIRE(masked.has_value());
  BOOST_TEST(request.messages[0].content[0].text == everything);
}

// Each record of `name` finds exactly the values its header expects; masked, none of them
// remains; restored, the text is whole again.
void expectTruePositives(const std::string& name, size_t at_least) {
  const std::vector<std::string> snippets = records(name);
  BOOST_TEST(snippets.size() >= at_least);
  for (const std::string& record : snippets) {
    std::vector<std::string> expected;
    std::string text;
    std::istringstream lines(record);
    std::string line;
    bool header = true;
    while (std::getline(lines, line)) {
      if (header && line.starts_with("@ ")) {
        const size_t space = line.find(' ', 2);
        std::string value = line.substr(space + 1);  // "\n" stands for a line break
        for (size_t at = value.find("\\n"); at != std::string::npos; at = value.find("\\n", at + 1)) {
          value.replace(at, 2, "\n");
        }
        expected.push_back(line.substr(2, space - 2) + ":" + value);
        continue;
      }
      header = false;
      text += text.empty() && line.empty() ? "" : line + "\n";
    }
    std::vector<std::string> found;
    for (const Span& span : all().find(text)) {
      found.push_back(std::string(toString(span.kind)) + ":" + text.substr(span.offset, span.length));
    }
    BOOST_TEST(found == expected, text);
    // Masked, no value remains; restored, the text is whole again.
    wire::Request request = requestOf(text);
    const auto masked = maskRequest(request, all());
    BOOST_TEST_REQUIRE(masked.has_value());
    const std::string& sent = request.messages[0].content[0].text;
    for (const Span& span : all().find(text)) {
      BOOST_TEST(sent.find(text.substr(span.offset, span.length)) == std::string::npos, text);
      BOOST_TEST(request.messages[1].content[0].tool_input["command"].get<std::string>().find(
                     text.substr(span.offset, span.length)) == std::string::npos);
    }
    BOOST_TEST(restoreText(sent, masked->mapping) == text);
    wire::Response echoed;
    echoed.content.push_back(wire::ContentBlock::ofText(sent));
    restoreResponse(echoed, masked->mapping);
    BOOST_TEST(echoed.content[0].text == text);
  }
}

BOOST_AUTO_TEST_CASE(true_positive_corpus_finds_the_values_expected) { expectTruePositives("true_positives.txt", 40); }

// Passwords written into a sentence, the value followed by a comma and more words ("..., password:
// hunter2, and ..."): people write exactly this in chat. The false-positive corpus above holds the
// code shapes this must leave alone (object members and keyword arguments).
BOOST_AUTO_TEST_CASE(prose_corpus_finds_passwords_written_in_sentences) {
  expectTruePositives("prose_true_positives.txt", 15);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::protection
