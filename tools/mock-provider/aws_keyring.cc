#include "tools/mock-provider/aws_keyring.h"

#include <random>

namespace sluice::mock {
namespace {

constexpr size_t kMaxIssued = 10'000;

std::string randomText(std::mt19937_64& random, size_t length, std::string_view alphabet) {
  std::string out;
  for (size_t i = 0; i < length; ++i) out.push_back(alphabet[random() % alphabet.size()]);
  return out;
}

}  // namespace

AwsKeyring::AwsKeyring(std::string access_key_id, std::string secret_access_key)
    : access_key_id_(std::move(access_key_id)), secret_access_key_(std::move(secret_access_key)) {}

AwsKeyring::Issued AwsKeyring::issue(Clock::time_point now) {
  const std::chrono::seconds lifetime = this->lifetime();
  static thread_local std::mt19937_64 random{std::random_device{}()};
  Issued issued{"ASIA" + randomText(random, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
                randomText(random, 40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
                "mock-session-" + randomText(random, 48, "abcdefghijklmnopqrstuvwxyz0123456789"), now + lifetime};
  std::lock_guard lock(mutex_);
  if (issued_.size() >= kMaxIssued) issued_.erase(issued_.begin());
  issued_.push_back(issued);
  ++issued_count_;
  return issued;
}

AwsKeyring::Issued AwsKeyring::serve(const std::string& source, Clock::time_point now, bool reuse) {
  {
    std::lock_guard lock(mutex_);
    ++served_[source];
    auto found = current_.find(source);
    if (reuse && found != current_.end() && found->second.expiration - now > lifetime_ / 2) return found->second;
  }
  Issued issued = issue(now);
  std::lock_guard lock(mutex_);
  if (reuse) current_[source] = issued;
  return issued;
}

AwsKeyring::Found AwsKeyring::find(const std::string& access_key_id, const std::string& session_token,
                                   Clock::time_point now, std::string& secret) const {
  if (access_key_id == access_key_id_) {
    secret = secret_access_key_;
    return Found::Key;
  }
  std::lock_guard lock(mutex_);
  for (const Issued& issued : issued_) {
    if (issued.access_key_id != access_key_id) continue;
    if (issued.session_token != session_token) return Found::WrongToken;
    if (now >= issued.expiration) return Found::Expired;
    secret = issued.secret_access_key;
    return Found::Key;
  }
  return Found::Unknown;
}

uint64_t AwsKeyring::issuedCount() const {
  std::lock_guard lock(mutex_);
  return issued_count_;
}

std::map<std::string, uint64_t> AwsKeyring::servedBySource() const {
  std::lock_guard lock(mutex_);
  return served_;
}

void AwsKeyring::configure(std::chrono::seconds lifetime, std::string container_token) {
  std::lock_guard lock(mutex_);
  lifetime_ = lifetime;
  container_token_ = std::move(container_token);
}

std::chrono::seconds AwsKeyring::lifetime() const {
  std::lock_guard lock(mutex_);
  return lifetime_;
}

std::string AwsKeyring::containerToken() const {
  std::lock_guard lock(mutex_);
  return container_token_;
}

void AwsKeyring::setDelay(std::chrono::milliseconds delay) {
  std::lock_guard lock(mutex_);
  delay_ = delay;
}

std::chrono::milliseconds AwsKeyring::delay() const {
  std::lock_guard lock(mutex_);
  return delay_;
}

}  // namespace sluice::mock
