#include "server/net/fiber/acceptor.h"

namespace sluice::net::fiber {

void Acceptor::setListen(int listen_fd) {
  epoll_event event{};
  event.events = EPOLLIN | EPOLLEXCLUSIVE;
  event.data.u64 = kToken;
  listen_fd_ = listen_fd;
  listen_event_ = event;
}

void Acceptor::start(int epoll_fd) {
  if (listen_fd_ >= 0 && !accepting_) {
    accepting_ = ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd_, &listen_event_) == 0;
  }
}

void Acceptor::stop(int epoll_fd) {
  if (accepting_) ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd_, nullptr);
  accepting_ = false;
  listen_fd_ = -1;
  resume_at_ = kNever;
}

void Acceptor::resumeIfDue(int epoll_fd, Clock::time_point now) {
  if (resume_at_ != kNever && resume_at_ <= now) {
    resume_at_ = kNever;
    if (accepting_ && listen_fd_ >= 0) ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd_, &listen_event_);
  }
}

void Acceptor::backOff(int epoll_fd) {
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd_, nullptr);
  resume_at_ = Clock::now() + std::chrono::milliseconds(100);
}

}  // namespace sluice::net::fiber
