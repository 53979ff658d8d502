#include "server/net/fiber/stack_cache.h"

#include <cstdint>

#include <sys/mman.h>

namespace sluice::net::fiber {

namespace {

constexpr size_t kCachedStacks = 8;                  // per worker, for the next fibers
constexpr uintptr_t kPage = 4096;
constexpr uintptr_t kResidentStackTop = 16u << 10;   // of a cached stack, what stays resident

}  // namespace

StackCache::~StackCache() {
  for (auto& stack : free) allocator.deallocate(stack);
}

boost::context::stack_context CachedStack::allocate() {
  if (!cache_->free.empty()) {
    const boost::context::stack_context stack = cache_->free.back();
    cache_->free.pop_back();
    return stack;
  }
  return cache_->allocator.allocate();
}

void CachedStack::deallocate(boost::context::stack_context& stack) noexcept {
  if (cache_->free.size() < kCachedStacks) {
    // Kept for the next fiber, but the pages a deep call touched go back to the kernel: only
    // the top of the stack, which every fiber uses, stays resident.
    const auto top = reinterpret_cast<uintptr_t>(stack.sp);
    const uintptr_t keep = top - kResidentStackTop;
    const uintptr_t bottom = top - stack.size + kPage;  // above the guard page
    if (keep > bottom) ::madvise(reinterpret_cast<void*>(bottom), keep - bottom, MADV_DONTNEED);
    cache_->free.push_back(stack);
  } else {
    cache_->allocator.deallocate(stack);
  }
}

}  // namespace sluice::net::fiber
