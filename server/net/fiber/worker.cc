#include "server/net/fiber/worker.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <sys/eventfd.h>
#include <unistd.h>

#include "server/net/fiber/idle_hooks.h"

namespace sluice::net::fiber {

namespace ctx = boost::context;

namespace {

// An epoll event's data: the waiting fiber's slot (low 24 bits) and the sequence number of its park
// (high 40 bits, never reused on a worker), so an event, a timer or a waker for a park that already
// ended is recognised and dropped.
constexpr uint64_t kSlotBits = 24;
constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;
// A fiber's edge-triggered socket (Registration::edge): the top bit, the fiber's serial number
// (39 bits) and its slot.
constexpr uint64_t kEdgeBit = uint64_t{1} << 63;
constexpr uint64_t kSerialMask = (uint64_t{1} << 39) - 1;
constexpr uint64_t kWakeToken = ~uint64_t{0} - 1;  // the worker's eventfd
static_assert(Acceptor::kToken != kWakeToken);
constexpr int kBatch = 128;                        // events taken per epoll_wait

}  // namespace

constinit thread_local Worker* current_worker = nullptr;

Worker::Worker(Loop& loop, int index)
    : loop_(loop), stacks_(loop.options_.stack_bytes), spin_(loop.options_.spin) {
  (void)index;
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || wake_fd_ < 0) throw std::runtime_error(std::string("epoll: ") + std::strerror(errno));
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = kWakeToken;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &event);
  thread_ = std::thread([this] { run(); });
}

Worker::~Worker() {
  send({Message::Quit});
  thread_.join();
  // Fibers still parked are abandoned, not unwound: the process is ending, and their cleanup
  // could wait on sockets with no loop left to run it.
  for (auto& task : tasks_) {
    if (task) (void)new ctx::fiber(std::move(task->context));
  }
  ::close(wake_fd_);
  ::close(epoll_fd_);
}

void Worker::send(Message message) {
  bool notify;
  {
    std::lock_guard lock(inbox_mutex_);
    notify = inbox_.empty();
    inbox_.push_back(std::move(message));
  }
  if (notify) {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
  }
}

void Worker::listen(int listen_fd) {
  acceptor_.setListen(listen_fd);  // read by the worker after it takes the message (the inbox lock orders them)
  send({Message::Accept, 0, {}, false});
}

bool Worker::interrupted() const { return loop_.interrupted_.load(std::memory_order_relaxed); }

uint64_t Worker::nextToken() const { return (uint64_t{seq_ + 1} << kSlotBits) | current_->slot; }

uint64_t Worker::tokenOf(const Task& task) { return (task.wait_seq << kSlotBits) | task.slot; }

Wait Worker::park(Clock::time_point deadline, bool interruptible) {
  Task* task = current_;
  task->wait_seq = ++seq_;
  task->parked = true;
  task->interruptible = interruptible;
  task->result = Wait::Timeout;
  if (deadline != kNever) {
    task->timer = timers_.emplace(deadline, tokenOf(*task));
    task->timed = true;
  }
  task->caller = std::move(task->caller).resume();
  return task->result;
}

bool Worker::arm(int fd, Registration& registration, Want want) {
  epoll_event event{};
  event.events = (want == Want::Read ? EPOLLIN | EPOLLRDHUP : EPOLLOUT) | EPOLLONESHOT;
  event.data.u64 = nextToken();
  if (registration.epoll_fd == epoll_fd_) {
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &event) == 0) return true;
    if (errno != ENOENT) return false;
  } else if (registration.epoll_fd >= 0) {
    ::epoll_ctl(registration.epoll_fd, EPOLL_CTL_DEL, fd, nullptr);  // it moved from another worker
  }
  registration.epoll_fd = -1;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
    if (errno != EEXIST || ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &event) != 0) return false;
  }
  registration.epoll_fd = epoll_fd_;
  return true;
}

bool Worker::registerEdge(int fd, Registration& registration) {
  if (registration.epoll_fd == epoll_fd_) return true;
  Task* task = current_;
  if (registration.epoll_fd >= 0) ::epoll_ctl(registration.epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
  registration.epoll_fd = -1;
  epoll_event event{};
  event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  event.data.u64 = kEdgeBit | (task->serial << kSlotBits) | task->slot;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) return false;
  registration.epoll_fd = epoll_fd_;
  return true;
}

Wait Worker::waitEdge(int fd, Registration& registration, Clock::time_point deadline, bool interruptible) {
  Task* task = current_;
  if (!registerEdge(fd, registration)) return Wait::Ready;
  if (task->edge_ready) {
    task->edge_ready = false;
    return Wait::Ready;
  }
  task->waiting_edge = true;
  const Wait result = park(deadline, interruptible);
  task->waiting_edge = false;
  task->edge_ready = false;
  return result;
}

void Worker::start(std::function<void()> body, bool connection) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(tasks_.size());
    tasks_.emplace_back();
  }
  auto task = std::make_unique<Task>();
  Task* raw = task.get();
  raw->slot = slot;
  raw->serial = ++serials_ & kSerialMask;
  raw->connection = connection;
  raw->body = std::move(body);
  raw->context = ctx::fiber(std::allocator_arg, CachedStack(&stacks_), [this, raw](ctx::fiber&& caller) {
    raw->caller = std::move(caller);
    try {
      raw->body();
    } catch (const ctx::detail::forced_unwind&) {
      throw;
    } catch (...) {
      // The bodies answer their own failures; nothing more to do for this one.
    }
    raw->body = nullptr;
    finished_ = raw;
    return std::move(raw->caller);
  });
  tasks_[slot] = std::move(task);
  ++live_;
  runnable_.push_back(raw);
}

