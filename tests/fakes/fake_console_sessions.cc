#include "tests/fakes/fake_console_sessions.h"

namespace sluice::fakes {

FakeConsoleSessions::Clock::time_point FakeConsoleSessions::now() const { return now_.value_or(Clock::now()); }

FakeConsoleSessions::Kept* FakeConsoleSessions::live(const std::string& id_hash, std::chrono::seconds idle) {
  const auto found = kept_.find(id_hash);
  if (found == kept_.end()) return nullptr;
  const auto at = now();
  if (found->second.expires_at <= at || found->second.last_seen <= at - idle) return nullptr;
  return &found->second;
}

void FakeConsoleSessions::open(const store::SessionRow& session, std::chrono::seconds lifetime) {
  std::lock_guard lock(mutex_);
  const auto at = now();
  std::erase_if(kept_, [&](const auto& entry) { return entry.second.expires_at < at - std::chrono::hours(24); });
  Kept kept{session, at + lifetime, at};
  kept.row.created_at = at;
  kept_[session.id_hash] = std::move(kept);
}

std::optional<store::SessionRow> FakeConsoleSessions::find(const std::string& id_hash, std::chrono::seconds idle) {
  std::lock_guard lock(mutex_);
  const Kept* kept = live(id_hash, idle);
  if (!kept) return std::nullopt;
  return kept->row;
}

bool FakeConsoleSessions::touch(const std::string& id_hash, std::chrono::seconds idle) {
  std::lock_guard lock(mutex_);
  Kept* kept = live(id_hash, idle);
  if (!kept) return false;
  kept->last_seen = now();
  return true;
}

void FakeConsoleSessions::close(const std::string& id_hash) {
  std::lock_guard lock(mutex_);
  kept_.erase(id_hash);
}

void FakeConsoleSessions::setNow(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  now_ = now;
}

size_t FakeConsoleSessions::sessions() const {
  std::lock_guard lock(mutex_);
  return kept_.size();
}

}  // namespace sluice::fakes
