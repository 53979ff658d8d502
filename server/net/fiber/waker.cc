#include "server/net/fiber.h"
#include "server/net/fiber/worker.h"

namespace sluice::net::fiber {

void Waker::wake() const {
  if (worker_ != nullptr) static_cast<Worker*>(worker_)->send({Worker::Message::Wake, token_, {}, false});
}

Waker currentWaker() {
  Waker waker;
  waker.worker_ = current_worker;
  waker.token_ = current_worker->nextToken();
  return waker;
}

}  // namespace sluice::net::fiber
