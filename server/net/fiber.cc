#include "server/net/fiber.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

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
constexpr uint64_t kWakeToken = ~uint64_t{0} - 1;    // the worker's eventfd
constexpr uint64_t kListenToken = ~uint64_t{0} - 2;  // the listening socket
constexpr int kBatch = 128;                          // events taken per epoll_wait
constexpr int kAcceptBatch = 32;                     // connections accepted per readiness
constexpr size_t kSpinMaxFibers = 2;                 // Worker::wait() polls only with this many or fewer
constexpr auto kHelperIdle = std::chrono::seconds(2);
constexpr size_t kCachedStacks = 8;                  // per worker, for the next fibers
constexpr uintptr_t kPage = 4096;
constexpr uintptr_t kResidentStackTop = 16u << 10;   // of a cached stack, what stays resident

thread_local Worker* current_worker = nullptr;

constexpr int kMaxIdleHooks = 8;
std::atomic<void (*)()> idle_hooks[kMaxIdleHooks];
std::atomic<int> idle_hook_count{0};
std::mutex idle_hooks_mutex;

void runIdleHooks() {
  const int count = idle_hook_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    if (auto* hook = idle_hooks[i].load(std::memory_order_acquire)) hook();
  }
}

int millisUntil(Clock::time_point deadline) {
  if (deadline == kNever) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, 24 * 3600 * 1000));
}

// Helper threads for blocking(): started as needed up to a limit, kept afterwards.
class Helpers {
 public:
  static Helpers& instance() {
    static Helpers* helpers = new Helpers();  // never destroyed: threads may outlive main's locals
    return *helpers;
  }
  void setLimit(int limit) {
    std::lock_guard lock(mutex_);
    limit_ = std::max(limit_, std::max(limit, 1));
  }
  void run(const std::function<void()>* job, Waker waker) {
    std::unique_lock lock(mutex_);
    jobs_.push_back({job, waker});
    if (idle_ == 0 && threads_ < limit_) {
      ++threads_;
      std::thread([this] { loop(); }).detach();
    } else {
      ready_.notify_one();
    }
  }

 private:
  struct Job {
    const std::function<void()>* job;
    Waker waker;
  };
  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      // A helper idle for a while ends (its stack goes with it); the next job starts another.
      const bool has_job = ready_.wait_for(lock, kHelperIdle, [this] { return !jobs_.empty(); });
      --idle_;
      if (!has_job) {
        --threads_;
        return;
      }
      const Job job = jobs_.front();
      jobs_.pop_front();
      lock.unlock();
      (*job.job)();  // blocking() catches what the body throws
      job.waker.wake();
      lock.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  int threads_ = 0;
  int idle_ = 0;
  int limit_ = 4;
};

// Fiber stacks with a guard page; a few are kept for the next fibers (connections come and go).
struct StackCache {
  explicit StackCache(size_t bytes) : allocator(bytes) {}
  ~StackCache() {
    for (auto& stack : free) allocator.deallocate(stack);
  }
  ctx::protected_fixedsize_stack allocator;
  std::vector<ctx::stack_context> free;
};

class CachedStack {
 public:
  explicit CachedStack(StackCache* cache) : cache_(cache) {}
  ctx::stack_context allocate() {
    if (!cache_->free.empty()) {
      const ctx::stack_context stack = cache_->free.back();
      cache_->free.pop_back();
      return stack;
    }
    return cache_->allocator.allocate();
  }
  void deallocate(ctx::stack_context& stack) noexcept {
    if (cache_->free.size() < kCachedStacks) {
      // Kept for the next fiber, but the pages a deep call touched go back to the kernel: only
      // the top of the stack, which every fiber uses, stays resident.
      const auto top = reinterpret_cast<uintptr_t>(stack.sp);
      const uintptr_t keep = top - kResidentStackTop;
      const uintptr_t bottom = top - stack.size + kPage;  // above the guard page
      if (keep > bottom) ::madvise(reinterpret_cast<void*>(bottom), keep - bottom, MADV_DONTNEED);
      cache_->free.push_back(stack);
    } else {
      cache_->allocator.deallocate(stack);
    }
  }

