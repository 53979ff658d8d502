#pragma once
// OAuth access tokens for the clouds (Google, Microsoft Entra ID): one cache for every credential,
// a token fetched at a token endpoint through the gateway's own upstream transport (so a fetch
// parks the fiber, never the event loop), refreshed ahead of its expiry, and fetched once when
// many requests want it at the same moment. Thread-safe. A token is never logged or put in an
// error.

#include <chrono>
#include <expected>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "server/net/fiber.h"
#include "server/upstream/transport.h"

namespace sluice::cloud {

struct AccessToken {
  std::string value;  // never logged
  std::chrono::system_clock::time_point expires;
};

// The token endpoint's answer: {"access_token", "expires_in" (seconds, number or string)} →
// a token expiring at now + expires_in; else why not (the endpoint's `error` code, never its
// whole body).
std::expected<AccessToken, std::string> readTokenAnswer(int status, std::string_view body,
                                                        std::chrono::system_clock::time_point now);

// A small JSON answer from an identity endpoint (a token endpoint, discovery, a JWKS, UserInfo).
struct SmallAnswer {
  int status = 0;
  std::string body;
};
// Why a small fetch failed: its answer was larger than allowed, or the transport's failure.
struct SmallFetchFailure {
  bool too_large = false;
  std::string failure;  // upstream::toString of the transport's failure when !too_large
};
// POSTs `form` (application/x-www-form-urlencoded) to `url`, or GETs it when `form` is empty, with
// `headers` and Accept: application/json; 5 s to connect, 10 s to answer; reads at most `max_bytes`.
std::expected<SmallAnswer, SmallFetchFailure> fetchSmall(upstream::Transport& transport, const std::string& url,
                                                         const std::string& form,
                                                         const std::vector<std::pair<std::string, std::string>>& headers,
                                                         size_t max_bytes);

// fetchSmall, then the token answer (at most 64 KiB).
std::expected<AccessToken, std::string> fetchToken(upstream::Transport& transport, const std::string& url,
                                                   const std::string& form,
                                                   const std::vector<std::pair<std::string, std::string>>& headers = {});

class TokenCache {
 public:
  using Fetch = std::function<std::expected<AccessToken, std::string>()>;
  using Clock = std::chrono::system_clock;

  // The token cached under `key` while it has more than its refresh margin left (5 minutes, or
  // half its life for a short-lived one); else one caller runs `fetch` while the others for the
  // same key wait for it (up to 30 s; a caller that finds a refresh under way while the old token
  // still holds takes the old one). A failed fetch is remembered for a second, so a broken token
  // endpoint is not asked by every request. `fetch` may throw: that is a failure too.
  std::expected<std::string, std::string> get(const std::string& key, const Fetch& fetch);

  // Drops the token cached under `key` when it is still `value` (one the cloud refused: revoked,
  // or the cloud restarted), so the next get() fetches a new one; a newer token is kept.
  void forget(const std::string& key, const std::string& value);

  // The standing of `key`: usable (a token with time left), the last error, or "" when never
  // fetched.
  std::expected<bool, std::string> standing(const std::string& key) const;

  // The clock (tests move it).
  void setClock(std::function<Clock::time_point()> clock) { clock_ = std::move(clock); }

 private:
  struct Entry {
    AccessToken token;
    Clock::time_point fetched_at{};
    bool fetching = false;
    std::string error;
    Clock::time_point error_until{};
    std::vector<net::fiber::Waker> waiters;
  };

  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  std::function<Clock::time_point()> clock_ = [] { return Clock::now(); };
};

}  // namespace sluice::cloud
