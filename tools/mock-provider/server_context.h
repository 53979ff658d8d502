#pragma once
// The state every handler of one mock server shares. Thread-safe as documented per member.

#include <atomic>
#include <cstdint>
#include <optional>

#include <chrono>
#include <string>

#include "tools/mock-provider/aws_keyring.h"
#include "tools/mock-provider/cloud_identity.h"

#include "tools/mock-provider/prefix_cache.h"
#include "tools/mock-provider/stats.h"
#include "tools/mock-provider/thought_signatures.h"

namespace sluice::mock {

// The Google and Entra ID identities the mock's token endpoints accept (cloud_identity.h).
struct CloudConfig {
  std::optional<GoogleAccount> google;  // none: the Google token endpoint refuses every JWT grant
  std::optional<GoogleUser> google_user;  // none: it refuses every refresh-token grant
  EntraApp entra{"mock-tenant", "mock-client", "mock-client-secret", ""};
  std::chrono::seconds token_lifetime{3600};
};

class ServerContext {
 public:
  // The AWS keys Bedrock's signatures are checked with (the long-term pair; the STS and metadata
  // endpoints add temporary ones).
  static constexpr const char* kAwsAccessKeyId = "AKIDSLUICEMOCK";
  static constexpr const char* kAwsSecretAccessKey = "sluice-mock-secret-access-key";

  ServerContext(std::string fixtures_dir, std::optional<std::string> api_key, bool quiet,
                std::string aws_access_key_id = kAwsAccessKeyId, std::string aws_secret_access_key = kAwsSecretAccessKey)
      : fixtures_dir_(std::move(fixtures_dir)), api_key_(std::move(api_key)), quiet_(quiet),
        aws_keys_(std::move(aws_access_key_id), std::move(aws_secret_access_key)) {}

  const std::string& fixturesDir() const { return fixtures_dir_; }
  const std::optional<std::string>& apiKey() const { return api_key_; }
  Stats& stats() { return stats_; }
  AwsKeyring& awsKeys() { return aws_keys_; }
  PrefixCache& prefixCache() { return prefix_cache_; }
  // Set once before serving.
  void setClouds(CloudConfig clouds) { clouds_ = std::move(clouds); }
  const CloudConfig& clouds() const { return clouds_; }
  TokenRing& googleTokens() { return google_tokens_; }
  TokenRing& entraTokens() { return entra_tokens_; }
  // The Gemini thought signatures handed out so far, checked on every later Gemini request.
  ThoughtSignatures& thoughtSignatures() { return thought_signatures_; }
  // Set once at shutdown; handlers poll it while sleeping or stalled.
  const std::atomic<bool>& stopping() const { return stopping_; }
  void stop() { stopping_.store(true); }
  // 1, 2, 3, … per provider request.
  std::uint64_t nextSeq() { return ++seq_; }
  // One line to stderr (unless quiet), written whole.
  void log(const std::string& line) const;

 private:
  const std::string fixtures_dir_;
  const std::optional<std::string> api_key_;
  const bool quiet_;
  Stats stats_;
  AwsKeyring aws_keys_;
  PrefixCache prefix_cache_;
  CloudConfig clouds_;
  TokenRing google_tokens_{"ya29.mock-"};
  TokenRing entra_tokens_{"mock-entra-"};
  ThoughtSignatures thought_signatures_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> seq_{0};
};

}  // namespace sluice::mock
