// Runs the real sluice-mock-provider on port 0 and talks to it over HTTP.

#include <chrono>
#include <memory>
#include <thread>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/child_process.h"
#include "tests/support/http_client.h"
#include "tests/support/sse.h"
#include "tests/support/test_env.h"

using namespace sluice::test;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

struct MockServer {
  MockServer() {
    instance = new ChildProcess({.binary = binPath("sluice-mock-provider"),
                                 .args = {"--listen", "127.0.0.1:0", "--fixtures", fixturesDir()}});
  }
  ~MockServer() {
    delete instance;
    instance = nullptr;
  }
  static inline ChildProcess* instance = nullptr;
};

std::string url(const std::string& path) { return MockServer::instance->baseUrl() + path; }

const Headers kAnthropic{{"x-api-key", "test-key"}, {"anthropic-version", "2023-06-01"}, {"content-type", "application/json"}};
const Headers kOpenAi{{"Authorization", "Bearer test-key"}, {"content-type", "application/json"}};
const Headers kGemini{{"x-goog-api-key", "test-key"}, {"content-type", "application/json"}};

Headers with(Headers headers, const std::string& script) {
  headers.emplace_back("x-mock-script", script);
  return headers;
}

const std::string kAnthropicStream =
    R"({"model":"claude-test","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hello"}]})";

json stats() { return request("GET", url("/_mock/stats")).json(); }

json pathStats(const std::string& path) {
  const json all = stats();
  return all["paths"].contains(path) ? all["paths"][path] : json::object();
}

// Polls the stats of `path` until `ready` holds or two seconds pass.
json waitForStats(const std::string& path, const std::function<bool(const json&)>& ready) {
  const auto deadline = Clock::now() + milliseconds(2'000);
  json current = pathStats(path);
  while (!ready(current) && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
    current = pathStats(path);
  }
  return current;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(mock_provider_integration, *boost::unit_test::fixture<MockServer>())

BOOST_AUTO_TEST_CASE(prints_the_listening_line_and_answers_health) {
  BOOST_TEST(MockServer::instance->port() > 0);
  BOOST_TEST(MockServer::instance->stdoutText().starts_with("listening on 127.0.0.1:"));
  const auto response = request("GET", url("/_mock/health"));
  BOOST_TEST(response.status == 200);
  BOOST_TEST(response.json()["status"] == "ok");
}

BOOST_AUTO_TEST_CASE(anthropic_messages_stream_and_not) {
  const auto plain = request("POST", url("/a1/v1/messages"), kAnthropic,
                             R"({"model":"claude-test","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]})");
  BOOST_TEST(plain.status == 200);
  BOOST_TEST(plain.header("request-id") != "");
  const json body = plain.json();
  BOOST_TEST(body["content"][0]["text"] == "Hello from the mock provider (claude-test).");
  BOOST_TEST(body["usage"]["input_tokens"] == 2);

  const auto streamed = requestStream("POST", url("/anthropic/v1/messages"), kAnthropic, kAnthropicStream, {});
  BOOST_TEST(streamed.complete);
  BOOST_TEST(streamed.header("content-type").starts_with("text/event-stream"));
  const auto events = parseSse(streamed.body);
  BOOST_TEST_REQUIRE(events.size() == 12u);
  BOOST_TEST(events.front().event == "message_start");
  BOOST_TEST(events.back().event == "message_stop");

  const auto count = request("POST", url("/v1/messages/count_tokens"), kAnthropic,
                             R"({"model":"claude-test","messages":[{"role":"user","content":"Hello world!"}]})");
  BOOST_TEST(count.json()["input_tokens"] == 3);
}

