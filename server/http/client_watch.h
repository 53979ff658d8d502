#pragma once
// Notices a client that hangs up while its request waits on a provider, and cancels the upstream
// exchange at once: closing the upstream socket is what stops generation and billing.
//
// A request thread blocked on the provider (waiting for the first byte, or for the next chunk of a
// slow stream) cannot see its own client leave. One background thread polls the client sockets
// of the requests that are waiting (every 20 ms at most) and, when one reads end-of-stream or an
// error, cancels that request's upstream::Cancel. Bytes a client sends while it waits (a pipelined
// next request) are left alone, and that socket is no longer polled for that request.
//
//   auto watching = gateway.clientWatch().watch(client_fd, cancel);   // RAII: unwatches on exit
//
// Thread-safe. The thread looks every 20 ms while requests wait; after a second with nothing to
// watch it sleeps until the next request is watched (an idle gateway does not wake it).
//
// On a fiber (net/fiber.h) the request does not use this thread: its connection's own socket,
// edge-triggered, calls clientGone() the moment anything happens on it (fiber::watchEdge).

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

#include "server/upstream/client.h"

namespace sluice::http {

// True when the peer of `fd` closed its side or the connection failed; false when it only sent
// bytes (they stay unread). Does not block.
bool clientGone(int fd);
// The same for a TLS connection, whose unread bytes may be the client's close_notify: true when
// the peer shut its side down (or the connection failed), whatever bytes are pending.
bool clientHungUp(int fd);

class ClientWatch {
 public:
  ClientWatch();
  ~ClientWatch();
  ClientWatch(const ClientWatch&) = delete;
  ClientWatch& operator=(const ClientWatch&) = delete;

  class Registration {
   public:
    Registration() = default;
    Registration(ClientWatch* watch, uint64_t id) : watch_(watch), id_(id) {}
    Registration(Registration&& other) noexcept : watch_(other.watch_), id_(other.id_) { other.watch_ = nullptr; }
    Registration& operator=(Registration&& other) noexcept;
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    ~Registration();

   private:
    ClientWatch* watch_ = nullptr;
    uint64_t id_ = 0;
  };

  // Watches `client_fd` until the Registration is destroyed; `cancel` must outlive it.
  // `tls`: the connection is TLS (clientHungUp's rule applies).
  Registration watch(int client_fd, upstream::Cancel& cancel, bool tls = false);

 private:
  struct Entry {
    int fd = -1;
    upstream::Cancel* cancel = nullptr;
    bool tls = false;
  };
  void unwatch(uint64_t id);
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<uint64_t, Entry> entries_;
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  bool asleep_ = false;  // nothing watched for a while: watch() must wake the thread
  std::thread thread_;
};

}  // namespace sluice::http
