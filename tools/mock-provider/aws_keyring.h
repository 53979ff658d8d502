#pragma once
// The AWS keys the mock's Bedrock accepts: one long-term pair (--aws-access-key-id,
// --aws-secret-access-key) and the temporary credentials its STS, container and instance
// metadata endpoints hand out, each until it expires. Thread-safe.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace sluice::mock {

class AwsKeyring {
 public:
  using Clock = std::chrono::system_clock;
  AwsKeyring(std::string access_key_id, std::string secret_access_key);

  struct Issued {
    std::string access_key_id;
    std::string secret_access_key;
    std::string session_token;
    Clock::time_point expiration;
  };
  // New temporary credentials valid for `lifetime` from `now` (the oldest are forgotten past 10,000).
  Issued issue(std::chrono::seconds lifetime, Clock::time_point now);

  enum class Found { Key, Unknown, Expired, WrongToken };
  // The secret for `access_key_id` presented with `session_token` ("" for none) at `now`.
  Found find(const std::string& access_key_id, const std::string& session_token, Clock::time_point now,
             std::string& secret) const;
  uint64_t issuedCount() const;

 private:
  const std::string access_key_id_;
  const std::string secret_access_key_;
  mutable std::mutex mutex_;
  std::vector<Issued> issued_;
  uint64_t issued_count_ = 0;
};

}  // namespace sluice::mock
