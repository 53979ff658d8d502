#pragma once
// Memory after a burst: Poco's pool releases idle threads only when it is next asked for one, so
// it is asked to every second; and once no request is in flight (and no audit row is queued)
// after some were served, the heap's free pages go back to the kernel (releaseFreeMemory()). RSS then
// returns near idle instead of keeping the peak.

#include <memory>

#include "server/audit/writer.h"
#include "server/http/gateway.h"
#include "server/util/background_task.h"

#include <Poco/ThreadPool.h>

namespace sluice::boot {

// Hands the allocator's free pages back to the kernel: jemalloc's purge when the process runs
// with it, else glibc's malloc_trim.
void releaseFreeMemory();

// Starts the keeper's task (its first look a second from now). `pool` (nullptr with fibers),
// `gateway` and `writer` (nullptr without a database) must outlive the returned task.
std::unique_ptr<util::BackgroundTask> startMemoryKeeper(Poco::ThreadPool* pool, http::Gateway& gateway,
                                                        audit::Writer* writer);

}  // namespace sluice::boot
