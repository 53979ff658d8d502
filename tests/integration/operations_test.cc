// The /v1 endpoints besides chat, end to end against the real gateway, the mock provider and
// PostgreSQL: each endpoint relayed byte for byte with only the model rewritten; multipart uploads
// streamed, in both field orders; failover across two deployments; access rules, quotas and model
// kinds refused in OpenAI's shape; unknown /v1 paths answered as OpenAI answers them; and exactly
// one audit row per request, with its units and cost.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::auditRow;
using sluice::test::capture;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::Headers;
using sluice::test::HttpConnection;
using sluice::test::HttpResponse;
using sluice::test::testDatabaseUrl;

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kBoundary = "----sluice-it-7MA4YWxkTrZu0gW";

std::string unique(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000) + "-" +
         std::to_string(counter++);
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void replaceIn(const fs::path& path, const std::string& from, const std::string& to) {
  std::string text = readFile(path);
  const size_t at = text.find(from);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, path.string() + " has no '" + from + "'");
  text.replace(at, from.size(), to);
  std::ofstream(path) << text;
}

void appendTo(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::app) << text; }

// The shipped catalog, plus: an unreachable deployment in front of the embedding and audio models
// (so they fail over), per-deployment upstream models (so the rewrite shows), a moderation, a
// rerank and a speech model, a closed route, and — with `max_requests` — an enforced quota.
std::string operationsCatalog(int max_requests = 0) {
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path() / ("sluice-it-ops-" + std::to_string(::getpid()) + "-" +
                                                    std::to_string(counter++));
  fs::remove_all(dir);
  fs::copy(sluice::test::sourceDir() + "/services", dir, fs::copy_options::recursive);
  const fs::path providers = dir / "ai/providers.yaml";
  std::string yaml = readFile(providers);
  const std::string anchor = "    user_agent: sluice/1\n";
  for (size_t at = yaml.find(anchor); at != std::string::npos; at = yaml.find(anchor, at + 1)) {
    yaml.insert(at + anchor.size(), "    forward_headers: [x-mock-script]\n");
  }
  std::ofstream(providers) << yaml << R"(
  dead:
    display_name: Unreachable
    credential: openai
    breaker: { failures: 100, cooldown_s: 1 }
    endpoints:
      api: { wire: openai-chat, url: "http://127.0.0.1:1/v1" }
  rerank-host:
    display_name: A rerank service
    credential: openai
    forward_headers: [x-mock-script]
    endpoints:
      api: { wire: openai-chat, url: "${DEEPSEEK_BASE_URL}" }
)";
  appendTo(dir / "ai/models.yaml", R"(
  text-embedding-3-large:
    kind: embedding
    pricing: { input_per_million: 0.13 }
  omni-moderation:
    kind: moderation
  rerank-mock:
    kind: rerank
    pricing: { per_request: 0.002 }
  tts-mock:
    kind: audio
    pricing: { per_1k_characters: 15.00 }
)");
  const fs::path deployments = dir / "ai/deployments.yaml";
  replaceIn(deployments, "  text-embedding-3-small: [openai/api]\n",
            "  text-embedding-3-small:\n    - dead/api\n    - endpoint: openai/api\n"
            "      upstream_model: text-embedding-3-small-2024\n");
  replaceIn(deployments, "  whisper-1: [openai/api]\n",
            "  whisper-1:\n    - dead/api\n    - endpoint: openai/api\n      upstream_model: whisper-mock-2\n");
  appendTo(deployments,
           "  text-embedding-3-large: [openai/api]\n  omni-moderation: [openai/api]\n  rerank-mock: [rerank-host/api]\n"
           "  tts-mock: [openai/api]\n");
  appendTo(dir / "access-control/rules.yaml", R"(
  - entity: gateway_route/text-embedding-3-large
    default: closed
    why: The large embedding model is for the search team.
    allow: { group: [search] }
)");
  if (max_requests > 0) {
    const fs::path gateway = dir / "ai/gateway.yaml";
    replaceIn(gateway, "mode: warn", "mode: enforce");
    replaceIn(gateway, "max_requests: 600", "max_requests: " + std::to_string(max_requests));
  }
  return dir.string();
}

