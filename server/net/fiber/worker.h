#pragma once
// One worker of a Loop: a thread running fibers on its own epoll(7). Fibers park on sockets,
// timers and wakers; the worker resumes them when their event comes and, with nothing runnable,
// waits for events (SpinPolicy), accepts connections (Acceptor) and runs the idle hooks.
//
// Thread-safety: send() may be called from any thread. Everything else runs on the worker's own
// thread, from one of its fibers (the "calling fiber"), as the functions of server/net/fiber.h do.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/epoll.h>

#include <boost/context/fiber.hpp>

#include "server/net/fiber.h"
#include "server/net/fiber/acceptor.h"
#include "server/net/fiber/spin_policy.h"
#include "server/net/fiber/stack_cache.h"

namespace sluice::net::fiber {

class Worker;
// The worker whose thread this is; nullptr on any other thread.
extern constinit thread_local Worker* current_worker;

class Worker {
 public:
  // Starts the worker's thread. Throws std::runtime_error when epoll or eventfd cannot be made.
  Worker(Loop& loop, int index);
  // Stops the thread; fibers still parked are abandoned, not unwound.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  static Worker* current() { return current_worker; }

  struct Message {
    enum Kind { Wake, Spawn, Accept, Interrupt, StopAccepting, Quit } kind;
    uint64_t token = 0;
    std::function<void()> body = {};
    bool connection = false;
  };

  // A fiber and what it waits for.
  struct Task {
    boost::context::fiber context;
    boost::context::fiber caller;
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

  // Thread-safe: queues `message` for the worker's thread and wakes it.
  void send(Message message);
  // Listens on `listen_fd` (Loop::serve). Thread-safe.
  void listen(int listen_fd);

  // ---- on this worker's thread ----

  int epollFd() const { return epoll_fd_; }
  // The calling fiber; nullptr between fibers.
  Task* currentTask() const { return current_; }
  bool interrupted() const;

  // The token under which the calling fiber's next park() is woken.
  uint64_t nextToken() const;
  // Parks the calling fiber until its token is woken, `deadline` passes (Timeout) or, when
  // `interruptible`, the loop is interrupted.
  Wait park(Clock::time_point deadline, bool interruptible);
  // Registers `fd` for one event of `want`, reported with the token of the next park. False
  // when epoll refuses the fd (the caller's own system call then reports why).
  bool arm(int fd, Registration& registration, Want want);
  // Registers the calling fiber's own socket, edge-triggered, unless it already is here.
  bool registerEdge(int fd, Registration& registration);
  // Waits on the calling fiber's own edge-triggered socket.
  Wait waitEdge(int fd, Registration& registration, Clock::time_point deadline, bool interruptible);

 private:
  static uint64_t tokenOf(const Task& task);

  void start(std::function<void()> body, bool connection);
  void resume(Task* task);
  void ready(Task* task, Wait result);
  Task* parkedUnder(uint64_t token);
  void wakeToken(uint64_t token, Wait result);
  void edgeEvent(uint64_t token);
  void interruptAll();
  void accept();
  void handle(Message& message);
  void run();

  Loop& loop_;
  StackCache stacks_;
  SpinPolicy spin_;
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
  Acceptor acceptor_;
};

}  // namespace sluice::net::fiber