 private:
  StackCache* cache_;
};

}  // namespace

class Worker {
 public:
  Worker(Loop& loop, int index) : loop_(loop), stacks_(loop.options_.stack_bytes) {
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
  ~Worker() {
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

  int epollFd() const { return epoll_fd_; }

  struct Message {
    enum Kind { Wake, Spawn, Accept, Interrupt, StopAccepting, Quit } kind;
    uint64_t token = 0;
    std::function<void()> body = {};
    bool connection = false;
  };

  // Thread-safe.
  void send(Message message) {
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

  // ---- called on this worker's thread, from a fiber ----

  uint64_t nextToken() const { return (uint64_t{seq_ + 1} << kSlotBits) | current_->slot; }

  Wait park(Clock::time_point deadline, bool interruptible) {
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

  bool interrupted() const { return loop_.interrupted_.load(std::memory_order_relaxed); }

  // Registers `fd` for one event of `want`, reported with the token of the next park. False
  // when epoll refuses the fd (the caller's own system call then reports why).
  bool arm(int fd, Registration& registration, Want want) {
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

  void listen(int fd) {
    epoll_event event{};
    event.events = EPOLLIN | EPOLLEXCLUSIVE;
    event.data.u64 = kListenToken;
    listen_fd_ = fd;  // read by the worker after it takes the message (the inbox lock orders them)
    listen_event_ = event;
    send({Message::Accept, 0, {}, false});
  }

 private:
  struct Task {
    ctx::fiber context;
    ctx::fiber caller;
    std::function<void()> body;
    uint32_t slot = 0;
    uint64_t serial = 0;
    bool edge_ready = false;    // its edge-triggered socket reported readiness not yet used
    bool waiting_edge = false;  // parked on that socket
    void (*edge_hook)(void*) = nullptr;  // watchEdge()
    void* edge_hook_argument = nullptr;
    bool connection = false;
    bool parked = false;
    bool interruptible = false;
    bool timed = false;
    uint64_t wait_seq = 0;
    Wait result = Wait::Ready;
    std::multimap<Clock::time_point, uint64_t>::iterator timer;
  };

  static uint64_t tokenOf(const Task& task) { return (task.wait_seq << kSlotBits) | task.slot; }

  void start(std::function<void()> body, bool connection) {
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

  void resume(Task* task) {
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

  void ready(Task* task, Wait result) {
    if (task->timed) {
      timers_.erase(task->timer);
      task->timed = false;
    }
    task->parked = false;
    task->result = result;
    runnable_.push_back(task);
  }

  // The fiber parked under `token`, or nullptr when that park is over.
  Task* parkedUnder(uint64_t token) {
    const uint64_t slot = token & kSlotMask;
    if (slot >= tasks_.size() || !tasks_[slot]) return nullptr;
    Task* task = tasks_[slot].get();
    if (!task->parked || task->wait_seq != (token >> kSlotBits)) return nullptr;
    return task;
  }

  void wakeToken(uint64_t token, Wait result) {
    if (Task* task = parkedUnder(token)) ready(task, result);
  }

  void edgeEvent(uint64_t token) {
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

  // Registers the calling fiber's own socket, edge-triggered, unless it already is here.
  bool registerEdge(int fd, Registration& registration) {
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

  // Waits on the calling fiber's own edge-triggered socket.
  Wait waitEdge(int fd, Registration& registration, Clock::time_point deadline, bool interruptible) {
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

  void interruptAll() {
    for (auto& task : tasks_) {
      if (task && task->parked && task->interruptible) ready(task.get(), Wait::Interrupted);
    }
  }

  void accept() {
    for (int i = 0; i < kAcceptBatch; ++i) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          // Out of descriptors: stop listening for a moment instead of spinning on the ready socket.
          ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
          accept_resume_ = Clock::now() + std::chrono::milliseconds(100);
        }
        return;
      }
      const int on = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
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
    }
  }

  void handle(Message& message) {
    switch (message.kind) {
      case Message::Wake: wakeToken(message.token, Wait::Ready); break;
      case Message::Spawn: start(std::move(message.body), message.connection); break;
      case Message::Accept:
        if (listen_fd_ >= 0 && !accepting_) {
          accepting_ = ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &listen_event_) == 0;
        }
        break;
      case Message::Interrupt: interruptAll(); break;
      case Message::StopAccepting:
        if (accepting_) ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
        accepting_ = false;
        listen_fd_ = -1;
        accept_resume_ = kNever;
        break;
      case Message::Quit: quit_ = true; break;
    }
  }

  // epoll_wait, polled first for up to Options::spin while waits keep ending within it: a score
  // goes up for each wait that did (capped) and down faster for each that did not, and polling
  // starts once two in a row did. Only a worker with one or two fibers polls: with more, events
  // rarely leave it idle, and the gaps polling would fill are the ones other processes (on the same
  // cores) need; polling there cost a tenth of the throughput at 16 connections.
  int wait(epoll_event* events, Clock::time_point next) {
    const auto spin = loop_.options_.spin;
    const size_t fibers = tasks_.size() - free_slots_.size();
    if (spin.count() <= 0 || millisUntil(next) == 0 || fibers == 0 || fibers > kSpinMaxFibers) {
      return ::epoll_wait(epoll_fd_, events, kBatch, millisUntil(next));
    }
    const auto idle_since = Clock::now();
    if (quick_waits_ >= 2) {
      const auto until = idle_since + spin;
      do {
        if (const int count = ::epoll_wait(epoll_fd_, events, kBatch, 0); count != 0) {
          quick_waits_ = std::min(quick_waits_ + 1, 8);
          return count;
        }
        ::sched_yield();
      } while (Clock::now() < until);
    }
    const int count = ::epoll_wait(epoll_fd_, events, kBatch, millisUntil(next));
    if (count > 0 && Clock::now() - idle_since < spin) {
      quick_waits_ = std::min(quick_waits_ + 1, 8);
    } else {
      quick_waits_ = std::max(quick_waits_ - 2, 0);
    }
    return count;
  }

  void run() {
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
      if (accept_resume_ != kNever) next = std::min(next, accept_resume_);
      const int count = wait(events, next);
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
        } else if (token == kListenToken) {
          if (accepting_) accept();
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
      if (accept_resume_ != kNever && accept_resume_ <= now) {
        accept_resume_ = kNever;
        if (accepting_ && listen_fd_ >= 0) ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &listen_event_);
      }
    }
    runIdleHooks();
    current_worker = nullptr;
  }

  friend Wait waitFd(int, Registration&, Want, Clock::time_point, bool);
  friend EdgeWatch watchEdge(int, Registration&, void (*)(void*), void*);
  friend class EdgeWatch;
  friend Waker currentWaker();
  friend bool active();
  friend int currentEpoll();
  friend class Loop;

  Loop& loop_;
  StackCache stacks_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::thread thread_;
  std::mutex inbox_mutex_;
  std::vector<Message> inbox_;

  // Owned by the worker's thread.
  std::vector<std::unique_ptr<Task>> tasks_;
  std::vector<uint32_t> free_slots_;
  std::deque<Task*> runnable_;
  std::multimap<Clock::time_point, uint64_t> timers_;
  Task* current_ = nullptr;
  Task* finished_ = nullptr;
  uint64_t seq_ = 0;
  uint64_t serials_ = 0;
  size_t live_ = 0;
  bool quit_ = false;
  int quick_waits_ = 0;  // wait(): how many recent waits ended within Options::spin
  int listen_fd_ = -1;
  epoll_event listen_event_{};
  bool accepting_ = false;
  Clock::time_point accept_resume_ = kNever;
};

void addIdleHook(void (*hook)()) {
  std::lock_guard lock(idle_hooks_mutex);
  const int count = idle_hook_count.load(std::memory_order_relaxed);
  for (int i = 0; i < count; ++i) {
    if (idle_hooks[i].load(std::memory_order_relaxed) == hook) return;
  }
  if (count == kMaxIdleHooks) throw std::logic_error("fiber: too many idle hooks");
  idle_hooks[count].store(hook, std::memory_order_release);
  idle_hook_count.store(count + 1, std::memory_order_release);
}

bool active() { return current_worker != nullptr && current_worker->current_ != nullptr; }

int currentEpoll() { return active() ? current_worker->epoll_fd_ : -1; }

Wait waitFd(int fd, Registration& registration, Want want, Clock::time_point deadline, bool interruptible) {
  if (!active()) {
    pollfd item{fd, static_cast<short>(want == Want::Read ? POLLIN : POLLOUT), 0};
    for (;;) {
      const int ready = ::poll(&item, 1, millisUntil(deadline));
      if (ready > 0) return Wait::Ready;
      if (ready == 0) return Wait::Timeout;
      if (errno != EINTR) return Wait::Ready;  // the caller's own call reports the error
    }
  }
  Worker& worker = *current_worker;
  if (interruptible && worker.interrupted()) return Wait::Interrupted;
  if (deadline != kNever && deadline <= Clock::now()) return Wait::Timeout;
  if (registration.edge) return worker.waitEdge(fd, registration, deadline, interruptible);
  if (!worker.arm(fd, registration, want)) return Wait::Ready;
  return worker.park(deadline, interruptible);
}

EdgeWatch watchEdge(int fd, Registration& registration, void (*hook)(void*), void* argument) {
  EdgeWatch watch;
  if (!active() || !registration.edge) return watch;
  Worker& worker = *current_worker;
  if (!worker.registerEdge(fd, registration)) return watch;
  auto* task = worker.current_;
  task->edge_hook = hook;
  task->edge_hook_argument = argument;
  watch.task_ = task;
  if (task->edge_ready) hook(argument);  // something happened before the watch began
  return watch;
}

EdgeWatch& EdgeWatch::operator=(EdgeWatch&& other) noexcept {
  if (this != &other) {
    this->~EdgeWatch();
    task_ = other.task_;
    other.task_ = nullptr;
  }
  return *this;
}

EdgeWatch::~EdgeWatch() {
  // Ended by the fiber that began it, on its own worker, so the task is alive.
  if (task_ != nullptr) {
    auto* task = static_cast<Worker::Task*>(task_);
    task->edge_hook = nullptr;
    task->edge_hook_argument = nullptr;
  }
}

void Waker::wake() const {
  if (worker_ != nullptr) static_cast<Worker*>(worker_)->send({Worker::Message::Wake, token_, {}, false});
}

Waker currentWaker() {
  Waker waker;
  waker.worker_ = current_worker;
  waker.token_ = current_worker->nextToken();
  return waker;
}

Wait park(Clock::time_point deadline) {
  if (!active()) {
    if (deadline != kNever) std::this_thread::sleep_until(deadline);
    return Wait::Timeout;
  }
  return current_worker->park(deadline, false);
}

void sleepUntil(Clock::time_point deadline) {
  if (!active()) {
    std::this_thread::sleep_until(deadline);
    return;
  }
  while (Clock::now() < deadline) current_worker->park(deadline, false);
}

void offload(const std::function<void()>& job) {
  Helpers::instance().run(&job, currentWaker());
  current_worker->park(kNever, false);
}

// ---- Loop ---------------------------------------------------------------------------------------

Loop::Loop(Options options) : options_(options) {
  Helpers::instance().setLimit(options_.helper_threads);
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
