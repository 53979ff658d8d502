// Conversation affinity against the real gateway and the mock provider's simulated prefix cache:
// a 20-turn agent conversation on a weighted route of two deployments stays on one of them (and
// reads its history from the cache), while the same route without affinity spreads it.

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;

namespace {

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The shipped catalog with two Anthropic deployments (east and west, two paths of the mock) and
// two weighted routes over them for claude-haiku-5-5: `pooled` (affinity by default) and `spread`
// (affinity: none).
std::string pooledCatalog() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sluice-it-affinity-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(sluice::test::sourceDir() + "/services", dir, fs::copy_options::recursive);
  std::string providers = readFile(dir / "ai/providers.yaml");
  const std::string api = R"(      api: { wire: anthropic, url: "${ANTHROPIC_BASE_URL:-https://api.anthropic.com}" })";
  const size_t at = providers.find(api);
  BOOST_REQUIRE(at != std::string::npos);
  providers.insert(at + api.size(), "\n      east: { wire: anthropic, url: \"${ANTHROPIC_BASE_URL}/east\" }"
                                    "\n      west: { wire: anthropic, url: \"${ANTHROPIC_BASE_URL}/west\" }");
  const std::string agent = "    user_agent: sluice/1\n";
  for (size_t a = providers.find(agent); a != std::string::npos; a = providers.find(agent, a + 1)) {
    providers.insert(a + agent.size(), "    forward_headers: [x-mock-script]\n");
  }
  std::ofstream(dir / "ai/providers.yaml") << providers;
  std::string deployments = readFile(dir / "ai/deployments.yaml");
  const std::string haiku = "  claude-haiku-5-5: [anthropic/api]";
  BOOST_REQUIRE(deployments.find(haiku) != std::string::npos);
  deployments.replace(deployments.find(haiku), haiku.size(), "  claude-haiku-5-5: [anthropic/east, anthropic/west]");
  std::ofstream(dir / "ai/deployments.yaml") << deployments;
  std::ofstream(dir / "ai/gateway.yaml")
      << "gateway:\n  default_model: claude-sonnet-5-5\n  routes:\n"
         "    - { id: pooled, alias: claude-haiku-5-5, strategy: weighted,"
         " deployments: [anthropic/east, anthropic/west] }\n"
         "    - { id: spread, alias: claude-haiku-5-5, strategy: weighted, affinity: none,"
         " deployments: [anthropic/east, anthropic/west] }\n";
  return dir.string();
}

struct Conversation {
  double cache_read_share = 0;
  std::set<std::string> deployments;  // the mock paths that served it
};

// A 20-turn agent conversation: a long system prompt and a growing history, every turn resent.
Conversation converse(Gateway& gateway, const std::string& model, const std::string& session) {
  sluice::test::HttpConnection(gateway.mock().host(), gateway.mock().port()).request("POST", "/_mock/reset");
  const std::string system(8000, 's');
  json messages = json::array();
  int64_t cache_read = 0;
  int64_t prompt = 0;
  Conversation result;
  for (int turn = 0; turn < 20; ++turn) {
    messages.push_back({{"role", "user"}, {"content", "turn " + std::to_string(turn) + ": fix the next failing test"}});
    const json body{{"model", model}, {"max_tokens", 100}, {"system", system}, {"messages", messages}};
    const auto reply = gateway.call("POST", "/v1/messages",
                                    {{"x-mock-script", R"({"prefix_cache":true})"}, {"x-claude-code-session-id", session}},
                                    body.dump());
    BOOST_REQUIRE_MESSAGE(reply.status == 200, reply.body);
    const json answer = reply.json();
    const json& usage = answer["usage"];
    cache_read += usage.value("cache_read_input_tokens", 0);
    prompt += usage.value("input_tokens", 0) + usage.value("cache_read_input_tokens", 0) +
              usage.value("cache_creation_input_tokens", 0);
    messages.push_back({{"role", "assistant"}, {"content", answer["content"]}});
    const std::string path = gateway.mockJson("/_mock/last")["path"];
    result.deployments.insert(path.substr(0, path.find("/v1/")));
  }
  result.cache_read_share = static_cast<double>(cache_read) / static_cast<double>(prompt);
  return result;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(affinity)

BOOST_AUTO_TEST_CASE(a_twenty_turn_conversation_stays_on_one_deployment_and_reads_the_cache) {
  GatewayOptions options;
  options.services = pooledCatalog();
  Gateway gateway(options);
  const Conversation pinned = converse(gateway, "pooled", "session-affinity-1");
  const Conversation spread = converse(gateway, "spread", "session-affinity-2");
  BOOST_TEST_MESSAGE("cache-read share of the prompt over 20 turns: with affinity "
                     << pinned.cache_read_share << ", without " << spread.cache_read_share
                     << "; prompt tokens paid in full: " << (1 - pinned.cache_read_share) << " vs "
                     << (1 - spread.cache_read_share));
  BOOST_TEST(pinned.deployments.size() == 1u);
  BOOST_TEST(spread.deployments.size() == 2u);  // 20 weighted draws of two: all alike has p = 2^-19
  BOOST_TEST(pinned.cache_read_share > 0.9);
  BOOST_TEST(spread.cache_read_share < pinned.cache_read_share);

  const std::string metrics = gateway.call("GET", "/metrics").body;
  BOOST_TEST(metrics.find(R"(gateway_affinity_total{route="pooled",result="hit"} 20)") != std::string::npos);
  BOOST_TEST(metrics.find(R"(gateway_affinity_total{route="spread")") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
