#include "server/boot/tunables.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include <unistd.h>

namespace sluice::boot {

// glibc reads both settings only at process start, from GLIBC_TUNABLES; hence the restart:
//  - glibc keeps the stacks of exited threads for reuse, up to 40 MB, with every page they touched
//    still resident: after a burst, the connection threads the pool releases would keep their
//    memory. With the cache off, thread stacks are unmapped when a thread exits (creating one
//    costs a few microseconds more).
//  - glibc gives threads up to 8 malloc arenas per core; memory a burst spreads over many arenas
//    stays fragmented in them. One arena per core keeps contention as low and the heap compact.
void restartWithTunables(char** argv) {
  constexpr std::string_view kStackCache = "glibc.pthread.stack_cache_size";
  constexpr std::string_view kArenaMax = "glibc.malloc.arena_max";
  if (std::getenv("SLUICE_KEEP_STACK_CACHE") != nullptr) return;  // e.g. under a profiler
  const char* current = std::getenv("GLIBC_TUNABLES");
  const std::string_view given = current != nullptr ? std::string_view(current) : std::string_view();
  if (given.find(kStackCache) != std::string_view::npos) return;  // set (by us or the operator): started
  std::string tunables(given);
  auto add = [&tunables](std::string_view name, const std::string& value) {
    if (!tunables.empty()) tunables += ':';
    tunables.append(name).append("=").append(value);
  };
  if (given.find(kArenaMax) == std::string_view::npos && std::getenv("MALLOC_ARENA_MAX") == nullptr) {
    add(kArenaMax, std::to_string(std::max(1u, std::thread::hardware_concurrency())));
  }
  add(kStackCache, "0");
  if (::setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // NOTE: exec failed (no /proc): run on with glibc's defaults; only memory after a burst differs.
}

}  // namespace sluice::boot
