#pragma once
// TLS for the upstream client through OpenSSL: one client context for the process (TLS 1.2 or
// later, the system's trust store: SSL_CERT_FILE / SSL_CERT_DIR apply, read once), and the
// handshake that checks the certificate names the provider's host. Internal to the client.

#include <chrono>
#include <string>

namespace sluice::upstream {

struct Link;

// The OpenSSL errors queued on this thread as one line ("no detail" when none); clears the queue.
std::string tlsErrors();

// Starts TLS on `link`, connected and without a session yet, and completes the handshake by
// `deadline`: SNI and a certificate checked against `host` (a name, or an IP address literal
// checked against the certificate's addresses). Throws TransportError{Tls} when TLS is
// unavailable, the handshake fails or times out, or the certificate is not trusted for `host`.
void startTls(Link& link, const std::string& host, std::chrono::steady_clock::time_point deadline);

}  // namespace sluice::upstream
