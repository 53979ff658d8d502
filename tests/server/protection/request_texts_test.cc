// Which texts of a request masking reads: tool definitions as the client wrote them (hosted,
// custom and MCP tools, schemas' values, the response format), and data URLs skipped only when
// they are data URLs under a media key.

#include "server/protection/request_texts.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "server/protection/json_texts.h"
#include "server/protection/masker.h"
#include "server/protection/placeholder.h"
#include "server/wire/codec.h"

namespace sluice::protection {
namespace {

using catalog::Wire;
using wire::ContentBlock;
using wire::Json;

const Detector& detector() {
  static const Detector d =
      *Detector::create({Kind::Email, Kind::ApiKey, Kind::PrivateKey, Kind::Password, Kind::UrlCredentials}, {"Mayfair Office"});
  return d;
}

std::string ph(Kind kind, int n) { return makePlaceholder(kind, n); }

MaskResult maskOk(wire::Request& request) {
  auto result = maskRequest(request, detector());
  BOOST_TEST_REQUIRE(result.has_value(), (result ? "" : result.error().reason));
  return std::move(*result);
}

// The body the provider of `wire` would receive for `body` decoded from the same wire and masked.
std::string maskedBody(Wire wire, const std::string& body, MaskResult* result = nullptr) {
  auto decoded = wire::decodeRequest(wire, body);
  BOOST_TEST_REQUIRE(decoded.has_value(), (decoded ? "" : decoded.error().message));
  MaskResult masked = maskOk(*decoded);
  if (result != nullptr) *result = std::move(masked);
  wire::EncodeOptions options;
  options.upstream_model = "m";
  auto encoded = wire::encodeRequest(wire, *decoded, options);
  BOOST_TEST_REQUIRE(encoded.has_value());
  return *encoded;
}

void expectNone(const std::string& sent, const std::vector<std::string>& originals) {
  for (const std::string& original : originals) BOOST_TEST(sent.find(original) == std::string::npos, original << " in " << sent);
}

BOOST_AUTO_TEST_SUITE(request_texts)

BOOST_AUTO_TEST_CASE(responses_tool_definitions_reach_the_provider_masked) {
  const std::string body = R"({"model":"m","input":"hi","tools":[
    {"type":"custom","name":"mailer","description":"Mails ops@acme.io for you"},
    {"type":"mcp","server_label":"crm","server_url":"https://svc:Hunter2pass@mcp.example.com/sse",
     "headers":{"Authorization":"Bearer opaque-token-123","X-Tenant":"t-889"},
     "authorization":"oauth-access-token-xyz","require_approval":"never"},
    {"type":"web_search","user_location":{"type":"approximate","city":"Mayfair Office","country":"GB"}},
    {"type":"function","name":"send","description":"Send a mail","parameters":{"type":"object","properties":{
      "to":{"type":"string","enum":["ann@example.com","bob@example.com"],"default":"ann@example.com"},
      "key":{"const":"sk-proj-AbCdEf0123456789GhIjKlMnOp"},"mode":{"type":"string","enum":["fast","slow"]}}}}],
    "text":{"format":{"type":"json_schema","name":"out","schema":{"type":"object","properties":{
      "owner":{"type":"string","enum":["eve@example.net"],"examples":["eve@example.net"]}}}}}})";
  MaskResult result;
  const std::string sent = maskedBody(Wire::OpenAIResponses, body, &result);
  expectNone(sent, {"ops@acme.io", "Hunter2pass", "opaque-token-123", "t-889", "oauth-access-token-xyz",
                    "Mayfair Office", "ann@example.com", "bob@example.com", "sk-proj-AbCdEf", "eve@example.net"});
  // What is not the client's data stays: types, names, labels, options, keywords.
  for (const std::string kept : {"\"mcp\"", "\"crm\"", "\"never\"", "\"mailer\"", "\"fast\"", "\"slow\"", "\"GB\"",
                                 "Bearer ", "mcp.example.com/sse", "\"approximate\""}) {
    BOOST_TEST(sent.find(kept) != std::string::npos, kept);
  }
  // Credentials count as api_key (a `block: [api_key]` keeps them from public providers).
  BOOST_TEST(result.counts.at(Kind::ApiKey) == 4);  // Authorization, X-Tenant, authorization, the schema's const
  BOOST_TEST(result.counts.at(Kind::UrlCredentials) == 1);
  BOOST_TEST(result.counts.at(Kind::Vault) == 1);
}

