#pragma once
// The real `sluice` in front of the real `sluice-mock-provider`, both on port 0, with the shipped
// catalog's provider URLs and platform keys pointed at the mock.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/http_client.h"

namespace sluice::test {

struct GatewayOptions {
  std::vector<std::string> extra_args;
  std::vector<std::pair<std::string, std::string>> extra_env;
  std::string services;  // default: the shipped catalog
  // Check API keys (needs --database-url in extra_args); off: --insecure-no-auth.
  bool auth = false;
  // Start with --ops-token kOpsToken (call() presents it on the operations endpoints); off: no
  // token, /metrics open and catalog/status for a signed-in admin only.
  bool ops_token = true;
  // More flags for the mock provider, and a step run once it listens (given its URL), before the
  // gateway starts, returning more environment for the gateway: e.g. writing a key file whose
  // token_uri is the mock's.
  std::vector<std::string> mock_args{};
  std::function<std::vector<std::pair<std::string, std::string>>(const std::string& mock_url)> on_mock_started{};
};

// The --ops-token the fixture's gateways run with.
inline constexpr const char* kOpsToken = "sluice-it-ops-token";

class Gateway {
 public:
  explicit Gateway(GatewayOptions options = {});

  std::string mockUrl() const { return mock_->baseUrl(); }
  std::string baseUrl() const { return sluice_->baseUrl(); }
  // The catalog directory the gateway serves (a temporary copy unless GatewayOptions::services).
  const std::string& servicesDir() const { return services_; }
  ChildProcess& process() { return *sluice_; }
  ChildProcess& mock() { return *mock_; }

  // One request to the gateway on a fresh connection. On /metrics and /admin/api/catalog/status
  // it presents the ops token (when the gateway has one and `headers` hold no Authorization).
  HttpResponse call(const std::string& method, const std::string& path, const Headers& headers = {},
                    const std::string& body = {});
  StreamResult stream(const std::string& path, const Headers& headers, const std::string& body,
                      const OnData& on_data = [](std::string_view, const std::string&) { return true; });
  // GET on the mock's own /_mock/... endpoints.
  nlohmann::json mockJson(const std::string& path);

 private:
  std::string services_;
  bool ops_token_ = true;
  std::unique_ptr<ChildProcess> mock_;
  std::unique_ptr<ChildProcess> sluice_;
};

}  // namespace sluice::test
