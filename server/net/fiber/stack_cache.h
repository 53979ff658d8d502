#pragma once
// Fiber stacks with a guard page below each; a worker keeps a few freed ones for its next fibers
// (connections come and go), with only their top pages left resident.
// Not thread-safe: a StackCache belongs to one worker and is used on its thread only.

#include <cstddef>
#include <vector>

#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_context.hpp>

namespace sluice::net::fiber {

// The stacks freed by one worker's fibers, kept for its next ones (at most kCachedStacks).
struct StackCache {
  explicit StackCache(size_t bytes) : allocator(bytes) {}
  ~StackCache();
  StackCache(const StackCache&) = delete;
  StackCache& operator=(const StackCache&) = delete;

  boost::context::protected_fixedsize_stack allocator;
  std::vector<boost::context::stack_context> free;
};

// The StackAllocator handed to boost::context::fiber: takes a cached stack when there is one and
// gives stacks back to the cache (or, when it is full, to the system). `cache` must outlive it.
class CachedStack {
 public:
  explicit CachedStack(StackCache* cache) : cache_(cache) {}
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& stack) noexcept;

 private:
  StackCache* cache_;
};

}  // namespace sluice::net::fiber
