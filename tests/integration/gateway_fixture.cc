#include "tests/integration/gateway_fixture.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <strings.h>
#include <unistd.h>

#include "tests/support/test_env.h"

namespace sluice::test {

namespace {

// A copy of the shipped catalog whose providers also forward the mock's script header, so a test
// can script a fault per request through the gateway.
std::string scriptableCatalog() {
  namespace fs = std::filesystem;
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path() /
                       ("sluice-it-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::copy(sourceDir() + "/services", dir, fs::copy_options::recursive);
  std::ifstream in(dir / "ai/providers.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string anchor = "    user_agent: sluice/1\n";
  for (size_t at = yaml.find(anchor); at != std::string::npos; at = yaml.find(anchor, at + 1)) {
    yaml.insert(at + anchor.size(), "    forward_headers: [x-mock-script]\n");
  }
  std::ofstream(dir / "ai/providers.yaml") << yaml;
  return dir.string();
}

}  // namespace

Gateway::Gateway(GatewayOptions options) {
  std::vector<std::string> mock_args{"--listen", "127.0.0.1:0", "--quiet", "--fixtures", fixturesDir()};
  mock_args.insert(mock_args.end(), options.mock_args.begin(), options.mock_args.end());
  mock_ = std::make_unique<ChildProcess>(ChildOptions{.binary = binPath("sluice-mock-provider"), .args = mock_args});
  const std::string mock = mock_->baseUrl();
  services_ = options.services.empty() ? scriptableCatalog() : options.services;
  ChildOptions gateway{
      .binary = binPath("sluice"),
      .args = {"--services", services_, "--listen",
               "127.0.0.1:0", "--threads", "64"},
      .env = {{"ANTHROPIC_BASE_URL", mock},
              {"DEEPSEEK_BASE_URL", mock + "/deepseek/v1"},
              {"OPENCODE_GO_CHAT_BASE_URL", mock + "/go/v1"},
              {"OPENCODE_GO_MESSAGES_BASE_URL", mock + "/go"},
              {"OPENAI_BASE_URL", mock + "/openai/v1"},
              {"GEMINI_BASE_URL", mock + "/gemini"},
              {"ANTHROPIC_API_KEY", "mock-anthropic-key"},
              {"DEEPSEEK_API_KEY", "mock-deepseek-key"},
              {"OPENAI_API_KEY", "mock-openai-key"},
              {"GEMINI_API_KEY", "mock-gemini-key"},
              {"BEDROCK_BASE_URL", mock},
              {"BEDROCK_ACCESS_KEY_ID", "AKIDSLUICEMOCK"},  // the mock's keys (its --aws-* defaults)
              {"BEDROCK_SECRET_ACCESS_KEY", "sluice-mock-secret-access-key"},
              {"GITHUB_MCP_URL", mock + "/mcp"},
              {"GITHUB_MCP_TOKEN", "mock-github-token"}},
      .unset_env = {"SLUICE_DATABASE_URL"},
  };
  if (!options.auth) gateway.args.push_back("--insecure-no-auth");
  ops_token_ = options.ops_token;
  if (ops_token_) {
    gateway.args.push_back("--ops-token");
    gateway.args.push_back(kOpsToken);
  }
  for (auto& arg : options.extra_args) gateway.args.push_back(arg);
  // Every test client comes from 127.0.0.1, and a busy machine reaps closed connections late: no
  // per-peer cap unless the test gives one (a flag wins over this variable).
  gateway.env.emplace_back("SLUICE_MAX_CONNECTIONS_PER_PEER", "0");
  for (auto& entry : options.extra_env) gateway.env.push_back(entry);
  if (options.on_mock_started) {
    for (auto& entry : options.on_mock_started(mock)) gateway.env.push_back(std::move(entry));
  }
  sluice_ = std::make_unique<ChildProcess>(std::move(gateway));
}

HttpResponse Gateway::call(const std::string& method, const std::string& path, const Headers& headers,
                           const std::string& body) {
  HttpConnection connection(sluice_->host(), sluice_->port());
  Headers all = headers;
  if (!body.empty()) all.emplace_back("Content-Type", "application/json");
  const std::string bare = path.substr(0, path.find('?'));
  const bool operations = bare == "/metrics" || bare == "/admin/api/catalog/status";
  const bool has_authorization = std::ranges::any_of(all, [](const auto& header) {
    return strcasecmp(header.first.c_str(), "Authorization") == 0;
  });
  if (ops_token_ && operations && !has_authorization) all.emplace_back("Authorization", std::string("Bearer ") + kOpsToken);
  try {
    return connection.request(method, path, all, body);
  } catch (const std::runtime_error& error) {
    // A request that got no whole answer: say whether the gateway is still running and what it
    // last logged, so a failure seen only on another machine explains itself.
    const bool alive = sluice_->running();
    const std::string log = sluice_->stderrText();
    const std::string tail = log.size() > 4000 ? log.substr(log.size() - 4000) : log;
    throw std::runtime_error(std::string(error.what()) + (alive ? "; the gateway is running" : "; the gateway exited") +
                             "; its stderr ends with:\n" + tail);
  }
}

StreamResult Gateway::stream(const std::string& path, const Headers& headers, const std::string& body,
                             const OnData& on_data) {
  HttpConnection connection(sluice_->host(), sluice_->port());
  Headers all = headers;
  all.emplace_back("Content-Type", "application/json");
  return connection.stream("POST", path, all, body, on_data);
}

nlohmann::json Gateway::mockJson(const std::string& path) {
  HttpConnection connection(mock_->host(), mock_->port());
  return connection.request("GET", path).json();
}

}  // namespace sluice::test
