#include "server/protection/restorer.h"

#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "server/protection/placeholder.h"

namespace sluice::protection {
namespace {

using wire::ContentBlock;
using wire::Json;
using wire::StreamEvent;
using DeltaKind = StreamEvent::DeltaKind;

// A mapping with originals that need JSON escaping.
const Mapping& mapping() {
  static const Mapping m = [] {
    Mapping built;
    built.assign(Kind::Email, 1, "ana@example.com");
    built.assign(Kind::Password, 2, "p\"a\\s\ns\x01");
    built.assign(Kind::UrlCredentials, 12, "root:t\u00f6\u00f6r");
    return built;
  }();
  return m;
}

const std::string kEmail = makePlaceholder(Kind::Email, 1);
const std::string kPassword = makePlaceholder(Kind::Password, 2);
const std::string kCredentials = makePlaceholder(Kind::UrlCredentials, 12);

StreamEvent delta(int index, DeltaKind kind, std::string text) {
  StreamEvent event;
  event.type = StreamEvent::Type::BlockDelta;
  event.index = index;
  event.delta_kind = kind;
  event.delta = std::move(text);
  return event;
}

StreamEvent simple(StreamEvent::Type type, int index = 0) {
  StreamEvent event;
  event.type = type;
  event.index = index;
  return event;
}

// What a client receives: per block, the concatenated deltas; and the order of event types.
struct Received {
  std::map<int, std::string> text;
  std::vector<StreamEvent::Type> types;
  std::vector<std::string> deltas;
  bool delta_after_stop = false;
};

Received run(const std::vector<StreamEvent>& events) {
  StreamRestorer restorer(mapping());
  Received received;
  std::map<int, bool> stopped;
  for (const StreamEvent& event : events) {
    for (const StreamEvent& out : restorer.feed(event)) {
      received.types.push_back(out.type);
      if (out.type == StreamEvent::Type::BlockDelta) {
        received.text[out.index] += out.delta;
        received.deltas.push_back(out.delta);
        if (stopped[out.index]) received.delta_after_stop = true;
      }
      if (out.type == StreamEvent::Type::BlockStop) stopped[out.index] = true;
    }
    BOOST_TEST(restorer.heldBytes() < kMaxEscapedPlaceholderBytes);
  }
  BOOST_TEST(restorer.heldBytes() == 0u);
  return received;
}

// `whole` cut into pieces at `cuts`, as deltas of block 0, then BlockStop and MessageStop.
std::vector<StreamEvent> cutInto(const std::string& whole, const std::vector<size_t>& cuts, DeltaKind kind) {
  std::vector<StreamEvent> events;
  size_t from = 0;
  for (const size_t cut : cuts) {
    events.push_back(delta(0, kind, whole.substr(from, cut - from)));
    from = cut;
  }
  events.push_back(delta(0, kind, whole.substr(from)));
  events.push_back(simple(StreamEvent::Type::BlockStop));
  events.push_back(simple(StreamEvent::Type::MessageStop));
  return events;
}

BOOST_AUTO_TEST_SUITE(restorer)

BOOST_AUTO_TEST_CASE(whole_answers_restore_text_thinking_and_tool_input) {
  wire::Response response;
  ContentBlock think;
  think.type = ContentBlock::Type::Thinking;
  think.text = "Mail " + kEmail + " now";
  think.signature = "sig";
  ContentBlock tool;
  tool.type = ContentBlock::Type::ToolUse;
  tool.tool_input = Json::parse(R"({"to":[")" + kEmail + R"("],")" + kEmail + R"(":{"pw":")" + kPassword + R"("},"n":1})");
  response.content = {ContentBlock::ofText("Hi " + kEmail + ", " + makePlaceholder(Kind::Email, 9) + "."), think, tool};
  restoreResponse(response, mapping());
  BOOST_TEST(response.content[0].text == "Hi ana@example.com, " + makePlaceholder(Kind::Email, 9) + ".");
  BOOST_TEST(response.content[1].text == "Mail ana@example.com now");
  BOOST_TEST(response.content[1].signature == "sig");
  BOOST_TEST(response.content[2].tool_input["to"][0] == "ana@example.com");
  BOOST_TEST(response.content[2].tool_input["ana@example.com"]["pw"] == "p\"a\\s\ns\x01");
  BOOST_TEST(response.content[2].tool_input.dump() ==
             R"({"to":["ana@example.com"],"ana@example.com":{"pw":"p\"a\\s\ns\u0001"},"n":1})");
}

