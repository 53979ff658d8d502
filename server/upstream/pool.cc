#include "server/upstream/pool.h"

#include <chrono>
#include <cstddef>

namespace sluice::upstream {

namespace {

// A kept-alive connection idle longer than this is not reused: servers close idle connections
// (Node after 5 s), and a request written into one that is closing fails for nothing.
constexpr auto kReuseLimit = std::chrono::seconds(4);
constexpr size_t kPooledBuffer = 8192;  // a pooled connection keeps no larger buffer than this

}  // namespace

std::unique_ptr<Link> Pool::take(const std::string& origin) {
  std::lock_guard lock(mutex_);
  auto found = idle_.find(origin);
  if (found == idle_.end()) return nullptr;
  auto& idle = found->second;
  // Newest last: when the newest has sat too long, so have all the others.
  if (!idle.empty() && std::chrono::steady_clock::now() - idle.back()->idle_since > kReuseLimit) idle.clear();
  if (idle.empty()) return nullptr;
  // On a fiber, a connection last used on this worker saves moving its epoll registration.
  size_t pick = idle.size() - 1;
  if (const int epoll_fd = net::fiber::currentEpoll(); epoll_fd >= 0) {
    for (size_t i = idle.size(), looked = 0; i-- > 0 && looked < 8; ++looked) {
      if (idle[i]->registration.epoll_fd == epoll_fd) {
        pick = i;
        break;
      }
    }
  }
  auto link = std::move(idle[pick]);
  idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(pick));
  link->useFibers(net::fiber::active());
  return link;
}

void Pool::give(const std::string& origin, std::unique_ptr<Link> link) {
  link->idle_since = std::chrono::steady_clock::now();
  if (link->buffer.capacity() > kPooledBuffer) {
    // A large answer grew it: idle connections should not hold on to that.
    std::string().swap(link->buffer);
    link->begin = link->end = 0;
  }
  std::lock_guard lock(mutex_);
  auto& idle = idle_[origin];
  if (static_cast<int>(idle.size()) < max_idle_) idle.push_back(std::move(link));
}

}  // namespace sluice::upstream
