#include "server/http/client_watch.h"

#include <cerrno>
#include <chrono>
#include <vector>

#include <poll.h>
#include <sys/socket.h>

namespace sluice::http {

namespace {

constexpr int kPollMs = 20;
constexpr int kRoundsBeforeSleep = 50;  // a second without anything to watch

}  // namespace

bool clientGone(int fd) {
  char byte;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return true;
  if (n > 0) return false;
  return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

bool clientHungUp(int fd) {
  pollfd item{fd, POLLRDHUP, 0};
  if (::poll(&item, 1, 0) <= 0) return false;
  return (item.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

ClientWatch::Registration& ClientWatch::Registration::operator=(Registration&& other) noexcept {
  if (this != &other) {
    if (watch_) watch_->unwatch(id_);
    watch_ = other.watch_;
    id_ = other.id_;
    other.watch_ = nullptr;
  }
  return *this;
}

ClientWatch::Registration::~Registration() {
  if (watch_) watch_->unwatch(id_);
}

ClientWatch::ClientWatch() : thread_([this] { run(); }) {}

ClientWatch::~ClientWatch() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

ClientWatch::Registration ClientWatch::watch(int client_fd, upstream::Cancel& cancel, bool tls) {
  if (client_fd < 0) return {};
  uint64_t id = 0;
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    Entry entry;
    entry.fd = client_fd;
    entry.cancel = &cancel;
    entry.tls = tls;
    entries_.emplace(id, entry);
    wake = asleep_;
    asleep_ = false;
  }
  // NOTE: woken only from its deep sleep (nothing watched for a second). Otherwise it looks for new
  // entries every kPollMs by itself: waking it for each request would cost a thread switch per
  // request, and most answers are back before it looks.
  if (wake) wake_.notify_one();
  return Registration(this, id);
}

void ClientWatch::unwatch(uint64_t id) {
  std::lock_guard lock(mutex_);
  entries_.erase(id);
}

void ClientWatch::run() {
  std::vector<pollfd> fds;
  std::vector<uint64_t> ids;
  int empty_rounds = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (entries_.empty()) {
        if (++empty_rounds < kRoundsBeforeSleep) {
          wake_.wait_for(lock, std::chrono::milliseconds(kPollMs), [this] { return stopping_; });
        } else {
          // Nothing watched for a while (an idle gateway): sleep until watch() wakes us.
          asleep_ = true;
          wake_.wait(lock, [this] { return stopping_ || !entries_.empty(); });
          asleep_ = false;
        }
      }
      if (stopping_) return;
      if (entries_.empty()) continue;
      empty_rounds = 0;
      fds.clear();
      ids.clear();
      for (const auto& [id, entry] : entries_) {
        pollfd item{};
        item.fd = entry.fd;
        item.events = POLLIN | POLLRDHUP;
        fds.push_back(item);
        ids.push_back(id);
      }
    }
    const int ready = ::poll(fds.data(), fds.size(), kPollMs);
    if (ready <= 0) continue;
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      const auto it = entries_.find(ids[i]);
      if (it == entries_.end()) continue;  // the request finished meanwhile; its fd may be reused
      // NOTE: over TLS, bytes alone say nothing (they may be a close_notify whose FIN follows): a
      // TLS client is seen gone here only by the socket's hang-up.
      const bool gone = (fds[i].revents & (POLLHUP | POLLERR | POLLNVAL | POLLRDHUP)) != 0 ||
                        (!it->second.tls && clientGone(fds[i].fd));
      if (gone) it->second.cancel->cancel();
      // Either way, stop polling it: gone needs no second look, and a client with bytes pending
      // (pipelining) would keep the socket readable for the rest of this request.
      entries_.erase(it);
    }
  }
}

}  // namespace sluice::http
