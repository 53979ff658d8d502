#pragma once
// Idle keep-alive connections per origin ("https://host:port"). Internal to the upstream client.
// Thread-safe: shared by every exchange of one Client.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/upstream/link.h"

namespace sluice::upstream {

class Pool {
 public:
  explicit Pool(int max_idle_per_origin) : max_idle_(max_idle_per_origin) {}

  // An idle connection to `origin` in the calling thread's mode (fiber or blocking), or nullptr
  // when none was kept or the kept ones sat idle too long to be trusted (they are dropped).
  std::unique_ptr<Link> take(const std::string& origin);

  // Keeps `link`, whose last answer ended exactly where its framing said, for a later take();
  // dropped (closed) when `origin` already has max_idle_per_origin idle connections.
  void give(const std::string& origin, std::unique_ptr<Link> link);

 private:
  std::mutex mutex_;
  int max_idle_;
  std::map<std::string, std::vector<std::unique_ptr<Link>>, std::less<>> idle_;  // newest last
};

}  // namespace sluice::upstream
