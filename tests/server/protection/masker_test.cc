#include "server/protection/masker.h"

#include <boost/test/unit_test.hpp>

#include <string>

#include "server/protection/placeholder.h"
#include "server/protection/restorer.h"

namespace sluice::protection {
namespace {

using wire::ContentBlock;
using wire::Json;

const Detector& detector() {
  static const Detector d =
      *Detector::create({Kind::Email, Kind::Phone, Kind::PaymentCard, Kind::Iban, Kind::ApiKey, Kind::Jwt,
                         Kind::PrivateKey, Kind::Password, Kind::UrlCredentials, Kind::IpAddress},
                        {"Acme Corp"});
  return d;
}

std::string ph(Kind kind, int n) { return makePlaceholder(kind, n); }

wire::Message message(wire::Role role, std::vector<ContentBlock> content) {
  wire::Message m;
  m.role = role;
  m.content = std::move(content);
  return m;
}

ContentBlock thinking(std::string text, std::string signature) {
  ContentBlock block;
  block.type = ContentBlock::Type::Thinking;
  block.text = std::move(text);
  block.signature = std::move(signature);
  block.signature_wire = catalog::Wire::Anthropic;
  return block;
}

ContentBlock toolUse(std::string id, Json input) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolUse;
  block.tool_id = std::move(id);
  block.tool_name = "send_mail";
  block.tool_input = std::move(input);
  return block;
}

ContentBlock toolResult(std::string id, std::vector<ContentBlock> result) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolResult;
  block.tool_use_id = std::move(id);
  block.result = std::move(result);
  return block;
}

ContentBlock image(std::string data) {
  ContentBlock block;
  block.type = ContentBlock::Type::Image;
  block.image.media_type = "image/png";
  block.image.data = std::move(data);
  return block;
}

MaskResult maskOk(wire::Request& request, const MaskLimits& limits = {}) {
  auto result = maskRequest(request, detector(), limits);
  BOOST_TEST_REQUIRE(result.has_value(), (result ? "" : result.error().reason));
  return std::move(*result);
}

BOOST_AUTO_TEST_SUITE(masker)

