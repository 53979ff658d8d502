#pragma once
// The HTTP(S) client the gateway uses to call providers: a keep-alive pool per origin, streaming
// reads, and an abort that closes the socket at once (that is what stops generation upstream).
// HTTP/1.1 over the socket directly (framing from server/net/http1.h), TLS through OpenSSL with
// the system's trust store (SSL_CERT_FILE / SSL_CERT_DIR apply) and the provider's host name
// verified. A request costs the system calls HTTP needs: one write, the reads the answer takes;
// socket timeouts are only set when they change.
// Thread-safe: one Client is shared by every request thread; a Response belongs to one thread.
// On a fiber (net/fiber.h) its sockets are non-blocking and every wait parks the fiber instead.
//
// The parts, each in its own file: url (where a request goes), connect and tls (opening a
// connection), link (one connection's reads and writes), pool (idle connections per origin),
// pooled_response (reading an answer's body by its framing), cancel.

#include <memory>

#include "server/upstream/transport.h"

namespace sluice::upstream {

class Pool;

class Client : public Transport {
 public:
  explicit Client(int max_idle_per_origin = 64);
  ~Client() override;

  // Sends the request and waits for the response head (connect_ms to connect, first_byte_ms for
  // the head). Throws TransportError when the provider cannot be reached or does not answer; a
  // pooled connection the provider had already closed is retried once on a fresh one.
  // `cancel`, when given, must outlive the Response; cancelling it ends the exchange at once
  // (send or a later read then throws TransportError{Reset}).
  std::unique_ptr<Response> send(const Request& request, Cancel* cancel = nullptr) override;

 private:
  std::shared_ptr<Pool> pool_;
};

}  // namespace sluice::upstream