GatewayOptions options(const std::string& services) {
  GatewayOptions options;
  options.auth = true;
  options.services = services;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-it-operations-" + std::to_string(::getpid())};
  return options;
}

struct Member {
  std::string name;
  std::string key;
};

Member addMember(const std::string& base, const std::string& flags = "--role member") {
  Member member{unique(base), {}};
  const std::string sluicectl = sluice::test::binPath("sluicectl") + " --database-url '" + testDatabaseUrl() +
                                "' --services '" + sluice::test::sourceDir() + "/services' ";
  int code = -1;
  const std::string added = capture(sluicectl + "users add " + member.name + " " + flags + " 2>&1", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, added);
  std::string created = capture(sluicectl + "keys create " + member.name + " --name test 2>&1", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, created);
  while (!created.empty() && created.back() == '\n') created.pop_back();
  member.key = created.substr(created.rfind('\n') + 1);
  BOOST_REQUIRE(member.key.starts_with("sk-sluice-"));
  return member;
}

HttpResponse post(Gateway& gateway, const std::string& path, const Member& member, const std::string& body,
                  const std::string& content_type = "application/json", Headers extra = {}) {
  HttpConnection connection(gateway.process().host(), gateway.process().port());
  Headers headers = {{"Authorization", "Bearer " + member.key}, {"Content-Type", content_type}};
  for (auto& header : extra) headers.push_back(std::move(header));
  return connection.request("POST", path, headers, body);
}

// What the mock answers when asked directly (the gateway must relay exactly this).
HttpResponse askMock(Gateway& gateway, const std::string& path, const std::string& body,
                     const std::string& content_type = "application/json") {
  HttpConnection connection(gateway.mock().host(), gateway.mock().port());
  return connection.request("POST", path, {{"Authorization", "Bearer mock-openai-key"}, {"Content-Type", content_type}},
                            body);
}

std::string multipart(const std::vector<std::pair<std::string, std::string>>& fields, const std::string& file) {
  std::string body;
  for (const auto& [name, value] : fields) {
    if (name == "file") {
      body += "--" + std::string(kBoundary) +
              "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip.wav\"\r\nContent-Type: audio/wav\r\n\r\n" +
              file + "\r\n";
    } else {
      body += "--" + std::string(kBoundary) + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" +
              value + "\r\n";
    }
  }
  return body + "--" + std::string(kBoundary) + "--\r\n";
}

std::string multipartType() { return "multipart/form-data; boundary=" + std::string(kBoundary); }

// Audio-like bytes: every byte value, CRLFs and near-misses of the delimiter, `size` bytes in all.
std::string audio(size_t size) {
  std::string bytes;
  bytes.reserve(size);
  for (size_t i = 0; bytes.size() < size; ++i) {
    if (i % 997 == 0) bytes += "\r\n--" + std::string(kBoundary.substr(0, 12));
    bytes += static_cast<char>((i * 131) & 0xFF);
  }
  bytes.resize(size);
  return bytes;
}

json rowOf(const HttpResponse& response) {
  const std::string id = response.header("x-sluice-request-id");
  BOOST_REQUIRE(!id.empty());
  json row = auditRow(testDatabaseUrl(), id);
  BOOST_REQUIRE_MESSAGE(!row.is_null(), "no audit row for " + id);
  return row;
}

