#pragma once
// The AWS keys the mock's Bedrock accepts: one long-term pair (--aws-access-key-id,
// --aws-secret-access-key) and the temporary credentials its STS, container and instance
// metadata endpoints hand out, each until it expires. Thread-safe.

#include <chrono>
#include <cstdint>
#include <map>
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
  // New temporary credentials valid for lifetime() from `now` (the oldest are forgotten past 10,000).
  Issued issue(Clock::time_point now);
  // The credentials `source` ("sts_web_identity", "sts_assume_role", "container", "imds") answers
  // with, counted as served: STS issues new ones every time (`reuse` false); the container
  // endpoint and IMDS, like AWS's, answer with the same ones until half their life has passed.
  Issued serve(const std::string& source, Clock::time_point now, bool reuse);

  enum class Found { Key, Unknown, Expired, WrongToken };
  // The secret for `access_key_id` presented with `session_token` ("" for none) at `now`.
  Found find(const std::string& access_key_id, const std::string& session_token, Clock::time_point now,
             std::string& secret) const;
  uint64_t issuedCount() const;
  std::map<std::string, uint64_t> servedBySource() const;

  // How long issued credentials live (--aws-credentials-lifetime), and the Authorization the
  // container endpoint wants ("" accepts any, as ECS's relative URI does).
  void configure(std::chrono::seconds lifetime, std::string container_token);
  std::chrono::seconds lifetime() const;
  std::string containerToken() const;
  // How long the credential endpoints wait before answering (--aws-credentials-delay-ms): a slow
  // STS or metadata service.
  void setDelay(std::chrono::milliseconds delay);
  std::chrono::milliseconds delay() const;

 private:
  const std::string access_key_id_;
  const std::string secret_access_key_;
  mutable std::mutex mutex_;
  std::vector<Issued> issued_;
  uint64_t issued_count_ = 0;
  std::map<std::string, uint64_t> served_;
  std::map<std::string, Issued> current_;
  std::chrono::seconds lifetime_{900};
  std::string container_token_;
  std::chrono::milliseconds delay_{0};
};

}  // namespace sluice::mock
