#include "server/net/fiber.h"
#include "server/net/fiber/worker.h"

namespace sluice::net::fiber {

EdgeWatch watchEdge(int fd, Registration& registration, void (*hook)(void*), void* argument) {
  EdgeWatch watch;
  if (!active() || !registration.edge) return watch;
  Worker& worker = *current_worker;
  if (!worker.registerEdge(fd, registration)) return watch;
  Worker::Task* task = worker.currentTask();
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

}  // namespace sluice::net::fiber
