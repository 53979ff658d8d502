#include "server/boot/memory_keeper.h"

#include <chrono>

#include <dlfcn.h>
#include <malloc.h>

namespace sluice::boot {

void releaseFreeMemory() {
  // jemalloc (linked into the gateway, or preloaded) keeps freed pages in its arenas until told:
  // "arena.<MALLCTL_ARENAS_ALL>.purge" (4096 in jemalloc 5) hands them back. Under glibc's
  // malloc, malloc_trim does.
  using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
  static const auto mallctl = reinterpret_cast<Mallctl>(::dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl != nullptr) {
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
  malloc_trim(0);
}

std::unique_ptr<util::BackgroundTask> startMemoryKeeper(Poco::ThreadPool* pool, http::Gateway& gateway,
                                                        audit::Writer* writer) {
  constexpr auto kPeriod = std::chrono::seconds(1);
  auto task = std::make_unique<util::BackgroundTask>(
      util::BackgroundTask::every(kPeriod,
                                  [pool, &gateway, writer, busy_before = false]() mutable {
                                    bool released = false;
                                    if (pool != nullptr) {
                                      const int threads_before = pool->allocated();
                                      pool->collect();
                                      released = pool->allocated() < threads_before;
                                    }
                                    // Busy until the audit rows of a burst are written too: trimming
                                    // while the writer still holds them would leave what it frees
                                    // afterwards in the heap.
                                    const bool busy = gateway.metrics().inflight_requests.value() > 0 ||
                                                      (writer != nullptr && writer->stats().queue_depth > 0);
                                    if (!busy && (busy_before || released)) releaseFreeMemory();
                                    busy_before = busy;
                                  }),
      util::BackgroundTask::FirstRun::AfterWait, kPeriod);
  task->start();
  return task;
}

}  // namespace sluice::boot