BOOST_AUTO_TEST_CASE(every_outgoing_text_field_is_masked_and_media_is_not) {
  wire::Request request;
  request.system.push_back(ContentBlock::ofText("You help ops@acme.io. Server 10.1.2.3."));
  wire::Tool tool;
  tool.name = "send_mail";
  tool.description = "Sends mail from noreply@acme.io";
  tool.input_schema = Json::parse(
      R"({"type":"object","properties":{"to":{"type":"string","description":"e.g. someone@example.com","pattern":"^x@y.com$"}}})");
  request.tools.push_back(tool);
  const std::string png = "iVBORw0KGgo+14155552671/alice@example.com";
  request.messages.push_back(message(wire::Role::User, {ContentBlock::ofText("Mail alice@example.com the card 4111 1111 1111 1111"),
                                                        image(png)}));
  ContentBlock redacted;
  redacted.type = ContentBlock::Type::RedactedThinking;
  redacted.data = "EqQBCkYIARgCKkB alice@example.com";
  request.messages.push_back(message(
      wire::Role::Assistant,
      {thinking("Alice is alice@example.com", "sig-abc"), redacted,
       toolUse("toolu_1", Json::parse(R"({"to":["alice@example.com"],"meta":{"alice@example.com":{"ip":"10.1.2.3"}},"n":5})"))}));
  request.messages.push_back(message(
      wire::Role::User,
      {toolResult("toolu_1", {ContentBlock::ofText("sent to alice@example.com via 10.1.2.3"), image(png)}),
       ContentBlock::ofOpaque(Json::parse(R"({"type":"document","title":"Invoice for bob@example.com","context":"Acme Corp",
           "source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0x+14155552671 bob@example.com"}})"),
                              catalog::Wire::Anthropic),
       ContentBlock::ofOpaque(Json::parse(R"({"type":"document","source":{"type":"text","media_type":"text/plain","data":"call +1 415 555 2671"}})"),
                              catalog::Wire::Anthropic),
       ContentBlock::ofOpaque(Json::parse(R"({"type":"input_file","filename":"x.pdf","file_data":"data:application/pdf;base64,bob@example.com"})"),
                              catalog::Wire::OpenAIResponses)}));
  request.user = "carol@example.com";

  const MaskResult result = maskOk(request);

  BOOST_TEST(request.system[0].text == "You help " + ph(Kind::Email, 1) + ". Server " + ph(Kind::IpAddress, 1) + ".");
  BOOST_TEST(request.tools[0].description == "Sends mail from " + ph(Kind::Email, 2));
  BOOST_TEST(request.tools[0].input_schema["properties"]["to"]["description"] == "e.g. " + ph(Kind::Email, 3));
  BOOST_TEST(request.tools[0].input_schema["properties"]["to"]["pattern"] == "^x@y.com$");  // not prose
  const std::string a = ph(Kind::Email, 4);
  BOOST_TEST(request.messages[0].content[0].text == "Mail " + a + " the card " + ph(Kind::PaymentCard, 1));
  BOOST_TEST(request.messages[0].content[1].image.data == png);
  const auto& assistant = request.messages[1].content;
  BOOST_TEST(assistant[0].text == "Alice is " + a);
  BOOST_TEST(assistant[0].signature == "sig-abc");
  BOOST_TEST(assistant[1].data == "EqQBCkYIARgCKkB alice@example.com");
  BOOST_TEST(assistant[2].tool_input.dump() ==
             Json::parse(R"({"to":[")" + a + R"("],"meta":{"alice@example.com":{"ip":")" + ph(Kind::IpAddress, 1) + R"("}},"n":5})").dump());
  const auto& results = request.messages[2].content;
  BOOST_TEST(results[0].result[0].text == "sent to " + a + " via " + ph(Kind::IpAddress, 1));
  BOOST_TEST(results[0].result[1].image.data == png);
  BOOST_TEST(results[1].raw["title"] == "Invoice for " + ph(Kind::Email, 5));
  BOOST_TEST(results[1].raw["context"] == ph(Kind::Vault, 1));
  BOOST_TEST(results[1].raw["source"]["data"] == "JVBERi0x+14155552671 bob@example.com");  // a file passes unmodified
  BOOST_TEST(results[2].raw["source"]["data"] == "call " + ph(Kind::Phone, 1));          // a text document is text
  BOOST_TEST(results[3].raw["file_data"] == "data:application/pdf;base64,bob@example.com");
  BOOST_TEST(*request.user == ph(Kind::Email, 6));


  BOOST_TEST(*result.mapping.original(Kind::Email, 4) == "alice@example.com");
  BOOST_TEST(*result.mapping.original(Kind::Vault, 1) == "Acme Corp");
  // Occurrences, not distinct values: alice@ four times (the tool input's key is not masked).
  BOOST_TEST(result.counts.at(Kind::Email) == 9);
  BOOST_TEST(result.counts.at(Kind::IpAddress) == 3);
  BOOST_TEST(result.counts.at(Kind::PaymentCard) == 1);
  BOOST_TEST(result.counts.count(Kind::Jwt) == 0u);
}

BOOST_AUTO_TEST_CASE(the_same_value_keeps_its_placeholder_and_kinds_count_separately) {
  wire::Request request;
  request.messages.push_back(message(wire::Role::User, {ContentBlock::ofText(
      "bob@example.com, +44 20 7946 0958, amy@example.com, bob@example.com, +44 20 7946 0958")}));
  const MaskResult result = maskOk(request);
  BOOST_TEST(request.messages[0].content[0].text == ph(Kind::Email, 1) + ", " + ph(Kind::Phone, 1) + ", " +
                                                         ph(Kind::Email, 2) + ", " + ph(Kind::Email, 1) + ", " +
                                                         ph(Kind::Phone, 1));
  BOOST_TEST(result.mapping.size() == 3u);
  BOOST_TEST(result.counts.at(Kind::Email) == 3);
}

