#pragma once
// One request as the gateway's own handlers see it: the parsed head, the request id the
// connection gave it, the client's socket, and the hook that notices the client hanging up.
// The connection (connection.cc) builds it before routing; handlers never reach through Poco's
// interfaces for these, nor read the id back from a response header.
//
// Not thread-safe: it belongs to the connection's thread or fiber, and lives while the handler runs.

#include <expected>
#include <memory>
#include <string>
#include <string_view>

#include <Poco/Net/HTTPServerRequest.h>

#include "server/http/body_budget.h"
#include "server/http/client_watch.h"
#include "server/net/fiber.h"
#include "server/upstream/client.h"

namespace sluice::http {

class ServerRequest;

// Why a body was not read whole.
struct BodyTooLarge {
  enum class Why { TooLarge, Overloaded, Incomplete };
  // Overloaded: the process-wide body budget had no room. Incomplete: the body stopped before its
  // Content-Length (the client left, or fell below the minimum body rate: the connection answers 408).
  Why why = Why::TooLarge;
};

// Reads the whole body, at most `limit` bytes; a larger one (declared or actual) is
// BodyTooLarge{TooLarge}. Memory grows with the bytes that arrived, never with what Content-Length
// promised; with a `lease`, every growth is taken from its budget first, and a budget without room
// is BodyTooLarge{Overloaded}.
std::expected<std::string, BodyTooLarge> readBody(Poco::Net::HTTPServerRequest& request, size_t limit,
                                                  BodyBudget::Lease* lease = nullptr);

// Until destroyed, the client hanging up cancels the upstream exchange it was armed for: on a
// fiber the connection's own socket tells at once (edge-triggered); with a thread per connection
// the client watch polls it. An unarmed guard (no socket) watches nothing.
class HangUpGuard {
 public:
  HangUpGuard() = default;
  HangUpGuard(HangUpGuard&&) noexcept = default;
  HangUpGuard& operator=(HangUpGuard&&) noexcept = default;
  ~HangUpGuard();

 private:
  friend class Request;
  struct State {
    int fd = -1;
    upstream::Cancel* cancel = nullptr;
    bool tls = false;  // the client's bytes are TLS records: a hang-up is told by the socket's state
  };
  static void check(void* state);  // the edge watch's hook

  std::unique_ptr<State> state_;  // stable address for the edge watch's hook
  net::fiber::EdgeWatch edge_;
  ClientWatch::Registration polled_;
};

class Request {
 public:
  // `watch` polls the socket when the connection is not on a fiber; may be null (nothing polls).
  Request(ServerRequest& head, std::string id, ClientWatch* watch);

  const std::string& id() const { return id_; }
  const std::string& method() const;
  const std::string& target() const;  // the request-target as sent: path and query
  // A request header's value, "" when absent; names compare without case.
  std::string header(const std::string& name) const;
  bool has(const std::string& name) const;

  // readBody() above, of this request, its growth taken from `lease` when given.
  std::expected<std::string, BodyTooLarge> readBody(size_t limit, BodyBudget::Lease* lease = nullptr);

  // Arms cancellation of `cancel` for when the client hangs up, until the guard is destroyed.
  // `cancel` must outlive the guard.
  HangUpGuard watchHangUp(upstream::Cancel& cancel);

  // The parsed head, for the handlers still written against Poco's interface (admin pages).
  ServerRequest& head() { return head_; }
  const ServerRequest& head() const { return head_; }

 private:
  ServerRequest& head_;
  std::string id_;
  ClientWatch* watch_;
};

}  // namespace sluice::http
