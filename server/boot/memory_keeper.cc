#include "server/boot/memory_keeper.h"

#include <chrono>

#include <malloc.h>

namespace sluice::boot {

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
                                    if (!busy && (busy_before || released)) malloc_trim(0);
                                    busy_before = busy;
                                  }),
      util::BackgroundTask::FirstRun::AfterWait, kPeriod);
  task->start();
  return task;
}

}  // namespace sluice::boot