// The rows `member` left, once the background writer has written `expected` of them (or 5 s passed).
int rowsOf(const Member& member, int expected) {
  int count = -1;
  for (int i = 0; i < 50; ++i) {
    int code = -1;
    const std::string out = capture("psql '" + testDatabaseUrl() + "' -Atc \"SELECT count(*) FROM ai_requests WHERE user_name = '" +
                                        member.name + "'\" 2>&1",
                                    &code);
    BOOST_REQUIRE_MESSAGE(code == 0, out);
    count = std::stoi(out);
    if (count >= expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a late extra row would show now
  int code = -1;
  return std::stoi(capture("psql '" + testDatabaseUrl() + "' -Atc \"SELECT count(*) FROM ai_requests WHERE user_name = '" +
                               member.name + "'\"",
                           &code));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(operations)

BOOST_AUTO_TEST_CASE(embeddings_fail_over_and_are_relayed_byte_for_byte_with_the_model_rewritten) {
  Gateway gateway(options(operationsCatalog()));
  const Member member = addMember("ops-embed");
  const std::string body = R"({"input":["the quick brown fox","jumps"],"model":"text-embedding-3-small","dimensions":4})";
  const HttpResponse served = post(gateway, "/v1/embeddings", member, body);
  BOOST_TEST_REQUIRE(served.status == 200, served.body);
  const HttpResponse direct = askMock(
      gateway, "/openai/v1/embeddings",
      R"({"input":["the quick brown fox","jumps"],"model":"text-embedding-3-small-2024","dimensions":4})");
  BOOST_TEST(served.body == direct.body);
  BOOST_TEST(served.json()["model"] == "text-embedding-3-small-2024");
  BOOST_TEST(served.header("Content-Type") == "application/json");

  const json row = rowOf(served);
  BOOST_TEST(row["route_match"] ==
             "endpoint:embeddings;route:text-embedding-3-small;failover:dead->openai");
  BOOST_TEST(row["served_endpoint"] == "openai/api");
  BOOST_TEST(row["attempts"].size() == 2);
  BOOST_TEST(row["attempts"][0]["result"] == "transport:connect");
  BOOST_TEST(row["outcome"] == "ok");
  BOOST_TEST(row["input_tokens"] == served.json()["usage"]["prompt_tokens"]);
  BOOST_TEST(row["unit"].is_null());
  BOOST_TEST(row["units"] == 0);
  // 7 tokens x $0.02 per million rounds to 0 microdollars: the price is per million.
  BOOST_TEST(row["cost_microdollars"] == 0);
  BOOST_TEST(rowsOf(member, 1) == 1);
}

BOOST_AUTO_TEST_CASE(images_speech_moderations_and_rerank_are_served_and_counted) {
  Gateway gateway(options(operationsCatalog()));
  const Member member = addMember("ops-kinds");

  const HttpResponse images =
      post(gateway, "/v1/images/generations", member, R"({"model":"gpt-image-1","prompt":"a lighthouse","n":3})");
  BOOST_TEST_REQUIRE(images.status == 200, images.body);
  BOOST_TEST(images.json()["data"].size() == 3);
  const json image_row = rowOf(images);
  BOOST_TEST(image_row["unit"] == "images");
  BOOST_TEST(image_row["units"] == 3);
  BOOST_TEST(image_row["cost_microdollars"] == 3 * 40'000);  // per_image $0.04
  BOOST_TEST(image_row["route_match"] == "endpoint:images/generations;route:gpt-image-1");

  const std::string speech_body = R"({"model":"tts-mock","input":"Grüße aus Zürich","voice":"alloy","response_format":"wav"})";
  const HttpResponse speech = post(gateway, "/v1/audio/speech", member, speech_body);
  BOOST_TEST_REQUIRE(speech.status == 200, speech.body);
  const HttpResponse spoken = askMock(gateway, "/openai/v1/audio/speech", speech_body);
  BOOST_TEST(speech.body == spoken.body);  // binary, every byte value, as it came
  BOOST_TEST(speech.header("Content-Type") == "audio/wav");
  const json speech_row = rowOf(speech);
  BOOST_TEST(speech_row["unit"] == "characters");
  BOOST_TEST(speech_row["units"] == 16);  // code points, not bytes
  BOOST_TEST(speech_row["cost_microdollars"] == 240'000);  // 16 x $15 per 1000

  const HttpResponse moderation =
      post(gateway, "/v1/moderations", member, R"({"model":"omni-moderation","input":["hello","I will kill it"]})");
  BOOST_TEST_REQUIRE(moderation.status == 200, moderation.body);
  BOOST_TEST(moderation.json()["results"][0]["flagged"] == false);
  BOOST_TEST(moderation.json()["results"][1]["flagged"] == true);
  BOOST_TEST(rowOf(moderation)["unit"] == "requests");

  const HttpResponse rerank = post(gateway, "/v1/rerank", member,
                                   R"({"model":"rerank-mock","query":"red apple","documents":["green pear","red apple pie","apple"]})");
  BOOST_TEST_REQUIRE(rerank.status == 200, rerank.body);
  BOOST_TEST(rerank.json()["results"][0]["index"] == 1);
  const json rerank_row = rowOf(rerank);
  BOOST_TEST(rerank_row["served_endpoint"] == "rerank-host/api");
  BOOST_TEST(rerank_row["input_tokens"].get<int64_t>() > 0);  // the answer's usage
  BOOST_TEST(rerank_row["cost_microdollars"] == 0);           // per_request applies to answers counted in requests
  BOOST_TEST(rowsOf(member, 4) == 4);
}

BOOST_AUTO_TEST_CASE(uploads_are_streamed_with_the_model_rewritten_in_either_field_order) {
  Gateway gateway(options(operationsCatalog()));
  const Member member = addMember("ops-upload");
  const std::string file = audio(300'000);

  // The model first (Python SDK, curl): everything after it is streamed as it arrives.
  const std::string model_first = multipart({{"model", "whisper-1"}, {"file", ""}, {"response_format", "verbose_json"}}, file);
  const HttpResponse first = post(gateway, "/v1/audio/transcriptions", member, model_first, multipartType());
  BOOST_TEST_REQUIRE(first.status == 200, first.body);
  const HttpResponse direct = askMock(
      gateway, "/openai/v1/audio/transcriptions",
      multipart({{"model", "whisper-mock-2"}, {"file", ""}, {"response_format", "verbose_json"}}, file), multipartType());
  BOOST_TEST(first.body == direct.body);
  const json first_row = rowOf(first);
  BOOST_TEST(first_row["unit"] == "seconds");
  BOOST_TEST(first_row["units"] == 19);  // 300000 bytes at 16000 a second: 18.75 s, rounded up
  BOOST_TEST(first_row["cost_microdollars"] == 1'900);  // 19 s x $0.006 a minute
  BOOST_TEST(first_row["served_endpoint"] == "openai/api");
  BOOST_TEST(first_row["route_match"] ==
             "endpoint:audio/transcriptions;route:whisper-1;failover:dead->openai");

  // The file first (the Node SDK when the caller writes it first): held until the model arrives.
  const std::string file_first = multipart({{"file", ""}, {"model", "whisper-1"}}, file);
  const HttpResponse second = post(gateway, "/v1/audio/transcriptions", member, file_first, multipartType());
  BOOST_TEST_REQUIRE(second.status == 200, second.body);
  BOOST_TEST(second.json()["text"] == direct.json()["text"]);
  BOOST_TEST(rowOf(second)["units"] == 19);  // from usage {"type":"duration","seconds":19}

  // What the provider received: the client's body with only the model's value changed.
  const std::string text_file = "RIFF\r\n--" + std::string(kBoundary.substr(0, 20)) + "\r\nnot a delimiter\r\n";
  const HttpResponse echoed =
      post(gateway, "/v1/audio/translations", member, multipart({{"file", ""}, {"model", "whisper-1"}}, text_file),
           multipartType(), {{"x-mock-script", R"({"echo":true})"}});
  BOOST_TEST_REQUIRE(echoed.status == 200, echoed.body);
  BOOST_TEST(echoed.json()["body"] == multipart({{"file", ""}, {"model", "whisper-mock-2"}}, text_file));
  BOOST_TEST(echoed.json()["path"] == "/openai/v1/audio/translations");
  BOOST_TEST(rowsOf(member, 3) == 3);
}

BOOST_AUTO_TEST_CASE(refusals_come_in_openais_shape_and_are_audited) {
  Gateway gateway(options(operationsCatalog()));
  const Member member = addMember("ops-refused");
  const Member searcher = addMember("ops-search", "--role member --group search");

  const HttpResponse denied =
      post(gateway, "/v1/embeddings", member, R"({"model":"text-embedding-3-large","input":"x"})");
  BOOST_TEST(denied.status == 403);
  BOOST_TEST(denied.json()["error"]["code"] == "access_denied");
  BOOST_TEST(rowOf(denied)["outcome"] == "access_denied");
  const HttpResponse allowed =
      post(gateway, "/v1/embeddings", searcher, R"({"model":"text-embedding-3-large","input":"x"})");
  BOOST_TEST(allowed.status == 200, allowed.body);

  const HttpResponse chat_model = post(gateway, "/v1/embeddings", member, R"({"model":"claude-haiku-5-5","input":"x"})");
  BOOST_TEST(chat_model.status == 400);
  BOOST_TEST(chat_model.json()["error"]["code"] == "model_kind_mismatch");
  BOOST_TEST(chat_model.json()["error"]["type"] == "invalid_request_error");
  BOOST_TEST(chat_model.json()["error"]["param"] == "model");
  const HttpResponse embedding_on_chat = post(
      gateway, "/v1/chat/completions", member,
      R"({"model":"text-embedding-3-small","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(embedding_on_chat.status == 400);
  BOOST_TEST(embedding_on_chat.json()["error"]["code"] == "model_kind_mismatch");

  const HttpResponse no_model = post(gateway, "/v1/embeddings", member, R"({"input":"x"})");
  BOOST_TEST(no_model.status == 400);
  BOOST_TEST(no_model.json()["error"]["param"] == "model");
  const HttpResponse twice =
      post(gateway, "/v1/embeddings", member, R"({"model":"text-embedding-3-small","input":"x","model":"x"})");
  BOOST_TEST(twice.status == 400);

  const HttpResponse not_multipart = post(gateway, "/v1/audio/transcriptions", member, R"({"model":"whisper-1"})");
  BOOST_TEST(not_multipart.status == 415);
  const HttpResponse two_models = post(gateway, "/v1/audio/transcriptions", member,
                                       multipart({{"model", "whisper-1"}, {"model", "whisper-1"}, {"file", ""}}, "abc"),
                                       multipartType());
  BOOST_TEST(two_models.status == 400);
  BOOST_TEST(two_models.json()["error"]["message"] == "the multipart body names 'model' more than once");

  // The provider's own error is relayed as it came.
  const HttpResponse provider_error = post(gateway, "/v1/moderations", member, R"({"model":"omni-moderation"})");
  BOOST_TEST(provider_error.status == 400);
  BOOST_TEST(provider_error.json()["error"]["param"] == "input");

  // Exactly one row per request above.
  BOOST_TEST(rowsOf(member, 8) == 8);
  BOOST_TEST(rowsOf(searcher, 1) == 1);
}

BOOST_AUTO_TEST_CASE(an_enforced_quota_refuses_the_other_endpoints_too) {
  Gateway gateway(options(operationsCatalog(2)));
  const Member member = addMember("ops-quota");
  const std::string body = R"({"model":"text-embedding-3-small","input":"x"})";
  BOOST_TEST(post(gateway, "/v1/embeddings", member, body).status == 200);
  BOOST_TEST(post(gateway, "/v1/images/generations", member, R"({"model":"gpt-image-1","prompt":"p"})").status == 200);
  const HttpResponse refused = post(gateway, "/v1/embeddings", member, body);
  BOOST_TEST(refused.status == 429);
  BOOST_TEST(refused.json()["error"]["code"] == "quota_exceeded");
  BOOST_TEST(rowOf(refused)["outcome"] == "quota_exceeded");
  BOOST_TEST(rowsOf(member, 3) == 3);
}

BOOST_AUTO_TEST_CASE(a_v1_path_nothing_serves_is_404_unknown_url) {
  Gateway gateway(options(operationsCatalog()));
  const Member member = addMember("ops-404");
  for (const std::string path : {"/v1/files", "/v1/images/edits", "/v1/assistants/a1", "/v1"}) {
    const HttpResponse response = post(gateway, path, member, "{}");
    BOOST_TEST(response.status == 404, path);
    const json error = response.json()["error"];
    BOOST_TEST(error["type"] == "invalid_request_error");
    BOOST_TEST(error["code"] == "unknown_url");
    BOOST_TEST(error["param"].is_null());
    BOOST_TEST(error["message"] == "Invalid URL (POST " + path + ")");
  }
  // A served path with another method is still 405.
  HttpConnection connection(gateway.process().host(), gateway.process().port());
  BOOST_TEST(connection.request("GET", "/v1/embeddings").status == 405);
}

BOOST_AUTO_TEST_SUITE_END()