BOOST_AUTO_TEST_CASE(openai_chat_and_responses_stream_and_not) {
  const std::string chat = R"({"model":"gpt-test","messages":[{"role":"user","content":"Hi"}]})";
  const auto plain = request("POST", url("/openai/v1/chat/completions"), kOpenAi, chat);
  BOOST_TEST(plain.json()["choices"][0]["message"]["content"] == "Hello from the mock provider (gpt-test).");
  BOOST_TEST(plain.header("x-request-id") != "");

  const auto streamed = requestStream("POST", url("/v1/chat/completions"), kOpenAi,
                                      R"({"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},
                                          "messages":[{"role":"user","content":"Hi"}]})",
                                      {});
  BOOST_TEST(streamed.complete);
  const auto events = parseSse(streamed.body);
  BOOST_TEST(events.back().data == "[DONE]");
  BOOST_TEST(json::parse(events[events.size() - 2].data)["usage"]["prompt_tokens"] == 1);

  const auto responses = requestStream("POST", url("/v1/responses"), kOpenAi,
                                       R"({"model":"gpt-test","stream":true,"input":"Hi"})", {});
  const auto response_events = parseSse(responses.body);
  BOOST_TEST(response_events.front().event == "response.created");
  BOOST_TEST(response_events.back().event == "response.completed");
  for (std::size_t i = 0; i < response_events.size(); ++i)
    BOOST_TEST(json::parse(response_events[i].data)["sequence_number"] == i);
  const auto plain_response = request("POST", url("/v1/responses"), kOpenAi, R"({"model":"gpt-test","input":"Hi"})");
  BOOST_TEST(plain_response.json()["status"] == "completed");
}

BOOST_AUTO_TEST_CASE(gemini_generate_and_stream) {
  const std::string body = R"({"contents":[{"role":"user","parts":[{"text":"Hi"}]}]})";
  const auto plain = request("POST", url("/v1beta/models/gemini-test:generateContent"), kGemini, body);
  BOOST_TEST(plain.json()["candidates"][0]["content"]["parts"][0]["text"] == "Hello from the mock provider (gemini-test).");

  const auto sse = requestStream("POST", url("/v1beta/models/gemini-test:streamGenerateContent?alt=sse"), kGemini, body, {});
  BOOST_TEST(sse.complete);
  BOOST_TEST(sse.body.ends_with("\r\n\r\n"));
  BOOST_TEST(sse.body.find("\n\ndata") == std::string::npos);  // separators are \r\n\r\n only
  const auto events = parseSse(sse.body);
  BOOST_TEST(json::parse(events.back().data)["candidates"][0]["finishReason"] == "STOP");

  const auto array = request("POST", url("/v1beta/models/gemini-test:streamGenerateContent?key=k"),
                             {{"content-type", "application/json"}}, body);
  BOOST_TEST(array.json().is_array());
  BOOST_TEST(array.json().size() == events.size());
}

BOOST_AUTO_TEST_CASE(missing_credentials_get_each_provider_error_shape) {
  const auto anthropic = request("POST", url("/v1/messages"), {{"anthropic-version", "2023-06-01"}}, kAnthropicStream);
  BOOST_TEST(anthropic.status == 401);
  BOOST_TEST(anthropic.json()["error"]["type"] == "authentication_error");
  BOOST_TEST(anthropic.json()["type"] == "error");

  const auto version = request("POST", url("/v1/messages"), {{"x-api-key", "k"}}, kAnthropicStream);
  BOOST_TEST(version.status == 400);

  const auto no_max = request("POST", url("/v1/messages"), kAnthropic, R"({"model":"m","messages":[]})");
  BOOST_TEST(no_max.status == 400);
  BOOST_TEST(no_max.json()["error"]["message"] == "max_tokens: Field required");

  const auto openai = request("POST", url("/v1/chat/completions"), {{"x-api-key", "k"}}, R"({"model":"m","messages":[]})");
  BOOST_TEST(openai.status == 401);
  BOOST_TEST(openai.json()["error"].contains("code"));

  const auto bad_json = request("POST", url("/v1/chat/completions"), kOpenAi, "{nope");
  BOOST_TEST(bad_json.status == 400);
  BOOST_TEST(bad_json.json()["error"]["type"] == "invalid_request_error");

  const auto gemini = request("POST", url("/v1beta/models/g:generateContent"), {}, R"({"contents":[]})");
  BOOST_TEST(gemini.status == 403);
  BOOST_TEST(gemini.json()["error"]["status"] == "PERMISSION_DENIED");

  const auto unknown = request("POST", url("/v1/files"), kOpenAi, "{}");
  BOOST_TEST(unknown.status == 404);
  const auto no_model = request("POST", url("/v1/embeddings"), kOpenAi, "{}");
  BOOST_TEST(no_model.status == 400);
  BOOST_TEST(no_model.json()["error"]["param"] == "model");
  const auto keyless = request("POST", url("/v1/embeddings"), {}, R"({"model":"e","input":"x"})");
  BOOST_TEST(keyless.status == 401);
}

