#include <algorithm>

#include <fcntl.h>

#include "server/net/fiber.h"
#include "server/net/fiber/helper_pool.h"
#include "server/net/fiber/worker.h"

namespace sluice::net::fiber {

Loop::Loop(Options options) : options_(options) {
  HelperPool::instance().setLimit(options_.helper_threads);
  const int count = std::max(options_.workers, 1);
  for (int i = 0; i < count; ++i) workers_.push_back(std::make_unique<Worker>(*this, i));
}

Loop::~Loop() { workers_.clear(); }

Worker& Loop::nextWorker() { return *workers_[next_.fetch_add(1, std::memory_order_relaxed) % workers_.size()]; }

void Loop::serve(int listen_fd, std::function<void(int)> handler) {
  ::fcntl(listen_fd, F_SETFL, ::fcntl(listen_fd, F_GETFL) | O_NONBLOCK);
  listen_fd_ = listen_fd;
  handler_ = std::move(handler);
  for (auto& worker : workers_) worker->listen(listen_fd);
}

void Loop::stopAccepting() {
  for (auto& worker : workers_) worker->send({Worker::Message::StopAccepting, 0, {}, false});
}

void Loop::interrupt() {
  interrupted_.store(true);
  for (auto& worker : workers_) worker->send({Worker::Message::Interrupt, 0, {}, false});
}

void Loop::spawn(std::function<void()> body) {
  fibers_.fetch_add(1, std::memory_order_relaxed);
  nextWorker().send({Worker::Message::Spawn, 0, std::move(body), false});
}

}  // namespace sluice::net::fiber
