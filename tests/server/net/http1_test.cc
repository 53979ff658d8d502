#define BOOST_TEST_MODULE net_tests
#include <boost/test/unit_test.hpp>

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/net/http1.h"

namespace sluice::net::h1 {
namespace {

HeadResult parse(std::string_view text, RequestHead& head, size_t max_head = 64u << 10, size_t max_fields = 100) {
  HeadLimits limits;
  limits.max_head_bytes = max_head;
  limits.max_fields = max_fields;
  return parseRequestHead(text, limits, head);
}

BOOST_AUTO_TEST_SUITE(request_head)

BOOST_AUTO_TEST_CASE(a_whole_head_gives_its_parts_and_how_much_it_used) {
  const std::string text =
      "POST /v1/messages?beta=true HTTP/1.1\r\nHost: gw\r\nContent-Length: 2\r\nX-Empty:\r\n"
      "Anthropic-Version:  2023-06-01 \t\r\n\r\n{}";
  RequestHead head;
  const HeadResult result = parse(text, head);
  BOOST_TEST(static_cast<int>(result.status) == static_cast<int>(HeadStatus::Complete));
  BOOST_TEST(result.consumed == text.size() - 2);
  BOOST_TEST(head.method == "POST");
  BOOST_TEST(head.target == "/v1/messages?beta=true");
  BOOST_TEST(head.version == "HTTP/1.1");
  BOOST_REQUIRE(head.fields.size() == 4u);
  BOOST_TEST(head.fields[0].first == "Host");
  BOOST_TEST(head.fields[0].second == "gw");
  BOOST_TEST(head.fields[2].first == "X-Empty");
  BOOST_TEST(head.fields[2].second == "");
  BOOST_TEST(head.fields[3].second == "2023-06-01");
}

BOOST_AUTO_TEST_CASE(leading_blank_lines_are_skipped) {
  const std::string text = "\r\n\nGET /healthz HTTP/1.0\r\nHost: gw\r\n\r\n";
  RequestHead head;
  const HeadResult result = parse(text, head);
  BOOST_TEST(static_cast<int>(result.status) == static_cast<int>(HeadStatus::Complete));
  BOOST_TEST(result.consumed == text.size());
  BOOST_TEST(head.target == "/healthz");
  BOOST_TEST(head.version == "HTTP/1.0");
}

BOOST_AUTO_TEST_CASE(row9_a_bare_lf_is_refused) {
  for (const std::string text : {"GET /healthz HTTP/1.1\nHost: gw\r\n\r\n", "GET /healthz HTTP/1.1\r\nHost: gw\n\r\n",
                                 "GET /healthz HTTP/1.1\r\nHost: gw\r\n\n", "GET /healthz HTTP/1.0\nHost: gw\n\n"}) {
    RequestHead head;
    const HeadResult result = parse(text, head);
    BOOST_TEST(static_cast<int>(result.status) == static_cast<int>(HeadStatus::Malformed), text);
    BOOST_TEST(result.reason == "line not ended by CRLF");
  }
  // A response's head keeps tolerating it (RFC 9112 §2.2).
  ResponseHead response;
  BOOST_TEST(static_cast<int>(parseResponseHead("HTTP/1.1 200 OK\nContent-Length: 0\n\n", {}, response).status) ==
             static_cast<int>(HeadStatus::Complete));
}

BOOST_AUTO_TEST_CASE(every_prefix_of_a_head_is_incomplete) {
  const std::string text = "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n\r\n";
  for (size_t n = 0; n < text.size(); ++n) {
    RequestHead head;
    BOOST_TEST(static_cast<int>(parse(text.substr(0, n), head).status) == static_cast<int>(HeadStatus::Incomplete),
               "prefix of " << n << " bytes");
  }
}

BOOST_AUTO_TEST_CASE(a_head_over_the_limit_is_too_large_complete_or_not) {
  const std::string field = "X-Padding: " + std::string(3000, 'a') + "\r\n";
  RequestHead head;
  BOOST_TEST(static_cast<int>(parse("GET / HTTP/1.1\r\n" + field + "\r\n", head, 2000).status) ==
             static_cast<int>(HeadStatus::TooLarge));
  BOOST_TEST(static_cast<int>(parse("GET / HTTP/1.1\r\n" + field, head, 2000).status) ==
             static_cast<int>(HeadStatus::TooLarge));
  // Still arriving, no line end yet, already past the limit: no need to wait for the rest.
  BOOST_TEST(static_cast<int>(parse("GET / HTTP/1.1\r\nX-Padding: " + std::string(5000, 'a'), head, 2000).status) ==
             static_cast<int>(HeadStatus::TooLarge));
  const HeadResult exact = parse("GET / HTTP/1.1\r\n\r\n", head, 18);
  BOOST_TEST(static_cast<int>(exact.status) == static_cast<int>(HeadStatus::Complete));
  BOOST_TEST(static_cast<int>(parse("GET / HTTP/1.1\r\n\r\n", head, 17).status) == static_cast<int>(HeadStatus::TooLarge));
}

BOOST_AUTO_TEST_CASE(too_many_fields_is_too_large) {
  std::string text = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 5; ++i) text += "X-" + std::to_string(i) + ": v\r\n";
  text += "\r\n";
  RequestHead head;
  BOOST_TEST(static_cast<int>(parse(text, head, 64u << 10, 5).status) == static_cast<int>(HeadStatus::Complete));
  const HeadResult result = parse(text, head, 64u << 10, 4);
  BOOST_TEST(static_cast<int>(result.status) == static_cast<int>(HeadStatus::TooLarge));
  BOOST_TEST(result.reason.find("header fields") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(smuggling_shapes_and_garbage_are_malformed) {
  const char* cases[] = {
      "GET /\r\n\r\n",                                   // two parts
      "GET  / HTTP/1.1\r\n\r\n",                         // empty target
      "GET / HTTP/1.1 extra\r\n\r\n",                    // four parts
      "GET / HTTP/2.0\r\n\r\n",                          // not HTTP/1.x
      "G(T / HTTP/1.1\r\n\r\n",                          // method not a token
      "GET /a\x01 HTTP/1.1\r\n\r\n",                     // control character in the target
      "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",    // obsolete line folding
      "GET / HTTP/1.1\r\nContent-Length : 5\r\n\r\n",    // blank before the colon
      "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",         // no colon
      "GET / HTTP/1.1\r\n: empty name\r\n\r\n",          // empty name
      "GET / HTTP/1.1\r\nX-A: a\x01z\r\n\r\n",           // control character in a value
      "\x16\x03\x01\x02\x05\x01\x01\x01\xfc\x03\x03\r\n\r\n",  // a TLS hello on the plain port
  };
  for (const char* text : cases) {
    RequestHead head;
    BOOST_TEST(static_cast<int>(parse(text, head).status) == static_cast<int>(HeadStatus::Malformed), text);
  }
}

// Two front ends reading different Host lines would route one request two ways (RFC 9112 §3.2).
BOOST_AUTO_TEST_CASE(a_second_host_line_is_malformed_in_any_case) {
  for (const char* text : {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                           "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nhOST: a\r\n\r\n"}) {
    RequestHead head;
    const HeadResult result = parse(text, head);
    BOOST_TEST(static_cast<int>(result.status) == static_cast<int>(HeadStatus::Malformed), text);
    BOOST_TEST(result.reason == "more than one Host header field");
  }
  RequestHead one;
  BOOST_TEST(static_cast<int>(parse("GET / HTTP/1.1\r\nHost: a\r\nX-Host: b\r\n\r\n", one).status) ==
             static_cast<int>(HeadStatus::Complete));
}

BOOST_AUTO_TEST_CASE(obs_text_and_tabs_in_values_are_kept) {
  RequestHead head;
  const HeadResult result = parse("GET / HTTP/1.1\r\nX-Name: caf\xc3\xa9\tbar\r\n\r\n", head);
  BOOST_TEST(static_cast<int>(result.status) == static_cast<int>(HeadStatus::Complete));
  BOOST_TEST(head.fields[0].second == "caf\xc3\xa9\tbar");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(response_head)

BOOST_AUTO_TEST_CASE(a_status_line_and_fields) {
  const std::string text = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 0\r\n\r\n";
  ResponseHead head;
  const HeadResult result = parseResponseHead(text, {}, head);
  BOOST_TEST(static_cast<int>(result.status) == static_cast<int>(HeadStatus::Complete));
  BOOST_TEST(result.consumed == text.size());
  BOOST_TEST(head.status == 429);
  BOOST_TEST(head.reason == "Too Many Requests");
  BOOST_TEST(head.version == "HTTP/1.1");
  BOOST_REQUIRE(head.fields.size() == 2u);
  BOOST_TEST(head.fields[0].second == "3");
}

BOOST_AUTO_TEST_CASE(a_missing_reason_is_tolerated) {
  ResponseHead head;
  BOOST_TEST(static_cast<int>(parseResponseHead("HTTP/1.1 200\r\n\r\n", {}, head).status) ==
             static_cast<int>(HeadStatus::Complete));
  BOOST_TEST(head.status == 200);
  BOOST_TEST(static_cast<int>(parseResponseHead("HTTP/1.0 204 \r\n\r\n", {}, head).status) ==
             static_cast<int>(HeadStatus::Complete));
  BOOST_TEST(head.status == 204);
}

BOOST_AUTO_TEST_CASE(garbage_is_malformed_and_a_huge_head_too_large) {
  ResponseHead head;
  for (const char* text : {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20x OK\r\n\r\n", "HTTP/1.1 099 Low\r\n\r\n",
                           "HTTP/1.1 2000 OK\r\n\r\n", "SSH-2.0-OpenSSH\r\n\r\n"}) {
    BOOST_TEST(static_cast<int>(parseResponseHead(text, {}, head).status) == static_cast<int>(HeadStatus::Malformed),
               text);
  }
  HeadLimits small;
  small.max_head_bytes = 100;
  BOOST_TEST(static_cast<int>(parseResponseHead("HTTP/1.1 200 OK\r\nX: " + std::string(200, 'a'), small, head).status) ==
             static_cast<int>(HeadStatus::TooLarge));
}

BOOST_AUTO_TEST_SUITE_END()

// Feeds `wire` to a decoder in pieces of `step` bytes (as a socket would hand them over).
struct Decoded {
  std::string body;
  bool done = false;
  bool failed = false;
  size_t left_over = 0;  // bytes after the body's end
};

Decoded decode(std::string_view wire, size_t step, Message message = Message::Request) {
  ChunkedDecoder decoder(message);
  Decoded out;
  std::string pending;
  size_t fed = 0;
  while (!decoder.done() && !decoder.failed()) {
    if (pending.empty()) {
      if (fed >= wire.size()) break;
      pending = std::string(wire.substr(fed, step));
      fed += pending.size();
    }
    std::string_view data;
    const size_t used = decoder.feed(pending, data);
    out.body += data;
    pending.erase(0, used);
  }
  out.done = decoder.done();
  out.failed = decoder.failed();
  out.left_over = pending.size() + (wire.size() - fed);
  return out;
}

BOOST_AUTO_TEST_SUITE(chunked_body)

BOOST_AUTO_TEST_CASE(chunks_extensions_and_trailers_decode_in_any_split) {
  const std::string wire =
      "5;name=value\r\nhello\r\n17\r\n, and twenty-one more b\r\n0\r\nX-Trailer: t\r\n\r\nNEXT";
  for (size_t step = 1; step <= wire.size(); ++step) {
    const Decoded out = decode(wire, step);
    BOOST_TEST(out.done, "step " << step);
    BOOST_TEST(out.body == "hello, and twenty-one more b", "step " << step);
    BOOST_TEST(out.left_over == 4u, "step " << step);
  }
}

BOOST_AUTO_TEST_CASE(a_response_may_end_lines_in_a_bare_lf_and_an_empty_body_decodes) {
  BOOST_TEST(decode("3\nabc\n0\n\n", 100, Message::Response).body == "abc");
  BOOST_TEST(decode("3\nabc\n0\n\n", 100, Message::Response).done);
  BOOST_TEST(decode("3;ext\nabc\r\n0\r\nX: t\n\n", 100, Message::Response).done);
  const Decoded empty = decode("0\r\n\r\n", 2);
  BOOST_TEST(empty.done);
  BOOST_TEST(empty.body.empty());
}

BOOST_AUTO_TEST_CASE(row9_a_bare_lf_in_a_request_body_chunk_framing_is_refused) {
  for (const std::string wire : {"3\nabc\r\n0\r\n\r\n", "3;ext\nabc\r\n0\r\n\r\n", "3\r\nabc\n0\r\n\r\n",
                                 "3\r\nabc\r\n0\n\r\n", "3\r\nabc\r\n0\r\nX: t\n\r\n", "3\r\nabc\r\n0\r\n\n"}) {
    for (size_t step = 1; step <= wire.size(); ++step) {
      const Decoded out = decode(wire, step);
      BOOST_TEST(out.failed, wire << " step " << step);
      BOOST_TEST(!out.done, wire << " step " << step);
    }
  }
  BOOST_TEST(decode("3\r\nabc\r\n0\r\nX: t\r\n\r\n", 1).done);
}

BOOST_AUTO_TEST_CASE(bad_framing_fails_and_never_overflows) {
  BOOST_TEST(decode("zz\r\n", 100).failed);                           // not hex
  BOOST_TEST(decode("\r\n", 100).failed);                             // no size
  BOOST_TEST(decode("3\r\nabcd\r\n0\r\n\r\n", 100).failed);           // data longer than its size
  BOOST_TEST(decode("1000000000000000\r\n", 100).failed);             // 16 hex digits
  BOOST_TEST(decode("3;" + std::string(5000, 'e') + "\r\n", 64).failed);  // endless extension
  BOOST_TEST(decode("0\r\n" + std::string(20000, 't'), 512).failed);  // endless trailer
  const Decoded cut = decode("5\r\nhel", 100);
  BOOST_TEST(!cut.done);
  BOOST_TEST(!cut.failed);
}

BOOST_AUTO_TEST_SUITE_END()

// bodyFraming() of a message with these fields.
using Fields = std::vector<std::pair<std::string_view, std::string_view>>;

std::expected<BodyFraming, std::string> requestFraming(const Fields& fields) {
  return bodyFraming(Message::Request, fields);
}
std::expected<BodyFraming, std::string> responseFraming(const Fields& fields) {
  return bodyFraming(Message::Response, fields);
}

int kindOf(const std::expected<BodyFraming, std::string>& framing) {
  BOOST_REQUIRE_MESSAGE(framing.has_value(), "error: " << (framing ? "" : framing.error()));
  return static_cast<int>(framing->kind);
}
constexpr int kNone = static_cast<int>(BodyFraming::Kind::None);
constexpr int kLength = static_cast<int>(BodyFraming::Kind::Length);
constexpr int kChunked = static_cast<int>(BodyFraming::Kind::Chunked);
constexpr int kClose = static_cast<int>(BodyFraming::Kind::Close);

BOOST_AUTO_TEST_SUITE(body_framing)

BOOST_AUTO_TEST_CASE(a_request_without_either_field_has_no_body_and_a_response_runs_to_close) {
  BOOST_TEST(kindOf(requestFraming({{"Host", "gw"}})) == kNone);
  const auto response = responseFraming({{"Content-Type", "text/plain"}});
  BOOST_TEST(kindOf(response) == kClose);
  BOOST_TEST(response->close);
}

BOOST_AUTO_TEST_CASE(content_length_gives_the_length_and_zero_means_no_body) {
  for (const auto message : {Message::Request, Message::Response}) {
    const auto five = bodyFraming(message, Fields{{"content-LENGTH", "5"}});
    BOOST_TEST(kindOf(five) == kLength);
    BOOST_TEST(five->length == 5u);
    BOOST_TEST(!five->close);
    BOOST_TEST(kindOf(bodyFraming(message, Fields{{"Content-Length", "0"}})) == kNone);
  }
}

BOOST_AUTO_TEST_CASE(identical_repeated_content_lengths_are_one_value) {
  for (const auto message : {Message::Request, Message::Response}) {
    for (const Fields& fields : {Fields{{"Content-Length", "5, 5"}}, Fields{{"Content-Length", "5"}, {"Content-Length", "5"}},
                                 Fields{{"Content-Length", "5,5"}, {"Content-Length", " 5 "}}}) {
      const auto framing = bodyFraming(message, fields);
      BOOST_TEST(kindOf(framing) == kLength);
      BOOST_TEST(framing->length == 5u);
    }
  }
}

BOOST_AUTO_TEST_CASE(differing_or_malformed_content_lengths_are_errors) {
  for (const auto message : {Message::Request, Message::Response}) {
    for (const Fields& fields :
         {Fields{{"Content-Length", "5, 6"}}, Fields{{"Content-Length", "5"}, {"Content-Length", "6"}},
          Fields{{"Content-Length", "-1"}}, Fields{{"Content-Length", "0x10"}}, Fields{{"Content-Length", "+5"}},
          Fields{{"Content-Length", ""}}, Fields{{"Content-Length", "5"}, {"Content-Length", ""}},
          Fields{{"Content-Length", "1 2"}}, Fields{{"Content-Length", "1234567890123456789"}}}) {
      const auto framing = bodyFraming(message, fields);
      BOOST_TEST(!framing.has_value(), fields.front().second);
    }
  }
  BOOST_TEST(requestFraming({{"Content-Length", "5, 6"}}).error() == "differing Content-Length values");
}

BOOST_AUTO_TEST_CASE(chunked_as_the_final_coding_is_chunked_in_either_direction) {
  for (const auto message : {Message::Request, Message::Response}) {
    const auto plain = bodyFraming(message, Fields{{"Transfer-Encoding", "chunked"}});
    BOOST_TEST(kindOf(plain) == kChunked);
    BOOST_TEST(!plain->coded);
    BOOST_TEST(!plain->close);
    BOOST_TEST(kindOf(bodyFraming(message, Fields{{"transfer-encoding", "CHUNKED"}})) == kChunked);
    BOOST_TEST(kindOf(bodyFraming(message, Fields{{"Transfer-Encoding", " , chunked ,"}})) == kChunked);
    // Another coding before chunked: framed by chunked, the bytes still coded.
    for (const Fields& fields :
         {Fields{{"Transfer-Encoding", "gzip, chunked"}}, Fields{{"Transfer-Encoding", "gzip;level=1 ,chunked"}}}) {
      const auto coded = bodyFraming(message, fields);
      BOOST_TEST(kindOf(coded) == kChunked);
      BOOST_TEST(coded->coded);
    }
  }
}

BOOST_AUTO_TEST_CASE(row9_two_transfer_encoding_lines_are_refused) {
  for (const Fields& fields : {Fields{{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "gzip"}},
                               Fields{{"Transfer-Encoding", "gzip"}, {"Transfer-Encoding", "chunked"}},
                               Fields{{"Transfer-Encoding", "chunked"}, {"transfer-encoding", ""}}}) {
    const auto framing = requestFraming(fields);
    BOOST_REQUIRE(!framing.has_value());
    BOOST_TEST(framing.error() == "Transfer-Encoding given more than once");
  }
  // A response's lines are one list: the last coding decides.
  const auto response = responseFraming({{"Transfer-Encoding", "gzip"}, {"Transfer-Encoding", "chunked"}});
  BOOST_TEST(kindOf(response) == kChunked);
  BOOST_TEST(response->coded);
}

BOOST_AUTO_TEST_CASE(a_request_whose_final_coding_is_not_chunked_is_an_error) {
  for (const Fields& fields : {Fields{{"Transfer-Encoding", "chunked, identity"}}, Fields{{"Transfer-Encoding", "gzip"}},
                               // A suffix is not a coding: "xchunked" is not chunked.
                               Fields{{"Transfer-Encoding", "xchunked"}}, Fields{{"Transfer-Encoding", "gzip-chunked"}}}) {
    const auto framing = requestFraming(fields);
    BOOST_REQUIRE(!framing.has_value());
    BOOST_TEST(framing.error() == "chunked is not the final transfer coding");
  }
}

BOOST_AUTO_TEST_CASE(a_response_whose_final_coding_is_not_chunked_runs_to_close) {
  for (const Fields& fields : {Fields{{"Transfer-Encoding", "chunked, identity"}}, Fields{{"Transfer-Encoding", "gzip"}},
                               Fields{{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "gzip"}},
                               Fields{{"Transfer-Encoding", "xchunked"}},
                               Fields{{"Transfer-Encoding", "gzip"}, {"Content-Length", "5"}}}) {
    const auto framing = responseFraming(fields);
    BOOST_TEST(kindOf(framing) == kClose);
    BOOST_TEST(framing->coded);
    BOOST_TEST(framing->close);
  }
}

BOOST_AUTO_TEST_CASE(transfer_encoding_beside_content_length_is_an_error_in_a_request_and_wins_in_a_response) {
  const auto request = requestFraming({{"Content-Length", "5"}, {"Transfer-Encoding", "chunked"}});
  BOOST_REQUIRE(!request.has_value());
  BOOST_TEST(request.error() == "both Content-Length and Transfer-Encoding given");
  for (const Fields& fields : {Fields{{"Content-Length", "5"}, {"Transfer-Encoding", "chunked"}},
                               Fields{{"Transfer-Encoding", "chunked"}, {"Content-Length", "nonsense"}}}) {
    const auto response = responseFraming(fields);
    BOOST_TEST(kindOf(response) == kChunked);
    BOOST_TEST(response->close);  // not reused after a message that carried both
  }
}

BOOST_AUTO_TEST_CASE(chunked_twice_an_empty_or_a_malformed_coding_is_an_error_in_either_direction) {
  for (const auto message : {Message::Request, Message::Response}) {
    for (const Fields& fields : {Fields{{"Transfer-Encoding", "chunked, chunked"}},
                                 Fields{{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}},
                                 Fields{{"Transfer-Encoding", ""}}, Fields{{"Transfer-Encoding", " , "}},
                                 Fields{{"Transfer-Encoding", "chun ked"}}, Fields{{"Transfer-Encoding", "\"chunked\""}}}) {
      BOOST_TEST(!bodyFraming(message, fields).has_value(), fields.front().second);
    }
  }
}

BOOST_AUTO_TEST_CASE(names_compare_without_case_and_only_ascii_letters_fold) {
  BOOST_TEST(equalsNoCase("Transfer-Encoding", "transfer-ENCODING"));
  BOOST_TEST(!equalsNoCase("chunked", "chunke"));
  BOOST_TEST(!equalsNoCase("@", "`"));
  BOOST_TEST(!equalsNoCase("[", "{"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::net::h1
