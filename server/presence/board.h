#pragma once
// The presence hub's last word, shared between the poller that writes it and the requests that
// read it: a value snapshot under a mutex (held only to copy). Thread-safe.

#include <mutex>

#include "server/dispatch/target_check.h"

namespace sluice::presence {

class PresenceBoard {
 public:
  dispatch::PresenceSnapshot snapshot() const {
    std::lock_guard lock(mutex_);
    return snapshot_;
  }
  void publish(dispatch::PresenceSnapshot next) {
    std::lock_guard lock(mutex_);
    snapshot_ = std::move(next);
  }

 private:
  mutable std::mutex mutex_;
  dispatch::PresenceSnapshot snapshot_;
};

}  // namespace sluice::presence
