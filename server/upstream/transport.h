#pragma once
// What a caller of a provider needs, and what a fake provides: a Transport sends a Request and
// hands back the Response whose head has arrived; the body is read on demand. The socket client
// (client.h) is one implementation; tests/fakes/fake_transport.h is another.
//
// Failures to reach or hear from the provider are TransportError, never an HTTP status: a 500
// from the provider is a Response like any other.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "server/net/fiber.h"

namespace sluice::upstream {

enum class TransportFailure { Connect, Timeout, Reset, Tls, Protocol };
// "connect", "timeout", "reset", "tls", "protocol": metric labels and log keys.
std::string_view toString(TransportFailure failure);

// Thrown when the provider could not be reached or stopped answering; never for an HTTP status.
class TransportError : public std::runtime_error {
 public:
  TransportError(TransportFailure failure, const std::string& message)
      : std::runtime_error(message), failure_(failure) {}
  TransportFailure failure() const { return failure_; }

 private:
  TransportFailure failure_;
};

// Lets another thread stop one request's upstream exchange at once: the client-watch thread
// cancels when the caller hangs up, and the blocked read (or the wait for the response head)
// returns immediately because the socket is shut down. Thread-safe.
class Cancel {
 public:
  // Shuts the attached socket down (if any) and wakes waitFor(). Idempotent.
  void cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // Sleeps up to `duration` (parks the fiber on a fiber); returns false early when cancelled,
  // and at once when already cancelled.
  bool waitFor(std::chrono::milliseconds duration);

  // Used by a transport: the socket of the exchange in progress (-1 none). attach() on a
  // cancelled token shuts the socket down at once.
  void attach(int fd);
  void detach();

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  std::condition_variable woken_;
  net::fiber::Waker waker_;  // a fiber in waitFor()
  int fd_ = -1;
};

// A request body produced while it is sent: an upload relayed as it arrives from the client.
// Belongs to one request; used by one send() at a time.
class BodySource {
 public:
  virtual ~BodySource() = default;
  // Its size in bytes when known before it is read (it is sent with a Content-Length then, else
  // chunked).
  virtual std::optional<uint64_t> length() const = 0;
  // Appends the next bytes to `out` (at least one), or returns false at the end. Throws when the
  // body cannot be produced (the client left, sent too much or sent a malformed body): never a
  // TransportError, so the send gives up with the source's own exception and the provider is not
  // blamed.
  virtual bool next(std::string& out) = 0;
};

struct Request {
  std::string method = "POST";
  std::string url;  // absolute http:// or https:// URL, query included
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // When set, the body is `body` followed by what the source produces, written as it comes. Such
  // a request is sent on a fresh connection (a stale pooled one could not be retried once the
  // source was read) and never sent twice.
  BodySource* body_source = nullptr;
  catalog::Timeouts timeouts;  // connect_ms, first_byte_ms (for the head), idle_ms (between body bytes)
};

// A provider's answer whose head has arrived; the body is read on demand. Belongs to one thread.
// Destroying it before the body's end gives up the exchange (the connection is not reused).
class Response {
 public:
  virtual ~Response() = default;

  virtual int status() const = 0;
  // The first field of that name, compared without case; "" when absent.
  virtual std::string header(const std::string& name) const = 0;
  // Every field, in the order received.
  virtual std::vector<std::pair<std::string, std::string>> headers() const = 0;

  // Appends the next bytes that arrive (at least one) to `out`. Returns false at the end of the
  // body. Throws TransportError on a reset, a malformed body, cancellation (Reset) or when
  // idle_ms pass without a byte (Timeout).
  virtual bool readSome(std::string& out) = 0;
  // The rest of the body: readSome() until it returns false. Throws as readSome() does.
  std::string readAll();

  // Closes the exchange now (that is what stops generation upstream); later reads return false.
  virtual void abort() = 0;
};

// Sends requests to providers. Thread-safe: one Transport is shared by every request thread.
class Transport {
 public:
  virtual ~Transport() = default;

  // Sends the request and waits for the response head (connect_ms to connect, first_byte_ms for
  // the head). Throws TransportError when the provider cannot be reached or does not answer.
  // `cancel`, when given, must outlive the Response; cancelling it ends the exchange at once
  // (send or a later read then throws TransportError{Reset}).
  virtual std::unique_ptr<Response> send(const Request& request, Cancel* cancel = nullptr) = 0;
};

}  // namespace sluice::upstream