BOOST_AUTO_TEST_CASE(numbers_the_client_already_wrote_are_skipped) {
  wire::Request request;
  request.system.push_back(ContentBlock::ofText("Keep " + ph(Kind::Email, 1) + " and " + ph(Kind::Email, 3) + " as is."));
  request.messages.push_back(message(wire::Role::User, {ContentBlock::ofText("a@example.com b@example.com c@example.com")}));
  const MaskResult result = maskOk(request);
  BOOST_TEST(request.system[0].text == "Keep " + ph(Kind::Email, 1) + " and " + ph(Kind::Email, 3) + " as is.");
  BOOST_TEST(request.messages[0].content[0].text ==
             ph(Kind::Email, 2) + " " + ph(Kind::Email, 4) + " " + ph(Kind::Email, 5));
  BOOST_TEST(result.mapping.original(Kind::Email, 1) == nullptr);
  BOOST_TEST(result.mapping.original(Kind::Email, 3) == nullptr);
  // The model echoing the client's own token gets it back unchanged.
  BOOST_TEST(restoreText(ph(Kind::Email, 1) + "/" + ph(Kind::Email, 2), result.mapping) ==
             ph(Kind::Email, 1) + "/a@example.com");
}

BOOST_AUTO_TEST_CASE(a_value_found_once_is_masked_wherever_it_appears_later) {
  wire::Request request;
  request.messages.push_back(message(wire::Role::User, {ContentBlock::ofText("DB_PASSWORD=Qx7pLm2z\nuse Qx7pLm2z again")}));
  request.messages.push_back(message(wire::Role::Assistant, {ContentBlock::ofText("Logged in with Qx7pLm2z.")}));
  maskOk(request);
  const std::string p = ph(Kind::Password, 1);
  BOOST_TEST(request.messages[0].content[0].text == "DB_PASSWORD=" + p + "\nuse " + p + " again");
  BOOST_TEST(request.messages[1].content[0].text == "Logged in with " + p + ".");
}

// The conversation's next turn resends the history as the client received it (restored): masking
// it again gives the provider the same text it saw and wrote, thinking included, so signatures
// still match.
BOOST_AUTO_TEST_CASE(the_next_turn_reproduces_the_providers_text_including_thinking) {
  wire::Request turn1;
  turn1.system.push_back(ContentBlock::ofText("Support desk of Acme Corp."));
  turn1.messages.push_back(message(wire::Role::User, {ContentBlock::ofText(
      "I am dana@example.org.\npassword: Tr0ub4dor&3x\nkey sk-ant-api03-AAAA1111BBBB2222CCCC3333dddd")}));
  wire::Request sent1 = turn1;
  const MaskResult first = maskOk(sent1);

  // The provider's answer, in placeholders, with a signature over exactly this thinking text.
  const std::string provider_thinking = "User " + ph(Kind::Email, 1) + " of " + ph(Kind::Vault, 1) +
                                        " gave the password " + ph(Kind::Password, 1) + " and " + ph(Kind::ApiKey, 1) +
                                        "; never repeat " + ph(Kind::Password, 1) + ".";
  const std::string provider_text = "Hello " + ph(Kind::Email, 1) + ", I rotated " + ph(Kind::ApiKey, 1) + ".";
  wire::Response answer;
  answer.content = {thinking(provider_thinking, "SIG=="), ContentBlock::ofText(provider_text)};
  restoreResponse(answer, first.mapping);
  BOOST_TEST(answer.content[0].text ==
             "User dana@example.org of Acme Corp gave the password Tr0ub4dor&3x and "
             "sk-ant-api03-AAAA1111BBBB2222CCCC3333dddd; never repeat Tr0ub4dor&3x.");
  BOOST_TEST(answer.content[0].signature == "SIG==");

  wire::Request turn2 = turn1;
  turn2.messages.push_back(message(wire::Role::Assistant, answer.content));
  turn2.messages.push_back(message(wire::Role::User, {ContentBlock::ofText("Thanks. Also ping eve@example.org")}));
  const MaskResult second = maskOk(turn2);
  BOOST_TEST(turn2.system[0].text == sent1.system[0].text);
  BOOST_TEST(turn2.messages[0].content[0].text == sent1.messages[0].content[0].text);
  BOOST_TEST(turn2.messages[1].content[0].text == provider_thinking);
  BOOST_TEST(turn2.messages[1].content[1].text == provider_text);
  BOOST_TEST(turn2.messages[2].content[0].text == "Thanks. Also ping " + ph(Kind::Email, 2));
  BOOST_TEST(*second.mapping.original(Kind::Email, 1) == "dana@example.org");
}