BOOST_AUTO_TEST_CASE(error_script_answers_the_status_with_retry_after) {
  const auto anthropic = request("POST", url("/v1/messages"), with(kAnthropic, R"({"status":529,"retry_after":3})"), kAnthropicStream);
  BOOST_TEST(anthropic.status == 529);
  BOOST_TEST(anthropic.header("retry-after") == "3");
  BOOST_TEST(anthropic.json()["error"]["type"] == "overloaded_error");
  BOOST_TEST(anthropic.json()["request_id"] == anthropic.header("request-id"));

  const auto openai = request("POST", url("/v1/chat/completions"),
                              with(kOpenAi, R"({"status":429,"error_code":"insufficient_quota","error_type":"insufficient_quota"})"),
                              R"({"model":"m","messages":[]})");
  BOOST_TEST(openai.status == 429);
  BOOST_TEST(openai.json()["error"]["code"] == "insufficient_quota");

  const auto gemini = request("POST", url("/v1beta/models/g:generateContent"), with(kGemini, R"({"status":503})"),
                              R"({"contents":[]})");
  BOOST_TEST(gemini.status == 503);
  BOOST_TEST(gemini.json()["error"]["status"] == "UNAVAILABLE");

  const auto bad_script = request("POST", url("/v1/messages"), with(kAnthropic, R"({"stauts":1})"), kAnthropicStream);
  BOOST_TEST(bad_script.status == 400);
  BOOST_TEST(bad_script.json()["error"]["message"].get<std::string>().find("stauts") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(delay_holds_back_the_first_byte) {
  const auto started = Clock::now();
  const auto response = request("POST", url("/v1/messages"), with(kAnthropic, R"({"delay_ms":250})"), kAnthropicStream);
  BOOST_TEST(response.status == 200);
  BOOST_TEST(std::chrono::duration_cast<milliseconds>(Clock::now() - started).count() >= 250);
}

BOOST_AUTO_TEST_CASE(reset_after_events_truncates_the_stream) {
  const std::string path = "/reset/v1/messages";
  const auto result = requestStream("POST", url(path), with(kAnthropic, R"({"reset_after_events":3})"), kAnthropicStream, {});
  BOOST_TEST(result.status == 200);
  BOOST_TEST(!result.complete);
  BOOST_TEST(!result.error.empty());
  BOOST_TEST(result.body.find("message_stop") == std::string::npos);
  const json counters = waitForStats(path, [](const json& s) { return s.value("streams_reset", 0) == 1; });
  BOOST_TEST(counters["streams_reset"] == 1);
  BOOST_TEST(counters["events_sent"] == 3);
  BOOST_TEST(counters["streams_completed"] == 0);
}

BOOST_AUTO_TEST_CASE(stall_keeps_the_connection_open_until_the_client_leaves) {
  const std::string path = "/stall/v1/messages";
  const auto result = requestStream("POST", url(path), with(kAnthropic, R"({"stall_after_events":2})"), kAnthropicStream, {},
                                    milliseconds(400));
  BOOST_TEST(!result.complete);
  BOOST_TEST(result.error == "timeout");
  BOOST_TEST(parseSse(result.body).size() == 2u);
  const json counters = waitForStats(path, [](const json& s) { return s.value("streams_aborted", 0) == 1; });
  BOOST_TEST(counters["streams_stalled"] == 1);
  BOOST_TEST(counters["streams_aborted"] == 1);
  BOOST_TEST(counters["events_sent"] == 2);
}

BOOST_AUTO_TEST_CASE(client_hang_up_is_counted_as_aborted) {
  const std::string path = "/hangup/v1/chat/completions";
  const auto result = requestStream(
      "POST", url(path), with(kOpenAi, R"({"chunk_delay_ms":30,"text":"one two three four five six seven eight nine ten eleven twelve"})"),
      R"({"model":"gpt-test","stream":true,"messages":[{"role":"user","content":"Hi"}]})",
      [](std::string_view, const std::string& so_far) { return parseSse(so_far).size() < 3; });
  BOOST_TEST(result.hung_up);
  BOOST_TEST(!result.complete);
  const json counters = waitForStats(path, [](const json& s) { return s.value("streams_aborted", 0) == 1; });
  BOOST_TEST(counters["streams_started"] == 1);
  BOOST_TEST(counters["streams_aborted"] == 1);
  BOOST_TEST(counters["streams_completed"] == 0);
  BOOST_TEST(counters["events_sent"].get<int>() < 15);  // 12 words + role + finish + [DONE]
}

BOOST_AUTO_TEST_CASE(in_stream_error_arrives_after_a_200) {
  const auto result = requestStream("POST", url("/v1/messages"), with(kAnthropic, R"({"in_stream_error":2})"), kAnthropicStream, {});
  BOOST_TEST(result.status == 200);
  BOOST_TEST(result.complete);
  const auto events = parseSse(result.body);
  BOOST_TEST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events[2].event == "error");
  BOOST_TEST(json::parse(events[2].data)["error"]["type"] == "overloaded_error");
}

BOOST_AUTO_TEST_CASE(echo_returns_what_was_received) {
  const auto response = request("POST", url("/echo/v1/chat/completions?x=1"), with(kOpenAi, R"({"echo":true})"),
                                R"({"model":"m","messages":[]})");
  BOOST_TEST(response.status == 200);
  const json echo = response.json();
  BOOST_TEST(echo["method"] == "POST");
  BOOST_TEST(echo["path"] == "/echo/v1/chat/completions");
  BOOST_TEST(echo["query"] == "x=1");
  BOOST_TEST(echo["headers"]["authorization"] == "Bearer test-key");
  BOOST_TEST(echo["json"]["model"] == "m");
  BOOST_TEST(echo["body"] == R"({"model":"m","messages":[]})");
}

BOOST_AUTO_TEST_CASE(fixtures_replay_recorded_traffic) {
  const auto chunks = requestStream("POST", url("/v1/chat/completions"),
                                    with(kOpenAi, R"({"fixture":"openai-chat/vercel-ai__azure-model-router.1.chunks.txt"})"),
                                    R"({"model":"m","messages":[]})", {});
  BOOST_TEST(chunks.complete);
  BOOST_TEST(parseSse(chunks.body).back().data == "[DONE]");

  const auto cassette = request("POST", url("/v1/messages"),
                                with(kAnthropic, R"({"fixture":"anthropic/pydantic-ai__test_model_name_suggestion--anthropic.yaml"})"),
                                kAnthropicStream);
  BOOST_TEST(cassette.status == 404);
  BOOST_TEST(cassette.json()["error"]["type"] == "not_found_error");

  const auto json_body = request("POST", url("/v1beta/models/g:generateContent"),
                                 with(kGemini, R"({"fixture":"gemini/vercel-ai__google-429-retry-info.json","status":429})"),
                                 R"({"contents":[]})");
  BOOST_TEST(json_body.status == 429);
  BOOST_TEST(json_body.json()["error"]["status"] == "RESOURCE_EXHAUSTED");

  const auto missing = request("POST", url("/v1/messages"), with(kAnthropic, R"({"fixture":"anthropic/nope.json"})"), kAnthropicStream);
  BOOST_TEST(missing.status == 400);
}

BOOST_AUTO_TEST_CASE(stats_last_requests_and_reset) {
  request("POST", url("/last/v1/messages"), kAnthropic, kAnthropicStream);
  const json last = request("GET", url("/_mock/last")).json();
  BOOST_TEST(last["path"] == "/last/v1/messages");
  BOOST_TEST(last["wire"] == "anthropic");
  BOOST_TEST(last["headers"]["x-api-key"] == "test-key");
  BOOST_TEST(!last["headers"].contains("authorization"));
  const json counters = pathStats("/last/v1/messages");
  BOOST_TEST(counters["requests"] == 1);
  BOOST_TEST(counters["bytes_received"] == kAnthropicStream.size());
  BOOST_TEST(counters["statuses"]["200"] == 1);
  BOOST_TEST(request("GET", url("/_mock/requests")).json().back()["path"] == "/last/v1/messages");

  BOOST_TEST(request("POST", url("/_mock/reset")).status == 200);
  BOOST_TEST(stats()["totals"]["requests"] == 0);
  BOOST_TEST(request("GET", url("/_mock/last")).status == 404);
}

BOOST_AUTO_TEST_CASE(a_reset_non_streamed_body_arrives_cut) {
  HttpConnection connection("127.0.0.1", MockServer::instance->port());
  const auto cut = connection.stream("POST", "/v1/chat/completions", with(kOpenAi, R"({"reset_after_events":1})"),
                                     R"({"model":"gpt-test","messages":[]})", {});
  BOOST_TEST(cut.status == 200);
  BOOST_TEST(!cut.complete);
  BOOST_TEST(!cut.error.empty());
  BOOST_TEST(cut.body.size() < std::stoul(cut.header("content-length")));
  BOOST_TEST(!connection.isOpen());
}

BOOST_AUTO_TEST_CASE(serves_many_streams_at_once) {
  constexpr int kStreams = 16;
  std::vector<std::thread> clients;
  std::vector<int> complete(kStreams, 0);
  for (int i = 0; i < kStreams; ++i)
    clients.emplace_back([&, i] {
      const auto result = requestStream("POST", url("/many/v1/messages"), with(kAnthropic, R"({"chunk_delay_ms":10})"),
                                        kAnthropicStream, {});
      complete[i] = result.complete && parseSse(result.body).size() == 12u;
    });
  for (auto& client : clients) client.join();
  for (int i = 0; i < kStreams; ++i) BOOST_TEST(complete[i] == 1);
  const json counters = pathStats("/many/v1/messages");
  BOOST_TEST(counters["streams_completed"] == kStreams);
  BOOST_TEST(counters["events_sent"] == kStreams * 12);
}

BOOST_AUTO_TEST_CASE(keeps_the_connection_alive_across_requests) {
  HttpConnection connection("127.0.0.1", MockServer::instance->port());
  for (int i = 0; i < 3; ++i) {
    const auto streamed = connection.stream("POST", "/v1/messages", kAnthropic, kAnthropicStream, {});
    BOOST_TEST(streamed.complete);
    BOOST_TEST(connection.request("GET", "/_mock/health").status == 200);
  }
  BOOST_TEST(connection.connectCount() == 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(child_process)

BOOST_AUTO_TEST_CASE(sigterm_stops_the_mock_with_exit_code_zero) {
  ChildProcess mock({.binary = binPath("sluice-mock-provider"), .args = {"--listen", "127.0.0.1:0", "--quiet"}});
  BOOST_TEST(request("GET", mock.baseUrl() + "/_mock/health").status == 200);
  BOOST_TEST(mock.stop() == 0);
  BOOST_TEST(!mock.running());
}

BOOST_AUTO_TEST_CASE(a_child_that_exits_leaves_all_its_output_readable) {
  ChildProcess child({.binary = "/bin/sh",
                      .args = {"-c", "i=0; while [ $i -lt 3000 ]; do echo line$i >&2; i=$((i+1)); done; echo done; exit 2"},
                      .wait_for_listening = false});
  const auto code = child.waitForExit(milliseconds(10'000));
  BOOST_TEST_REQUIRE(code.has_value());
  BOOST_TEST(*code == 2);
  BOOST_TEST(child.stderrText().find("line2999\n") != std::string::npos);
  BOOST_TEST(child.stdoutText() == "done\n");
  BOOST_TEST(child.port() == 0);
}

BOOST_AUTO_TEST_CASE(start_failure_reports_the_child_stderr) {
  try {
    ChildProcess failing({.binary = "/bin/sh", .args = {"-c", "echo boom-from-child >&2; exit 3"}});
    BOOST_FAIL("expected a start-up failure");
  } catch (const std::runtime_error& error) {
    BOOST_TEST(std::string(error.what()).find("boom-from-child") != std::string::npos);
    BOOST_TEST(std::string(error.what()).find("exited before printing") != std::string::npos);
  }
  ChildProcess env_child({.binary = "/bin/sh",
                          .args = {"-c", "echo listening on 127.0.0.1:$MOCK_TEST_PORT; exec sleep 30"},
                          .env = {{"MOCK_TEST_PORT", "4321"}}});
  BOOST_TEST(env_child.port() == 4321);
  BOOST_TEST(env_child.stop(milliseconds(2'000)) == 128 + 15);
}

BOOST_AUTO_TEST_SUITE_END()
