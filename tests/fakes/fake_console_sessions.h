#pragma once
// ConsoleSessions in memory, with PgConsoleSessions' contract: a session is alive while it is
// kept, before its lifetime ends and while it was used within `idle`, all on the fake's clock;
// opening one forgets sessions expired over a day ago. Thread-safe.

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "server/store/console_sessions.h"

namespace sluice::fakes {

class FakeConsoleSessions : public store::ConsoleSessions {
 public:
  using Clock = std::chrono::system_clock;

  void open(const store::SessionRow& session, std::chrono::seconds lifetime) override;
  std::optional<store::SessionRow> find(const std::string& id_hash, std::chrono::seconds idle) override;
  bool touch(const std::string& id_hash, std::chrono::seconds idle) override;
  void close(const std::string& id_hash) override;

  // The fake's now (the system clock's until set).
  void setNow(Clock::time_point now);
  size_t sessions() const;  // kept, expired ones included

 private:
  struct Kept {
    store::SessionRow row;
    Clock::time_point expires_at;
    Clock::time_point last_seen;
  };
  Kept* live(const std::string& id_hash, std::chrono::seconds idle);  // under mutex_
  Clock::time_point now() const;                                    // under mutex_

  mutable std::mutex mutex_;
  std::map<std::string, Kept> kept_;
  std::optional<Clock::time_point> now_;
};

}  // namespace sluice::fakes
