#include "server/store/connection_pool.h"

#include "server/store/database.h"

namespace sluice::store {

ConnectionPool::ConnectionPool(std::string url, PoolOptions options) : url_(std::move(url)), options_(options) {}

std::unique_ptr<pqxx::connection> ConnectionPool::acquire() {
  {
    std::unique_lock lock(mutex_);
    const bool available = freed_.wait_for(lock, options_.acquire_timeout, [&] {
      return !idle_.empty() || open_ < options_.max_connections;
    });
    if (!available) {
      throw PoolExhausted("all " + std::to_string(options_.max_connections) +
                          " identity database connections stayed busy for " +
                          std::to_string(options_.acquire_timeout.count()) + " ms");
    }
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      return connection;
    }
    ++open_;
  }
  // Connect without the lock: other threads keep using idle connections meanwhile.
  try {
    return store::connect(url_, options_.connect_timeout_seconds);
  } catch (...) {
    std::lock_guard lock(mutex_);
    --open_;
    freed_.notify_one();
    throw;
  }
}

void ConnectionPool::release(std::unique_ptr<pqxx::connection> connection, bool healthy) {
  // A body that threw something other than broken_connection leaves a usable connection (its
  // transaction was rolled back by pqxx); is_open() catches one that broke anyway.
  const bool reusable = connection && connection->is_open() && healthy;
  std::lock_guard lock(mutex_);
  if (reusable) {
    idle_.push_back(std::move(connection));
  } else {
    --open_;
  }
  freed_.notify_one();
}

void ConnectionPool::discardIdle() {
  std::vector<std::unique_ptr<pqxx::connection>> closing;
  {
    std::lock_guard lock(mutex_);
    open_ -= idle_.size();
    closing.swap(idle_);
    freed_.notify_all();
  }
  // `closing` closes its connections here, outside the lock.
}

void ConnectionPool::adopt(std::unique_ptr<pqxx::connection> connection) {
  std::lock_guard lock(mutex_);
  ++open_;
  idle_.push_back(std::move(connection));
  freed_.notify_one();
}

size_t ConnectionPool::openConnections() const {
  std::lock_guard lock(mutex_);
  return open_;
}

}  // namespace sluice::store