BOOST_AUTO_TEST_CASE(a_streamed_thinking_block_also_comes_back_as_the_provider_wrote_it) {
  wire::Request turn1;
  turn1.messages.push_back(message(wire::Role::User, {ContentBlock::ofText("Reach me at +49 30 901820 or lee@example.net")}));
  wire::Request sent1 = turn1;
  const MaskResult first = maskOk(sent1);
  const std::string provider_thinking =
      "Phone " + ph(Kind::Phone, 1) + ", mail " + ph(Kind::Email, 1) + " \u27e6 " + ph(Kind::Email, 7) + ".";
  // The provider streams the thinking in 5-byte deltas, then its signature.
  StreamRestorer restorer(first.mapping);
  std::string client_thinking;
  std::string signature;
  for (size_t at = 0; at <= provider_thinking.size(); at += 5) {
    wire::StreamEvent event;
    event.type = wire::StreamEvent::Type::BlockDelta;
    event.delta_kind = wire::StreamEvent::DeltaKind::Thinking;
    event.delta = provider_thinking.substr(at, 5);
    for (const auto& out : restorer.feed(event)) client_thinking += out.delta;
  }
  wire::StreamEvent sig;
  sig.type = wire::StreamEvent::Type::BlockDelta;
  sig.delta_kind = wire::StreamEvent::DeltaKind::Signature;
  sig.delta = "SIG";
  for (const auto& out : restorer.feed(sig)) {
    (out.delta_kind == wire::StreamEvent::DeltaKind::Signature ? signature : client_thinking) += out.delta;
  }
  BOOST_TEST(client_thinking == "Phone +49 30 901820, mail lee@example.net \u27e6 " + ph(Kind::Email, 7) + ".");
  BOOST_TEST(signature == "SIG");

  wire::Request turn2 = turn1;
  turn2.messages.push_back(message(wire::Role::Assistant, {thinking(client_thinking, signature)}));
  maskOk(turn2);
  BOOST_TEST(turn2.messages[1].content[0].text == provider_thinking);
}

BOOST_AUTO_TEST_CASE(limits_fail_closed_without_echoing_values) {
  wire::Request request;
  std::string text;
  for (int i = 0; i < 20; ++i) text += "user" + std::to_string(i) + "@example.com ";
  request.messages.push_back(message(wire::Role::User, {ContentBlock::ofText(text)}));
  MaskLimits limits;
  limits.max_placeholders = 10;
  const auto refused = maskRequest(request, detector(), limits);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().reason.find("example.com") == std::string::npos);
  BOOST_TEST(refused.error().reason.find("10 distinct") != std::string::npos);

  MaskLimits small;
  small.max_scanned_bytes = 100;
  wire::Request big;
  big.messages.push_back(message(wire::Role::User, {ContentBlock::ofText(std::string(101, 'x'))}));
  BOOST_TEST(!maskRequest(big, detector(), small).has_value());

  wire::Request deep;
  Json nested = "a@example.com";
  for (int i = 0; i < 300; ++i) nested = Json::array({nested});
  deep.messages.push_back(message(wire::Role::Assistant, {toolUse("t", Json{{"x", nested}})}));
  BOOST_TEST(!maskRequest(deep, detector()).has_value());
}

BOOST_AUTO_TEST_CASE(the_default_placeholder_cap_is_ten_thousand_distinct_values) {
  wire::Request request;
  std::string text;
  for (int i = 0; i < 10'001; ++i) text += "10." + std::to_string(i / 250) + "." + std::to_string(i % 250) + ".1 ";
  request.messages.push_back(message(wire::Role::User, {ContentBlock::ofText(text)}));
  wire::Request fits = request;
  fits.messages[0].content[0].text = text.substr(0, text.rfind("10."));
  BOOST_TEST(maskRequest(fits, detector()).has_value());
  BOOST_TEST(!maskRequest(request, detector()).has_value());
}

BOOST_AUTO_TEST_CASE(nothing_enabled_changes_nothing) {
  const Detector none = *Detector::create({}, {});
  wire::Request request;
  request.messages.push_back(message(wire::Role::User, {ContentBlock::ofText("a@example.com 10.0.0.1")}));
  const auto result = maskRequest(request, none);
  BOOST_TEST_REQUIRE(result.has_value());
  BOOST_TEST(result->mapping.empty());
  BOOST_TEST(request.messages[0].content[0].text == "a@example.com 10.0.0.1");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::protection
