#include "server/cloud/aws_credentials.h"

#include <condition_variable>

#include "server/net/fiber.h"

namespace sluice::cloud {
namespace {

using Clock = AwsCredentialStore::Clock;

// Keys this close to their expiration are not signed with: the call would arrive with them expired.
constexpr std::chrono::seconds kExpiryMargin{2};

bool usable(const std::optional<TemporaryKeys>& keys, Clock::time_point now) {
  return keys && (!keys->expiration || now + kExpiryMargin < *keys->expiration);
}

}  // namespace

// One fetch in progress: the callers that need its keys wait for it to land (fibers parked,
// threads on the condition variable), each at most until its deadline.
struct AwsCredentialStore::Flight {
  std::mutex mutex;
  std::condition_variable landed;
  std::vector<net::fiber::Waker> wakers;
  bool done = false;

  void land() {
    std::vector<net::fiber::Waker> waiting;
    {
      std::lock_guard lock(mutex);
      done = true;
      waiting.swap(wakers);
    }
    landed.notify_all();
    for (const auto& waker : waiting) waker.wake();
  }

  bool await(net::fiber::Clock::time_point deadline) {
    for (;;) {
      std::unique_lock lock(mutex);
      if (done) return true;
      if (net::fiber::Clock::now() >= deadline) return false;
      if (!net::fiber::active()) return landed.wait_until(lock, deadline, [&] { return done; });
      // A wake sent before the park is delivered after it: the worker reads its inbox only once
      // this fiber has parked.
      wakers.push_back(net::fiber::currentWaker());
      lock.unlock();
      net::fiber::park(deadline);
    }
  }
};

AwsCredentialStore::AwsCredentialStore(upstream::Transport& transport, Environment env)
    : transport_(transport), env_(std::move(env)) {}

AwsCredentialStore::~AwsCredentialStore() = default;

uint64_t AwsCredentialStore::fetches() const {
  std::lock_guard lock(mutex_);
  return fetches_;
}

std::expected<upstream::aws::Credentials, std::string> AwsCredentialStore::obtain(const std::string& slot,
                                                                                  Clock::time_point now,
                                                                                  const Fetch& fetch) const {
  std::shared_ptr<Flight> flight;
  bool lead = false;
  {
    std::lock_guard lock(mutex_);
    Entry& entry = entries_[slot];
    const bool fresh = usable(entry.keys, now) &&
                       (!entry.keys->expiration ||
                        now < *entry.keys->expiration - refreshLead(entry.fetched_at, *entry.keys->expiration));
    if (fresh) return entry.keys->keys;
    if (entry.flight) {
      // Being refreshed: keys still valid serve meanwhile; without them, wait for the fetch.
      if (usable(entry.keys, now)) return entry.keys->keys;
      flight = entry.flight;
    } else if (!entry.failure.empty() && now - entry.failed_at < kRetryAfterFailure) {
      if (usable(entry.keys, now)) return entry.keys->keys;
      return std::unexpected(entry.failure);
    } else {
      entry.flight = flight = std::make_shared<Flight>();
      lead = true;
      ++fetches_;
    }
  }
  if (lead) {
    std::expected<ChainKeys, std::string> result = std::unexpected(std::string("the fetch failed unexpectedly"));
    try {
      result = fetch();
    } catch (const std::exception&) {  // its text is not shown: it might quote what was fetched
    }
    if (result && !usable(result->keys, now)) {
      result = std::unexpected(result->source + " answered keys that have already expired");
    }
    {
      std::lock_guard lock(mutex_);
      Entry& entry = entries_[slot];
      entry.flight.reset();
      if (result) {
        entry.keys = std::move(result->keys);
        entry.source = std::move(result->source);
        entry.fetched_at = now;
        entry.failure.clear();
      } else {
        entry.failure = result.error();
        entry.failed_at = now;
      }
    }
    flight->land();
  } else if (!flight->await(net::fiber::Clock::now() + kFlightWait)) {
    return std::unexpected("timed out after " + std::to_string(kFlightWait.count()) +
                           " s waiting for the AWS keys being fetched");
  }
  std::lock_guard lock(mutex_);
  const Entry& entry = entries_[slot];
  if (usable(entry.keys, now)) return entry.keys->keys;
  return std::unexpected(entry.failure.empty() ? std::string("no AWS keys could be fetched") : entry.failure);
}

std::expected<upstream::aws::Credentials, std::string> AwsCredentialStore::get(const catalog::Credential& credential,
                                                                              Clock::time_point now) const {
  if (!credential.aws) return std::unexpected("credential '" + credential.id + "' has no aws: keys");
  const catalog::AwsCredential& aws = *credential.aws;
  const std::string named = "credential '" + credential.id + "': ";
  const bool environment_keys = aws.access_key_id && aws.secret_access_key;
  if (!aws.chain) {
    if (environment_keys) return upstream::aws::Credentials{*aws.access_key_id, *aws.secret_access_key, aws.session_token};
    return std::unexpected(named + "its AWS keys could not be read");
  }
  std::expected<upstream::aws::Credentials, std::string> base =
      environment_keys ? upstream::aws::Credentials{*aws.access_key_id, *aws.secret_access_key, aws.session_token}
                       : obtain("chain", now, [&] { return fetchChainLinks(transport_, env_, now); });
  if (!base) return std::unexpected(named + base.error());
  if (aws.role_arn.empty()) return base;
  auto role = obtain("role:" + aws.role_arn, now, [&]() -> std::expected<ChainKeys, std::string> {
    auto keys = assumeRole(transport_, env_, *base, aws.role_arn, now);
    if (!keys) return std::unexpected(keys.error());
    return ChainKeys{std::move(*keys), "STS AssumeRole"};
  });
  if (!role) return std::unexpected(named + role.error());
  return role;
}

std::vector<AwsCredentialStore::Standing> AwsCredentialStore::standing(const catalog::Catalog& catalog,
                                                                       Clock::time_point now) const {
  std::vector<Standing> out;
  std::lock_guard lock(mutex_);
  auto describe = [&](const std::string& slot, Standing& standing) {
    const auto found = entries_.find(slot);
    if (found == entries_.end() || (!found->second.keys && found->second.failure.empty())) {
      standing.pending = true;
      standing.detail = "not fetched yet (the first call that needs the keys fetches them)";
      return false;
    }
    const Entry& entry = found->second;
    if (usable(entry.keys, now)) {
      standing.usable = true;
      standing.detail = "temporary keys from " + entry.source;
      if (entry.keys->expiration) {
        standing.detail += ", " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                                     *entry.keys->expiration - now).count()) + " s left";
      }
      return true;
    }
    standing.detail = entry.failure.empty() ? "the keys from " + entry.source + " expired; the next call refreshes them"
                                            : entry.failure;
    standing.pending = entry.failure.empty();
    return false;
  };
  for (const catalog::Credential& credential : catalog.credentials) {
    if (!credential.aws) continue;
    const catalog::AwsCredential& aws = *credential.aws;
    Standing standing{credential.id, false, "", false};
    const bool environment_keys = aws.access_key_id && aws.secret_access_key;
    if (!aws.chain) {
      standing.usable = environment_keys;
      standing.detail = environment_keys ? "keys" : "its AWS keys could not be read";
    } else if (environment_keys && aws.role_arn.empty()) {
      standing.usable = true;
      standing.detail = "keys from the environment";
    } else if ((environment_keys || describe("chain", standing)) && !aws.role_arn.empty()) {
      standing = {credential.id, false, "", false};
      describe("role:" + aws.role_arn, standing);
    }
    out.push_back(std::move(standing));
  }
  return out;
}

}  // namespace sluice::cloud
