#pragma once
// The HTTP(S) client the gateway uses to call providers: a keep-alive pool per origin, streaming
// reads, and an abort that closes the socket at once (that is what stops generation upstream).
// HTTP/1.1 over the socket directly (framing from server/net/http1.h), TLS through OpenSSL with
// the system's trust store (SSL_CERT_FILE / SSL_CERT_DIR apply) and the provider's host name
// verified. A request costs the system calls HTTP needs: one write, the reads the answer takes;
// socket timeouts are only set when they change.
// Thread-safe: one Client is shared by every request thread; a Response belongs to one thread.
// On a fiber (net/fiber.h) its sockets are non-blocking and every wait parks the fiber instead.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "server/net/fiber.h"
#include "server/net/http1.h"

namespace sluice::upstream {

enum class TransportFailure { Connect, Timeout, Reset, Tls, Protocol };
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
  // Sleeps up to `duration`; returns false early when cancelled.
  bool waitFor(std::chrono::milliseconds duration);

  // Used by the client: the socket of the exchange in progress (-1 none). attach() on a cancelled
  // token shuts the socket down at once.
  void attach(int fd);
  void detach();

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  std::condition_variable woken_;
  net::fiber::Waker waker_;  // a fiber in waitFor()
  int fd_ = -1;
};

struct Request {
  std::string method = "POST";
  std::string url;  // absolute http:// or https:// URL, query included
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  catalog::Timeouts timeouts;
};

class Pool;
struct Link;

// A provider's answer whose headers have arrived; the body is read on demand.
class Response {
 public:
  enum class Framing { None, Length, Chunked, Close };
  struct Head {
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    Framing framing = Framing::None;
    uint64_t length = 0;
    bool keep_alive = false;
  };
  Response(std::shared_ptr<Pool> pool, std::string origin, std::unique_ptr<Link> link, Head head, int idle_ms,
           Cancel* cancel);
  ~Response();  // returns the connection to the pool only when the body was read to the end
  Response(const Response&) = delete;
  Response& operator=(const Response&) = delete;

  int status() const;
  std::string header(const std::string& name) const;  // "" when absent
  std::vector<std::pair<std::string, std::string>> headers() const;

  // Appends the next bytes that arrive (at least one) to `out`. Returns false at the end of the body.
  // Throws TransportError on a reset or when idle_ms pass without a byte.
  bool readSome(std::string& out);
  std::string readAll();

  // Closes the connection now; later reads return false.
  void abort();

 private:
  [[noreturn]] void fail(int error);
  bool fill();  // reads more into the connection's buffer; false at the provider's orderly close

  std::shared_ptr<Pool> pool_;
  std::string origin_;
  std::unique_ptr<Link> link_;
  Head head_;
  uint64_t remaining_ = 0;
  std::unique_ptr<net::h1::ChunkedDecoder> chunked_;
  Cancel* cancel_;
  bool finished_ = false;
  bool aborted_ = false;
};

class Client {
 public:
  explicit Client(int max_idle_per_origin = 64);
  ~Client();

  // Sends the request and waits for the response head (connect_ms to connect, first_byte_ms for
  // the head). Throws TransportError when the provider cannot be reached or does not answer.
  // `cancel`, when given, must outlive the Response; cancelling it ends the exchange at once
  // (send or a later read then throws TransportError{Reset}).
  std::unique_ptr<Response> send(const Request& request, Cancel* cancel = nullptr);

 private:
  std::shared_ptr<Pool> pool_;
};

}  // namespace sluice::upstream
