#pragma once
// The AWS keys a Bedrock call is signed with, for a catalog credential with `aws:`:
//  - access_key_id/secret_access_key[/session_token]: the keys the catalog resolved;
//  - chain: default: the environment variables (read by the catalog at load), else the chain's
//    other links (aws_chain.h: web identity, container credentials, IMDSv2), fetched here;
//  - role_arn: that role assumed with STS AssumeRole, signed with the chain's keys.
// Temporary keys are kept for every fiber and refreshed before they expire (refreshLead: five
// minutes ahead, a quarter of their lifetime for short-lived ones); when many calls need them at
// once they are fetched once (single flight) while the others wait, at most kFlightWait. A failed
// fetch is remembered for kRetryAfterFailure (the attempts meanwhile fail with its reason); keys
// still valid are kept while a refresh fails. Reasons never hold a key or a token.
//
// Thread-safe; shared by every fiber through the Gateway. A fetch goes through the gateway's
// upstream::Transport, so on a fiber it parks the fiber, never the event loop.

#include <chrono>
#include <expected>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/cloud/aws_chain.h"
#include "server/upstream/sigv4.h"
#include "server/upstream/transport.h"

namespace sluice::cloud {

class AwsCredentialStore {
 public:
  using Clock = std::chrono::system_clock;
  static constexpr std::chrono::seconds kFlightWait{15};
  static constexpr std::chrono::seconds kRetryAfterFailure{2};

  explicit AwsCredentialStore(upstream::Transport& transport, Environment env = processEnvironment());
  ~AwsCredentialStore();

  // The keys for `credential` (which has `aws:`), or why none can be had (never a secret).
  std::expected<upstream::aws::Credentials, std::string> get(const catalog::Credential& credential,
                                                            Clock::time_point now) const;

  // Each `aws:` credential of `catalog`: usable or why not (for /readyz and the console). Never
  // fetches: temporary keys not fetched yet are `pending` (fetched by the first call needing them).
  struct Standing {
    std::string id;
    bool usable = false;
    std::string detail;    // "keys", "temporary keys from web identity, 812 s left", or why not
    bool pending = false;  // not fetched yet
  };
  std::vector<Standing> standing(const catalog::Catalog& catalog, Clock::time_point now) const;

  // How many fetches ran (each link or AssumeRole counts one): the tests watch single flight.
  uint64_t fetches() const;

 private:
  struct Flight;
  struct Entry {
    std::optional<TemporaryKeys> keys;
    std::string source;
    Clock::time_point fetched_at{};
    std::string failure;
    Clock::time_point failed_at{};
    std::shared_ptr<Flight> flight;
  };
  using Fetch = std::function<std::expected<ChainKeys, std::string>()>;
  std::expected<upstream::aws::Credentials, std::string> obtain(const std::string& slot, Clock::time_point now,
                                                                const Fetch& fetch) const;

  upstream::Transport& transport_;
  Environment env_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Entry> entries_;  // "chain", "role:<arn>"
  mutable uint64_t fetches_ = 0;
};

}  // namespace sluice::cloud