BOOST_AUTO_TEST_CASE(a_text_placeholder_split_at_every_byte_across_two_deltas) {
  for (const DeltaKind kind : {DeltaKind::Text, DeltaKind::Thinking}) {
    const std::string whole = "Write to " + kEmail + " or " + kCredentials + ".";
    const std::string expected = "Write to ana@example.com or root:t\u00f6\u00f6r.";
    for (size_t cut = 0; cut <= whole.size(); ++cut) {
      const Received received = run(cutInto(whole, {cut}, kind));
      BOOST_TEST(received.text.at(0) == expected, "cut " << cut);
      BOOST_TEST(!received.delta_after_stop);
      BOOST_TEST((received.types.back() == StreamEvent::Type::MessageStop));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_text_placeholder_split_at_every_pair_of_bytes_across_three_deltas) {
  const std::string whole = "<" + kEmail + ">";
  for (size_t a = 0; a <= whole.size(); ++a) {
    for (size_t b = a; b <= whole.size(); ++b) {
      const Received received = run(cutInto(whole, {a, b}, DeltaKind::Thinking));
      BOOST_TEST(received.text.at(0) == "<ana@example.com>", a << "," << b);
      for (const std::string& piece : received.deltas) {
        BOOST_TEST(piece.find("\xE2\x9F") == std::string::npos);  // no fragment of a bracket escapes
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(tool_json_gets_the_original_escaped_at_every_split) {
  const std::string expected = R"({"to":"ana@example.com","pw":"x p\"a\\s\ns\u0001 y","u":"root:t)" "\u00f6\u00f6" R"(r"})";
  // Raw brackets, and brackets written as JSON escapes (either case).
  const std::string raw = R"({"to":")" + kEmail + R"(","pw":"x )" + kPassword + R"( y","u":")" + kCredentials + R"("})";
  const std::string escaped =
      R"({"to":"\u27e6EMAIL_1\u27e7","pw":"x \u27E6PASSWORD_2\u27E7 y","u":"\u27e6URL_CREDENTIALS_12)" "\u27e7" R"("})";
  for (const std::string& whole : {raw, escaped}) {
    BOOST_TEST(Json::parse(whole).is_object());
    for (size_t a = 0; a <= whole.size(); ++a) {
      const Received two = run(cutInto(whole, {a}, DeltaKind::ToolInputJson));
      BOOST_TEST(two.text.at(0) == expected, "cut " << a);
      for (size_t b = a; b <= whole.size(); b += 3) {
        const Received three = run(cutInto(whole, {a, b}, DeltaKind::ToolInputJson));
        BOOST_TEST(three.text.at(0) == expected, a << "," << b);
      }
    }
    BOOST_TEST(Json::parse(expected)["pw"] == "x p\"a\\s\ns\x01 y");
  }
}

BOOST_AUTO_TEST_CASE(an_escaped_backslash_before_u27e6_is_not_a_bracket) {
  // JSON text "\\u27e6EMAIL_1\\u27e7" is the string \u27e6EMAIL_1\u27e7 (backslashes), not a placeholder.
  const std::string whole = R"({"s":"\\u27e6EMAIL_1\\u27e7 and \\)" + kEmail + R"("})";
  for (size_t cut = 0; cut <= whole.size(); ++cut) {
    const Received received = run(cutInto(whole, {cut}, DeltaKind::ToolInputJson));
    BOOST_TEST(received.text.at(0) == R"({"s":"\\u27e6EMAIL_1\\u27e7 and \\ana@example.com"})", "cut " << cut);
  }
}

BOOST_AUTO_TEST_CASE(utf8_characters_split_across_deltas_come_back_intact) {
  // An em dash starts with the same byte as the bracket; a 4-byte emoji; a bracket without a name.
  const std::string whole = "a\u2014b \U0001F600 \u27e6 \u27e6EMAIL_1 \u27e6EMAIL_1\u27e7\u2014";
  for (size_t a = 0; a <= whole.size(); ++a) {
    for (size_t b = a; b <= whole.size(); ++b) {
      const Received received = run(cutInto(whole, {a, b}, DeltaKind::Text));
      BOOST_TEST(received.text.at(0) == "a\u2014b \U0001F600 \u27e6 \u27e6EMAIL_1 ana@example.com\u2014", a << "," << b);
    }
  }
}

BOOST_AUTO_TEST_CASE(hold_back_is_bounded_and_only_for_a_possible_prefix) {
  StreamRestorer restorer(mapping());
  // Nothing like a placeholder at the end: out at once, whole.
  auto out = restorer.feed(delta(0, DeltaKind::Text, "plain text \u2014 and more"));
  BOOST_TEST_REQUIRE(out.size() == 1u);
  BOOST_TEST(out[0].delta == "plain text \u2014 and more");
  BOOST_TEST(restorer.heldBytes() == 0u);
  // A possible prefix: only it is held.
  out = restorer.feed(delta(0, DeltaKind::Text, "see \u27e6URL_CREDENTIALS_1"));
  BOOST_TEST_REQUIRE(out.size() == 1u);
  BOOST_TEST(out[0].delta == "see ");
  BOOST_TEST(restorer.heldBytes() == std::string("\u27e6URL_CREDENTIALS_1").size());
  // It did not become a known placeholder: flushed unchanged before the stop.
  out = restorer.feed(simple(StreamEvent::Type::BlockStop));
  BOOST_TEST_REQUIRE(out.size() == 2u);
  BOOST_TEST((out[0].type == StreamEvent::Type::BlockDelta));
  BOOST_TEST(out[0].delta == "\u27e6URL_CREDENTIALS_1");
  BOOST_TEST((out[1].type == StreamEvent::Type::BlockStop));
  // A long run of bytes that could never be a placeholder is never held.
  out = restorer.feed(delta(1, DeltaKind::Text, "\u27e6" + std::string(40, 'A')));
  BOOST_TEST(restorer.heldBytes() == 0u);
  // A delta that is all prefix produces no event.
  out = restorer.feed(delta(2, DeltaKind::ToolInputJson, "{\"a\":\"\\u27"));
  BOOST_TEST_REQUIRE(out.size() == 1u);
  BOOST_TEST(out[0].delta == "{\"a\":\"");
  out = restorer.feed(delta(2, DeltaKind::ToolInputJson, "e6"));
  BOOST_TEST(out.empty());
  BOOST_TEST(restorer.heldBytes() == 6u);
}

BOOST_AUTO_TEST_CASE(signatures_pass_and_pending_text_goes_out_first) {
  const Received received = run({delta(0, DeltaKind::Thinking, "x \u27e6EMA"), delta(0, DeltaKind::Signature, "SIG"),
                                 simple(StreamEvent::Type::BlockStop)});
  BOOST_TEST(received.deltas == (std::vector<std::string>{"x ", "\u27e6EMA", "SIG"}));
  StreamRestorer restorer(mapping());
  const auto out = restorer.feed(delta(0, DeltaKind::Signature, "\u27e6EMAIL_1\u27e7"));
  BOOST_TEST(out[0].delta == "\u27e6EMAIL_1\u27e7");
}

BOOST_AUTO_TEST_CASE(message_end_and_errors_flush_every_block_in_order) {
  for (const auto end : {StreamEvent::Type::MessageDelta, StreamEvent::Type::MessageStop, StreamEvent::Type::Error}) {
    StreamRestorer restorer(mapping());
    restorer.feed(delta(3, DeltaKind::Text, "b\u27e6"));
    restorer.feed(delta(1, DeltaKind::ToolInputJson, "{\"k\":\"\\"));
    const auto out = restorer.feed(simple(end));
    BOOST_TEST_REQUIRE(out.size() == 3u);
    BOOST_TEST(out[0].index == 1);
    BOOST_TEST(out[0].delta == "\\");
    BOOST_TEST((out[0].delta_kind == DeltaKind::ToolInputJson));
    BOOST_TEST(out[1].index == 3);
    BOOST_TEST(out[1].delta == "\u27e6");
    BOOST_TEST((out[2].type == end));
    BOOST_TEST(restorer.heldBytes() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(block_starts_are_restored_and_blocks_stay_apart) {
  StreamRestorer restorer(mapping());
  StreamEvent start = simple(StreamEvent::Type::BlockStart, 0);
  start.block = ContentBlock::ofText(kEmail);
  auto out = restorer.feed(start);
  BOOST_TEST(out[0].block.text == "ana@example.com");
  const Received received = run({delta(0, DeltaKind::Text, "a \u27e6EMA"), delta(1, DeltaKind::Text, "IL_1\u27e7"),
                                 delta(0, DeltaKind::Text, "IL_1\u27e7"), simple(StreamEvent::Type::BlockStop, 1),
                                 simple(StreamEvent::Type::BlockStop, 0)});
  BOOST_TEST(received.text.at(0) == "a ana@example.com");
  BOOST_TEST(received.text.at(1) == "IL_1\u27e7");
}

BOOST_AUTO_TEST_CASE(an_empty_mapping_passes_everything_through) {
  const Mapping empty;
  StreamRestorer restorer(empty);
  const auto out = restorer.feed(delta(0, DeltaKind::Text, "x \u27e6EMA"));
  BOOST_TEST_REQUIRE(out.size() == 1u);
  BOOST_TEST(out[0].delta == "x \u27e6EMA");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::protection
