#include "server/upstream/tls.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "server/upstream/link.h"

namespace sluice::upstream {

namespace {

SSL_CTX* tlsContext() {
  static SSL_CTX* context = [] {
    OPENSSL_init_ssl(0, nullptr);
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) return ctx;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // The system's trust store; SSL_CERT_FILE and SSL_CERT_DIR point elsewhere when set.
    SSL_CTX_set_default_verify_paths(ctx);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    // A provider that closes without close_notify ends a close-delimited body, not an error.
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(ctx, SSL_MODE_AUTO_RETRY);
    static const unsigned char kAlpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(ctx, kAlpn, sizeof kAlpn);
    return ctx;
  }();
  return context;
}

bool isAddressLiteral(const std::string& host) {
  in6_addr ip{};
  return ::inet_pton(AF_INET, host.c_str(), &ip) == 1 || ::inet_pton(AF_INET6, host.c_str(), &ip) == 1;
}

}  // namespace

std::string tlsErrors() {
  std::string out;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    if (!out.empty()) out += "; ";
    out += text;
  }
  return out.empty() ? "no detail" : out;
}

void startTls(Link& link, const std::string& host, std::chrono::steady_clock::time_point deadline) {
  SSL_CTX* context = tlsContext();
  if (!context) throw TransportError(TransportFailure::Tls, "TLS is unavailable: " + tlsErrors());
  link.ssl = SSL_new(context);
  if (!link.ssl) throw TransportError(TransportFailure::Tls, "TLS is unavailable: " + tlsErrors());
  SSL_set_fd(link.ssl, link.fd);
  if (isAddressLiteral(host)) {
    // No SNI for an address (RFC 6066 §3); the certificate must name the address itself.
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(link.ssl), host.c_str());
  } else {
    SSL_set_tlsext_host_name(link.ssl, host.c_str());
    SSL_set1_host(link.ssl, host.c_str());
  }
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  const int handshake_ms = static_cast<int>(std::max<int64_t>(left, 1));
  link.sendTimeout(handshake_ms);
  link.receiveTimeout(handshake_ms);
  for (;;) {
    const int status = SSL_connect(link.ssl);
    if (status == 1) return;
    const int reason = SSL_get_error(link.ssl, status);
    if (link.nonblocking && (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE)) {
      ERR_clear_error();
      const auto want = reason == SSL_ERROR_WANT_READ ? net::fiber::Want::Read : net::fiber::Want::Write;
      if (net::fiber::waitFd(link.fd, link.registration, want, deadline) == net::fiber::Wait::Ready) continue;
    }
    const long verify = SSL_get_verify_result(link.ssl);
    std::string why;
    if (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE ||
        (reason == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EWOULDBLOCK))) {
      why = "timed out";
    } else if (verify != X509_V_OK) {
      why = std::string("certificate not trusted: ") + X509_verify_cert_error_string(verify);
    } else {
      why = tlsErrors();
    }
    ERR_clear_error();
    throw TransportError(TransportFailure::Tls, "TLS handshake with " + host + " failed: " + why);
  }
}

}  // namespace sluice::upstream
