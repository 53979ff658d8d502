#pragma once
// TLS on the gateway's own listener (--tls-cert, --tls-key, --client-ca): the server context,
// loaded once at boot, and one client connection's TLS session, which ClientSocket reads and
// writes through (client_socket.h). OpenSSL 3.
//
// The context: TLS 1.2 or later; TLS 1.2 with forward-secret AEAD suites only (ECDHE with
// AES-GCM or ChaCha20-Poly1305); no renegotiation, no compression, no session tickets' state kept
// on the server; ALPN http/1.1. With a client CA, every handshake asks for a client certificate
// and refuses one that the CA did not sign (or that is expired, or not for client authentication);
// a connection may additionally require one (`identity: certificate`).
//
// Thread-safety: the context is immutable after load and shared by every connection; a session
// belongs to its connection's fiber or thread.

#include <chrono>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "server/identity/certificate_subject.h"
#include "server/net/fiber.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace sluice::http {

struct TlsFiles {
  std::string certificate;  // PEM: the server's certificate, then its chain
  std::string key;          // PEM: its private key
  std::string client_ca;    // PEM: CA certificates client certificates must chain to; "" = none asked
};

class ServerTls {
 public:
  // Reads and checks the files (the key matches the certificate; the CA file holds at least one
  // certificate). The error names the file and OpenSSL's reason, never key material.
  static std::expected<std::shared_ptr<const ServerTls>, std::string> load(const TlsFiles& files);
  ~ServerTls();
  ServerTls(const ServerTls&) = delete;
  ServerTls& operator=(const ServerTls&) = delete;

  bool verifiesClients() const { return verifies_clients_; }
  SSL_CTX* context() const { return context_; }

 private:
  ServerTls() = default;
  SSL_CTX* context_ = nullptr;
  bool verifies_clients_ = false;
};

// Why a handshake did not complete: the label of gateway_tls_handshake_failures_total.
enum class HandshakeFailure {
  Timeout,             // not complete by its deadline (the head deadline): a slow or stalled client
  NoCertificate,       // a certificate was required and none was sent
  CertificateRefused,  // the client's certificate does not verify against --client-ca
  Protocol,            // not TLS, an old version, no common cipher, a bad record
  Closed,              // the client closed or reset the connection during the handshake
};
std::string_view toString(HandshakeFailure failure);

// One connection's TLS session over a connected socket. Not thread-safe.
class ClientTls {
 public:
  // How one read or write went: Done (bytes moved), Want* (the socket has no data or no room: wait
  // for it and call again with the same arguments), Closed (the peer ended the session or the
  // stream), Failed (reset, or a TLS error).
  enum class Io { Done, WantRead, WantWrite, Closed, Failed };

  ClientTls(const ClientTls&) = delete;
  ClientTls& operator=(const ClientTls&) = delete;
  ~ClientTls();

  // Runs the server side of the handshake on `fd` until it completes or `deadline` passes: on a
  // fiber it parks between steps, elsewhere it polls. `require_certificate`: a client without a
  // certificate is refused at the handshake (with a client CA configured).
  static std::expected<std::unique_ptr<ClientTls>, HandshakeFailure> accept(
      const ServerTls& server, int fd, net::fiber::Registration& registration, bool require_certificate,
      std::chrono::steady_clock::time_point deadline);

  Io read(char* out, size_t n, size_t& got);
  Io write(const char* data, size_t n, size_t& put);
  // Whether decrypted bytes are already buffered (a read would return them without the socket).
  bool pending() const;
  // Sends close_notify once, without waiting for the peer's (best effort: a full socket skips it).
  void close();

  // The verified client certificate's names; nullopt when the client sent none.
  const std::optional<identity::CertificateNames>& certificate() const { return certificate_; }

 private:
  explicit ClientTls(SSL* ssl) : ssl_(ssl) {}
  SSL* ssl_ = nullptr;
  bool closed_ = false;
  std::optional<identity::CertificateNames> certificate_;
};

}  // namespace sluice::http
