#include "server/wire/bedrock/event_stream.h"

#include <boost/test/unit_test.hpp>

#include <initializer_list>
#include <random>

using namespace sluice::wire::bedrock;

namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(char(v));
  return out;
}

// The AWS event-stream test vectors (aws-c-event-stream's encoded/positive set, as the AWS SDK
// for JavaScript ships them).
const std::string kEmptyMessage = bytes({0, 0, 0, 16, 0, 0, 0, 0, 5, 194, 72, 235, 125, 152, 200, 255});
const std::string kInt32Header = bytes({0, 0, 0, 45, 0, 0, 0, 16, 65, 196, 36, 184, 10, 101, 118, 101,
    110, 116, 45, 116, 121, 112, 101, 4, 0, 0, 160, 12, 123, 39, 102, 111, 111, 39, 58, 39, 98, 97, 114,
    39, 125, 54, 244, 128, 160});
const std::string kPayloadNoHeaders = bytes({0, 0, 0, 29, 0, 0, 0, 0, 253, 82, 140, 90, 123, 39, 102,
    111, 111, 39, 58, 39, 98, 97, 114, 39, 125, 195, 101, 57, 54});
const std::string kPayloadOneStrHeader = bytes({0, 0, 0, 61, 0, 0, 0, 32, 7, 253, 131, 150, 12, 99,
    111, 110, 116, 101, 110, 116, 45, 116, 121, 112, 101, 7, 0, 16, 97, 112, 112, 108, 105, 99, 97,
    116, 105, 111, 110, 47, 106, 115, 111, 110, 123, 39, 102, 111, 111, 39, 58, 39, 98, 97, 114, 39,
    125, 141, 156, 8, 177});
const std::string kFooBar = "{'foo':'bar'}";

EventMessage decodeOrFail(std::string_view frame) {
  std::string error;
  auto message = decodeEventMessage(frame, error);
  BOOST_REQUIRE_MESSAGE(message, error);
  return *message;
}

std::string refusal(std::string_view frame, size_t max = kMaxEventMessageBytes) {
  std::string error;
  auto message = decodeEventMessage(frame, error, max);
  BOOST_CHECK(!message);
  return error;
}

EventMessage chunkEvent(std::string payload) {
  EventMessage message;
  message.headers.push_back({":event-type", HeaderType::String, "chunk", 0});
  message.headers.push_back({":content-type", HeaderType::String, "application/json", 0});
  message.headers.push_back({":message-type", HeaderType::String, "event", 0});
  message.payload = std::move(payload);
  return message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bedrock_event_stream)

BOOST_AUTO_TEST_CASE(crc32_matches_the_ieee_check_value) {
  BOOST_TEST(crc32("123456789") == 0xCBF43926u);
  BOOST_TEST(crc32("56789", crc32("1234")) == 0xCBF43926u);
}

BOOST_AUTO_TEST_CASE(decodes_the_published_positive_vectors) {
  auto empty = decodeOrFail(kEmptyMessage);
  BOOST_TEST(empty.headers.empty());
  BOOST_TEST(empty.payload.empty());

  auto int32 = decodeOrFail(kInt32Header);
  BOOST_REQUIRE_EQUAL(int32.headers.size(), 1u);
  BOOST_TEST(int32.headers[0].name == "event-type");
  BOOST_TEST(int(int32.headers[0].type) == int(HeaderType::Int));
  BOOST_TEST(int32.headers[0].number == 40972);
  BOOST_TEST(int32.payload == kFooBar);

  BOOST_TEST(decodeOrFail(kPayloadNoHeaders).payload == kFooBar);

  auto one = decodeOrFail(kPayloadOneStrHeader);
  BOOST_TEST(one.text("content-type").value_or("") == "application/json");
  BOOST_TEST(!one.text("event-type"));
  BOOST_TEST(one.payload == kFooBar);
}

BOOST_AUTO_TEST_CASE(encodes_the_published_vectors_byte_for_byte) {
  BOOST_TEST(encodeEventMessage(decodeOrFail(kEmptyMessage)) == kEmptyMessage);
  BOOST_TEST(encodeEventMessage(decodeOrFail(kInt32Header)) == kInt32Header);
  BOOST_TEST(encodeEventMessage(decodeOrFail(kPayloadNoHeaders)) == kPayloadNoHeaders);
  BOOST_TEST(encodeEventMessage(decodeOrFail(kPayloadOneStrHeader)) == kPayloadOneStrHeader);
}

// The same frame AWS's own codec writes (tests/e2e/eventstream.test.mjs pins the same bytes).
BOOST_AUTO_TEST_CASE(encodes_a_bedrock_chunk_as_aws_codec_does) {
  const std::string hex =
      "000000870000004b87ea2bf30b3a6576656e742d747970650700056368756e6b0d3a636f6e74656e742d74797065070010617070"
      "6c69636174696f6e2f6a736f6e0d3a6d6573736167652d747970650700056576656e747b226279746573223a2265794a30655842"
      "6c496a6f696257567a6332466e5a56397a64473977496e303d227dba48ab22";
  std::string expected;
  for (size_t i = 0; i < hex.size(); i += 2) expected.push_back(char(std::stoi(hex.substr(i, 2), nullptr, 16)));
  BOOST_TEST(encodeEventMessage(chunkEvent(R"({"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0="})")) == expected);
}

