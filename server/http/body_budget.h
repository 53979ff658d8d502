#pragma once
// The bytes of request bodies held in memory across every connection, bounded as one budget
// (--max-buffered-bytes): a body grows only by what actually arrived and only while the budget has
// room, so many slow or lying clients together cannot take the process's memory. A request whose
// body cannot get room is refused with 503 `overloaded` instead of growing.
// Thread-safe: one budget serves every connection; a Lease belongs to one request.

#include <atomic>
#include <cstddef>

namespace sluice::http {

class BodyBudget {
 public:
  // `limit` bytes in all; 0 means no bound.
  explicit BodyBudget(size_t limit = 0) : limit_(limit) {}
  void setLimit(size_t limit) { limit_.store(limit, std::memory_order_relaxed); }
  size_t limit() const { return limit_.load(std::memory_order_relaxed); }
  size_t inUse() const { return used_.load(std::memory_order_relaxed); }

  // What one request holds; returned when it is destroyed.
  class Lease {
   public:
    Lease() = default;
    explicit Lease(BodyBudget* budget) : budget_(budget) {}
    Lease(Lease&& other) noexcept : budget_(other.budget_), held_(other.held_) { other.held_ = 0; }
    Lease& operator=(Lease&& other) noexcept {
      if (this != &other) {
        release();
        budget_ = other.budget_;
        held_ = other.held_;
        other.held_ = 0;
      }
      return *this;
    }
    Lease(const Lease&) = delete;
    ~Lease() { release(); }
    // Takes `bytes` more; false (nothing taken) when the budget has no room for them.
    bool grow(size_t bytes);
    size_t held() const { return held_; }

   private:
    void release() {
      if (budget_ && held_ > 0) budget_->used_.fetch_sub(held_, std::memory_order_relaxed);
      held_ = 0;
    }

    BodyBudget* budget_ = nullptr;
    size_t held_ = 0;
  };

  Lease lease() { return Lease(this); }

 private:
  std::atomic<size_t> limit_;
  std::atomic<size_t> used_{0};
};

inline bool BodyBudget::Lease::grow(size_t bytes) {
  if (!budget_ || bytes == 0) return true;
  const size_t limit = budget_->limit_.load(std::memory_order_relaxed);
  const size_t before = budget_->used_.fetch_add(bytes, std::memory_order_relaxed);
  if (limit != 0 && before + bytes > limit) {
    budget_->used_.fetch_sub(bytes, std::memory_order_relaxed);
    return false;
  }
  held_ += bytes;
  return true;
}

}  // namespace sluice::http
