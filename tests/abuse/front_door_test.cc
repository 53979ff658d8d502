// The front door's parsing against the real gateway, black-box: what a request's head and a
// form's part headers may say twice is refused or read as one value, never read two ways (the
// findings of docs/security.md's "The front door" section).
#include <chrono>
#include <string>

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/integration/members.h"
#include "tests/support/raw_connection.h"
#include "tests/support/test_env.h"

using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::RawConnection;
using namespace std::chrono_literals;

namespace {

const std::string kMessages = R"({"model":"claude-haiku-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";
constexpr std::string_view kBoundary = "----sluice-front-door";

// Sends `request` on a new connection and returns what came back before the gateway closed it.
std::string roundTrip(Gateway& gateway, const std::string& request) {
  RawConnection raw(sluice::test::portOf(gateway.baseUrl()));
  BOOST_REQUIRE(raw.send(request));
  return raw.readUntilClosed(10s);
}

nlohmann::json bodyOf(const std::string& answer) {
  return nlohmann::json::parse(answer.substr(answer.find("\r\n\r\n") + 4), nullptr, false);
}

std::string part(std::string_view headers, std::string_view value) {
  return "--" + std::string(kBoundary) + "\r\n" + std::string(headers) + "\r\n\r\n" + std::string(value) + "\r\n";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(front_door)

// "Content-Length: N, N" is one length (RFC 9110 §8.6); it used to reach a handler as a list it
// could not parse, and the caller got 500 internal_error.
BOOST_AUTO_TEST_CASE(a_content_length_list_of_equal_values_is_served_as_that_length) {
  Gateway gateway;
  const std::string length = std::to_string(kMessages.size());
  for (const std::string& lengths : {"Content-Length: " + length + ", " + length + "\r\n",
                                     "Content-Length: " + length + "\r\nContent-Length: " + length + "\r\n"}) {
    const std::string answer =
        roundTrip(gateway, "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                           "Content-Type: application/json\r\n" + lengths + "\r\n" + kMessages);
    BOOST_TEST(answer.starts_with("HTTP/1.1 200"), answer.substr(0, 400));
  }
  // Lengths that differ stay refused.
  const std::string differ = roundTrip(gateway, "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "Content-Length: " + length + ", 1\r\n\r\n" + kMessages);
  BOOST_TEST(differ.starts_with("HTTP/1.1 400"), differ.substr(0, 400));
}

// RFC 9112 §3.2: more than one Host line is answered 400 before any handler runs.
BOOST_AUTO_TEST_CASE(a_request_with_two_host_lines_is_refused_with_400) {
  Gateway gateway;
  const std::string answer =
      roundTrip(gateway, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: internal.example\r\n\r\n");
  BOOST_TEST(answer.starts_with("HTTP/1.1 400 Bad Request\r\n"), answer);
  BOOST_TEST(bodyOf(answer)["error"]["message"] == "malformed HTTP request: more than one Host header field");
}

// A form part with two Content-Disposition lines (`note`, then `model`) used to pass as `note`:
// a provider reading the last line read a second model the gateway never authorised. Either
// place of the smuggled part is refused with 400 in OpenAI's shape.
BOOST_AUTO_TEST_CASE(a_second_model_hidden_in_a_form_part_is_refused) {
  GatewayOptions options;
  options.auth = true;
  options.extra_args = {"--database-url", sluice::test::testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-abuse-front-" + std::to_string(::getpid())};
  Gateway gateway(options);
  const auto member = sluice::test::newMember("front-door");
  const std::string smuggled = part("Content-Disposition: form-data; name=\"note\"\r\n"
                                    "Content-Disposition: form-data; name=\"model\"",
                                    "whisper-pricey");
  const std::string model = part("Content-Disposition: form-data; name=\"model\"", "whisper-1");
  const std::string file =
      part("Content-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav", "RIFF");
  const std::string closing = "--" + std::string(kBoundary) + "--\r\n";
  for (const std::string& form : {smuggled + model + file + closing, model + smuggled + file + closing}) {
    const std::string answer = roundTrip(
        gateway, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + member.key +
                     "\r\nContent-Type: multipart/form-data; boundary=" + std::string(kBoundary) +
                     "\r\nConnection: close\r\nContent-Length: " + std::to_string(form.size()) + "\r\n\r\n" + form);
    BOOST_TEST(answer.starts_with("HTTP/1.1 400"), answer.substr(0, 600));
    const nlohmann::json body = bodyOf(answer);
    BOOST_TEST(body["error"]["type"] == "invalid_request_error", answer.substr(0, 600));
    BOOST_TEST(body["error"]["message"] == "a multipart part has more than one Content-Disposition");
  }
  const std::string upper = part("Content-Disposition: form-data; name=\"MODEL\"", "whisper-pricey");
  const std::string twice = model + upper + file + closing;
  const std::string answer = roundTrip(
      gateway, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + member.key +
                   "\r\nContent-Type: multipart/form-data; boundary=" + std::string(kBoundary) +
                   "\r\nConnection: close\r\nContent-Length: " + std::to_string(twice.size()) + "\r\n\r\n" + twice);
  BOOST_TEST(answer.starts_with("HTTP/1.1 400"), answer.substr(0, 600));
  BOOST_TEST(bodyOf(answer)["error"]["message"] == "the multipart body names 'model' more than once");
}

BOOST_AUTO_TEST_SUITE_END()
