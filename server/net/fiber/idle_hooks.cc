#include "server/net/fiber/idle_hooks.h"

#include <atomic>
#include <mutex>
#include <stdexcept>

#include "server/net/fiber.h"

namespace sluice::net::fiber {

namespace {

constexpr int kMaxIdleHooks = 8;
std::atomic<void (*)()> idle_hooks[kMaxIdleHooks];
std::atomic<int> idle_hook_count{0};
std::mutex idle_hooks_mutex;

}  // namespace

void runIdleHooks() {
  const int count = idle_hook_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    if (auto* hook = idle_hooks[i].load(std::memory_order_acquire)) hook();
  }
}

void addIdleHook(void (*hook)()) {
  std::lock_guard lock(idle_hooks_mutex);
  const int count = idle_hook_count.load(std::memory_order_relaxed);
  for (int i = 0; i < count; ++i) {
    if (idle_hooks[i].load(std::memory_order_relaxed) == hook) return;
  }
  if (count == kMaxIdleHooks) throw std::logic_error("fiber: too many idle hooks");
  idle_hooks[count].store(hook, std::memory_order_release);
  idle_hook_count.store(count + 1, std::memory_order_release);
}

}  // namespace sluice::net::fiber