BOOST_AUTO_TEST_CASE(every_header_type_round_trips) {
  EventMessage message;
  message.headers.push_back({"t", HeaderType::BoolTrue, "", 1});
  message.headers.push_back({"f", HeaderType::BoolFalse, "", 0});
  message.headers.push_back({"b", HeaderType::Byte, "", -3});
  message.headers.push_back({"s", HeaderType::Short, "", -300});
  message.headers.push_back({"i", HeaderType::Int, "", -70000});
  message.headers.push_back({"l", HeaderType::Long, "", -5000000000});
  message.headers.push_back({"y", HeaderType::Bytes, std::string("\0\1\2", 3), 0});
  message.headers.push_back({"ts", HeaderType::Timestamp, "", 1700000000123});
  message.headers.push_back({"u", HeaderType::Uuid, std::string(16, '\x5a'), 0});
  message.payload = "x";
  auto back = decodeOrFail(encodeEventMessage(message));
  BOOST_REQUIRE_EQUAL(back.headers.size(), message.headers.size());
  for (size_t i = 0; i < back.headers.size(); ++i) {
    BOOST_TEST(back.headers[i].name == message.headers[i].name);
    BOOST_TEST(int(back.headers[i].type) == int(message.headers[i].type));
    BOOST_TEST(back.headers[i].number == message.headers[i].number);
    BOOST_TEST(back.headers[i].bytes == message.headers[i].bytes);
  }
}

BOOST_AUTO_TEST_CASE(refuses_a_corrupted_prelude_crc) {
  std::string frame = kPayloadOneStrHeader;
  frame[9] ^= 0x01;
  BOOST_TEST(refusal(frame).find("prelude CRC") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(refuses_a_corrupted_payload_or_message_crc) {
  std::string payload = kPayloadOneStrHeader;
  payload[50] ^= 0x20;
  BOOST_TEST(refusal(payload).find("message CRC") != std::string::npos);
  std::string tail = kPayloadOneStrHeader;
  tail.back() ^= 0x01;
  BOOST_TEST(refusal(tail).find("message CRC") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(refuses_a_truncated_frame_and_lengths_that_do_not_fit) {
  BOOST_TEST(refusal(kPayloadOneStrHeader.substr(0, 40)).find("prelude says") != std::string::npos);
  BOOST_TEST(refusal(kPayloadOneStrHeader.substr(0, 5)).find("shorter") != std::string::npos);
  // A headers length larger than the message, with a prelude CRC that matches it.
  EventMessage lying;
  std::string frame = encodeEventMessage(lying);
  frame[7] = 1;
  const uint32_t crc = crc32(std::string_view(frame).substr(0, 8));
  for (int i = 0; i < 4; ++i) frame[8 + i] = char((crc >> (24 - 8 * i)) & 0xff);
  BOOST_TEST(refusal(frame).find("headers length") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(refuses_an_oversized_frame_before_buffering_it) {
  const std::string frame = encodeEventMessage(chunkEvent(std::string(1000, 'a')));
  BOOST_TEST(refusal(frame, 512).find("outside 16..512") != std::string::npos);
  EventStreamDecoder decoder(512);
  BOOST_TEST(decoder.feed(frame.substr(0, 12)).empty());
  BOOST_REQUIRE(decoder.error());
  BOOST_TEST(decoder.buffered() == 0u);
}

BOOST_AUTO_TEST_CASE(refuses_an_unknown_header_type) {
  std::string frame = kPayloadOneStrHeader;
  frame[25] = 12;  // the type byte of "content-type"
  const uint32_t crc = crc32(std::string_view(frame).substr(0, frame.size() - 4));
  for (int i = 0; i < 4; ++i) frame[frame.size() - 4 + i] = char((crc >> (24 - 8 * i)) & 0xff);
  BOOST_TEST(refusal(frame).find("unknown value type") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(streaming_decoder_gives_the_same_messages_for_any_chunk_split) {
  std::string stream;
  for (int i = 0; i < 5; ++i) stream += encodeEventMessage(chunkEvent("{\"bytes\":\"" + std::to_string(i) + "\"}"));
  stream += kPayloadOneStrHeader;
  std::mt19937 rng(30);
  for (int round = 0; round < 200; ++round) {
    EventStreamDecoder decoder;
    std::vector<EventMessage> got;
    for (size_t at = 0; at < stream.size();) {
      const size_t piece = std::min<size_t>(stream.size() - at, 1 + rng() % (round < 20 ? 1 : 90));
      for (auto& m : decoder.feed(std::string_view(stream).substr(at, piece))) got.push_back(std::move(m));
      at += piece;
    }
    BOOST_REQUIRE(decoder.finish());
    BOOST_REQUIRE_EQUAL(got.size(), 6u);
    BOOST_TEST(got[3].payload == "{\"bytes\":\"3\"}");
    BOOST_TEST(got[3].text(":event-type").value_or("") == "chunk");
    BOOST_TEST(got[5].payload == kFooBar);
  }
}

BOOST_AUTO_TEST_CASE(streaming_decoder_reports_a_stream_cut_mid_frame) {
  EventStreamDecoder decoder;
  const std::string stream = kInt32Header + kPayloadNoHeaders.substr(0, 20);
  BOOST_TEST(decoder.feed(stream).size() == 1u);
  BOOST_TEST(!decoder.finish());
  BOOST_TEST(decoder.error()->find("middle of a frame") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(streaming_decoder_stops_for_good_after_a_bad_crc) {
  std::string bad = kPayloadNoHeaders;
  bad[15] ^= 0x40;
  EventStreamDecoder decoder;
  auto got = decoder.feed(kEmptyMessage + bad + kEmptyMessage);
  BOOST_TEST(got.size() == 1u);
  BOOST_REQUIRE(decoder.error());
  BOOST_TEST(decoder.feed(kEmptyMessage).empty());
  BOOST_TEST(!decoder.finish());
}

BOOST_AUTO_TEST_SUITE_END()