void Worker::resume(Task* task) {
  current_ = task;
  task->context = std::move(task->context).resume();
  current_ = nullptr;
  if (finished_ == task) {
    finished_ = nullptr;
    const bool connection = task->connection;
    const uint32_t slot = task->slot;
    tasks_[slot].reset();
    free_slots_.push_back(slot);
    --live_;
    loop_.fibers_.fetch_sub(1, std::memory_order_relaxed);
    if (connection) loop_.connections_.fetch_sub(1, std::memory_order_relaxed);
  }
}

void Worker::ready(Task* task, Wait result) {
  if (task->timed) {
    timers_.erase(task->timer);
    task->timed = false;
  }
  task->parked = false;
  task->result = result;
  runnable_.push_back(task);
}

Worker::Task* Worker::parkedUnder(uint64_t token) {
  const uint64_t slot = token & kSlotMask;
  if (slot >= tasks_.size() || !tasks_[slot]) return nullptr;
  Task* task = tasks_[slot].get();
  if (!task->parked || task->wait_seq != (token >> kSlotBits)) return nullptr;
  return task;
}

void Worker::wakeToken(uint64_t token, Wait result) {
  if (Task* task = parkedUnder(token)) ready(task, result);
}

void Worker::edgeEvent(uint64_t token) {
  const uint64_t slot = token & kSlotMask;
  if (slot >= tasks_.size() || !tasks_[slot]) return;
  Task* task = tasks_[slot].get();
  if (task->serial != ((token >> kSlotBits) & kSerialMask)) return;  // a fiber gone since
  task->edge_ready = true;
  if (task->parked && task->waiting_edge) {
    ready(task, Wait::Ready);
  } else if (task->edge_hook != nullptr) {
    task->edge_hook(task->edge_hook_argument);
  }
}

void Worker::interruptAll() {
  for (auto& task : tasks_) {
    if (task && task->parked && task->interruptible) ready(task.get(), Wait::Interrupted);
  }
}

void Worker::accept() {
  acceptor_.acceptBatch(epoll_fd_, [this](int fd) {
    loop_.connections_.fetch_add(1, std::memory_order_relaxed);
    loop_.fibers_.fetch_add(1, std::memory_order_relaxed);
    auto body = [handler = &loop_.handler_, fd] {
      struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
      } closer{fd};
      (*handler)(fd);
    };
    Worker& target = loop_.nextWorker();
    if (&target == this) {
      start(std::move(body), true);
    } else {
      target.send({Message::Spawn, 0, std::move(body), true});
    }
  });
}

void Worker::handle(Message& message) {
  switch (message.kind) {
    case Message::Wake: wakeToken(message.token, Wait::Ready); break;
    case Message::Spawn: start(std::move(message.body), message.connection); break;
    case Message::Accept: acceptor_.start(epoll_fd_); break;
    case Message::Interrupt: interruptAll(); break;
    case Message::StopAccepting:
      // The connections already queued on the listening socket were completed by the kernel and
      // their requests may be on their way: take them (they are served) before stopping, so the
      // socket's close cannot reset them.
      if (acceptor_.accepting()) {
        for (int batch = 0; batch < 32; ++batch) accept();
      }
      acceptor_.stop(epoll_fd_);
      break;
    case Message::Quit: quit_ = true; break;
  }
}

void Worker::run() {
  current_worker = this;
  epoll_event events[kBatch];
  std::vector<Message> inbox;
  while (!quit_) {
    while (!runnable_.empty()) {
      Task* task = runnable_.front();
      runnable_.pop_front();
      resume(task);
    }
    runIdleHooks();
    Clock::time_point next = timers_.empty() ? kNever : timers_.begin()->first;
    next = std::min(next, acceptor_.resumeAt());
    const int count = spin_.wait(epoll_fd_, events, kBatch, next, tasks_.size() - free_slots_.size());
    for (int i = 0; i < count; ++i) {
      const uint64_t token = events[i].data.u64;
      if (token == kWakeToken) {
        uint64_t count;
        [[maybe_unused]] const ssize_t n = ::read(wake_fd_, &count, sizeof count);
        {
          std::lock_guard lock(inbox_mutex_);
          inbox.swap(inbox_);
        }
        for (auto& message : inbox) handle(message);
        inbox.clear();
      } else if (token == Acceptor::kToken) {
        if (acceptor_.accepting()) accept();
      } else if (token & kEdgeBit) {
        edgeEvent(token);
      } else {
        wakeToken(token, Wait::Ready);
      }
    }
    const auto now = Clock::now();
    while (!timers_.empty() && timers_.begin()->first <= now) {
      const uint64_t token = timers_.begin()->second;
      timers_.erase(timers_.begin());
      if (Task* task = parkedUnder(token)) {
        task->timed = false;
        ready(task, Wait::Timeout);
      }
    }
    acceptor_.resumeIfDue(epoll_fd_, now);
  }
  runIdleHooks();
  current_worker = nullptr;
}

}  // namespace sluice::net::fiber
