#include "server/protection/scan_budget.h"

#include <utility>

namespace sluice::protection {

ScanBudget::ScanBudget(size_t max_bytes, std::chrono::nanoseconds max_time, Clock clock)
    : max_bytes_(max_bytes), max_time_(max_time), clock_(std::move(clock)) {
  if (clock_) started_ = clock_();
}

bool ScanBudget::charge(size_t bytes) {
  if (exhausted()) return false;
  spent_ += bytes;
  if (spent_ > max_bytes_) {
    reason_ = "the request has more than " + std::to_string(max_bytes_) + " bytes of text to scan";
    return false;
  }
  return inTime(bytes);
}

bool ScanBudget::progress(size_t bytes) { return !exhausted() && inTime(bytes); }

bool ScanBudget::inTime(size_t bytes) {
  if (!clock_) return true;
  unread_bytes_ += bytes;
  if (unread_bytes_ < kBytesPerReading && ++unread_calls_ < kCallsPerReading) return true;
  unread_bytes_ = 0;
  unread_calls_ = 0;
  if (clock_() - started_ > max_time_) {
    reason_ = "scanning the request took longer than " +
              std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(max_time_).count()) + " ms";
    return false;
  }
  return true;
}

}  // namespace sluice::protection
