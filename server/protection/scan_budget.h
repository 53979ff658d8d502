#pragma once
// What one request's masking may spend scanning, in bytes and in time, shared by every text of the
// request: the scanners are linear, so bytes bound the work, and the time bound is the backstop
// for what bytes do not foresee (a slow machine, a pattern no test has met). Pure: the time is read
// from a clock the caller supplies (the gateway gives the masking thread's CPU clock, so waiting
// for a core under load does not count), never from the system.
// Not thread-safe: one per request.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace sluice::protection {

class ScanBudget {
 public:
  // A monotonic reading; only differences are used.
  using Clock = std::function<std::chrono::nanoseconds()>;

  // `clock` may be empty: then only bytes are counted.
  ScanBudget(size_t max_bytes, std::chrono::nanoseconds max_time, Clock clock);

  // Charges `bytes` of text more to scan (each text once, when the detectors read it). False once
  // the bytes or the time are used up, and from then on; reason() then names the limit (never any
  // text).
  bool charge(size_t bytes);
  // Notes `bytes` of work on text already charged (the vault's and the found values' passes over
  // the same text): only the time is checked.
  bool progress(size_t bytes);

  bool exhausted() const { return !reason_.empty(); }
  const std::string& reason() const { return reason_; }
  size_t spent() const { return spent_; }

  // The clock is read at most once per kBytesPerReading bytes or kCallsPerReading calls, so small
  // texts do not pay for it.
  static constexpr size_t kBytesPerReading = 64 * 1024;
  static constexpr int kCallsPerReading = 256;

 private:
  size_t max_bytes_;
  std::chrono::nanoseconds max_time_;
  Clock clock_;
  std::chrono::nanoseconds started_{0};
  size_t spent_ = 0;
  size_t unread_bytes_ = 0;  // charged since the clock was last read
  int unread_calls_ = 0;
  std::string reason_;

  bool inTime(size_t bytes);
};

}  // namespace sluice::protection