BOOST_AUTO_TEST_CASE(chat_custom_tools_and_response_format_enums_reach_the_provider_masked) {
  const std::string body = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[
    {"type":"custom","custom":{"name":"ask","description":"Ask dana@example.org first"}}],
    "response_format":{"type":"json_schema","json_schema":{"name":"r","schema":{"type":"object","properties":{
      "to":{"type":"string","enum":["carol@example.com"],"description":"one of the team"}}}}}})";
  const std::string sent = maskedBody(Wire::OpenAIChat, body);
  expectNone(sent, {"dana@example.org", "carol@example.com"});
  BOOST_TEST(sent.find("\"ask\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_tool_kept_raw_leaves_no_unmasked_description_behind) {
  wire::Request request;
  wire::Tool tool;
  tool.name = "mailer";
  tool.description = "Mails ops@acme.io";
  tool.raw = Json{{"type", "custom"}, {"name", "mailer"}, {"description", "Mails ops@acme.io"}};
  tool.raw_wire = Wire::OpenAIResponses;
  request.tools.push_back(tool);
  const MaskResult result = maskOk(request);
  BOOST_TEST(request.tools[0].raw["description"] == "Mails " + ph(Kind::Email, 1));
  BOOST_TEST(request.tools[0].description.empty());
  BOOST_TEST(result.counts.at(Kind::Email) == 1);  // read once, where it is sent
}

BOOST_AUTO_TEST_CASE(a_string_starting_data_is_text_unless_it_is_a_data_url_under_a_media_key) {
  wire::Request request;
  wire::Message user;
  const std::string pem = "-----BEGIN PRIVATE KEY-----\\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----";
  user.content.push_back(ContentBlock::ofOpaque(
      Json::parse(R"({"type":"custom_tool_call_output","call_id":"c1","output":"data: DB_PASSWORD=Qx7pLm2z carol@example.com"})"),
      Wire::OpenAIResponses));
  user.content.push_back(ContentBlock::ofOpaque(
      Json::parse(R"({"type":"document","source":{"type":"text","media_type":"text/plain","data":"data: )" + pem + R"("}})"),
      Wire::Anthropic));
  user.content.push_back(ContentBlock::ofOpaque(
      Json::parse(R"({"type":"image","source":{"type":"url","url":"data:image/png;base64,iVBORw0KGgo+carol@example.com"}})"),
      Wire::Anthropic));
  user.content.push_back(ContentBlock::ofOpaque(
      Json::parse(R"({"type":"note","url":"data: carol@example.com","text":"data:image/png;base64,carol@example.com"})"),
      Wire::Anthropic));
  request.messages.push_back(user);
  const MaskResult result = maskOk(request);
  const auto& content = request.messages[0].content;
  BOOST_TEST(content[0].raw["output"] == "data: DB_PASSWORD=" + ph(Kind::Password, 1) + " " + ph(Kind::Email, 1));
  BOOST_TEST(content[1].raw["source"]["data"] == "data: " + ph(Kind::PrivateKey, 1));
  BOOST_TEST(content[2].raw["source"]["url"] == "data:image/png;base64,iVBORw0KGgo+carol@example.com");  // media
  BOOST_TEST(content[3].raw["url"] == "data: " + ph(Kind::Email, 1));                          // not a data URL
  BOOST_TEST(content[3].raw["text"] == "data:image/png;base64," + ph(Kind::Email, 1));          // not a media key
  BOOST_TEST(result.counts.at(Kind::PrivateKey) == 1);

  // The other operations' JSON: a string under a key that is not a payload is text, "data:" or not.
  Json document = Json::parse(R"({"model":"e","input":["data: carol@example.com","data:text/plain,carol@example.com"],
                                  "image":"data:image/png;base64,carol@example.com"})");
  const std::string_view skip[] = {"model"};
  BOOST_TEST_REQUIRE(maskJsonTexts(document, detector(), skip).has_value());
  BOOST_TEST(document["input"][0] == "data: " + ph(Kind::Email, 1));
  BOOST_TEST(document["input"][1] == "data:text/plain," + ph(Kind::Email, 1));
  BOOST_TEST(document["image"] == "data:image/png;base64,carol@example.com");
}

BOOST_AUTO_TEST_CASE(a_data_url_is_a_mime_type_parameters_and_a_comma) {
  for (const std::string_view yes : {"data:image/png;base64,iVBOR", "DATA:image/svg+xml,<svg/>", "data:text/plain,hi",
                                     "data:text/plain;charset=utf-8;base64,aGk=", "data:text/plain;charset=\"utf-8\",hi",
                                     "data:application/vnd.ms-excel;name=a.xls;base64,"}) {
    BOOST_TEST(texts::isDataUrl(yes), yes);
  }
  for (const std::string_view no : {"data: DB_PASSWORD=x", "data:", "data:image;base64,x", "data:image/png",
                                     "data:image/png;base64", "data:/png,x", "data:image/,x", "data:image/png;base64;a=b,x",
                                     "data:image/png;=x,y", "database:x/y,z", "data:text/plain;charset=\"utf-8,hi"}) {
    BOOST_TEST(!texts::isDataUrl(no), no);
  }
}

BOOST_AUTO_TEST_CASE(a_value_found_anywhere_is_masked_everywhere_earlier_texts_included) {
  wire::Request request;
  request.system.push_back(ContentBlock::ofText("The deploy password is Qx7pLm2z, keep it safe."));
  wire::Message user;
  user.content.push_back(ContentBlock::ofText("DB_PASSWORD=Qx7pLm2z"));
  request.messages.push_back(user);
  maskOk(request);
  BOOST_TEST(request.system[0].text == "The deploy password is " + ph(Kind::Password, 1) + ", keep it safe.");
  BOOST_TEST(request.messages[0].content[0].text == "DB_PASSWORD=" + ph(Kind::Password, 1));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::protection
