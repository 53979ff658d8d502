#include "server/http/client_tls.h"

#include <cerrno>
#include <cstring>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "server/upstream/tls.h"

namespace sluice::http {

namespace {

// TLS 1.2 suites: forward secret and AEAD only. TLS 1.3's are OpenSSL's defaults (all AEAD).
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
constexpr int kVerifyDepth = 8;

int selectAlpn(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
               unsigned int in_length, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_length, kHttp11, sizeof kHttp11, in, in_length) == OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;  // no ALPN, or only h2: go on with HTTP/1.1 without naming it
}

// A string of a certificate as UTF-8; "" when it holds a NUL (a name forged to read as another).
std::string textOf(const ASN1_STRING* value) {
  if (value == nullptr) return "";
  unsigned char* utf8 = nullptr;
  const int length = ASN1_STRING_to_UTF8(&utf8, value);
  if (length < 0) return "";
  std::string out(reinterpret_cast<const char*>(utf8), static_cast<size_t>(length));
  OPENSSL_free(utf8);
  if (out.find('\0') != std::string::npos || out.size() > identity::kMaxSubjectValue) return "";
  return out;
}

identity::CertificateNames namesOf(X509* certificate) {
  identity::CertificateNames names;
  const X509_NAME* subject = X509_get_subject_name(certificate);
  // One CN only: a certificate with two says nothing certain about which one is its holder.
  const int cn = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (cn >= 0 && X509_NAME_get_index_by_NID(subject, NID_commonName, cn) < 0) {
    names.common_name = textOf(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, cn)));
  }
  auto* alternatives =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr));
  if (alternatives != nullptr) {
    const int count = sk_GENERAL_NAME_num(alternatives);
    for (int i = 0; i < count; ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(alternatives, i);
      if (name->type == GEN_URI && names.uris.size() < identity::kMaxNamesPerKind) {
        if (std::string uri = textOf(name->d.uniformResourceIdentifier); !uri.empty()) names.uris.push_back(uri);
      } else if (name->type == GEN_EMAIL && names.emails.size() < identity::kMaxNamesPerKind) {
        if (std::string email = textOf(name->d.rfc822Name); !email.empty()) names.emails.push_back(email);
      }
    }
    GENERAL_NAMES_free(alternatives);
  }
  for (int at = X509_NAME_get_index_by_NID(subject, NID_pkcs9_emailAddress, -1);
       at >= 0 && names.emails.size() < identity::kMaxNamesPerKind;
       at = X509_NAME_get_index_by_NID(subject, NID_pkcs9_emailAddress, at)) {
    if (std::string email = textOf(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at))); !email.empty()) {
      names.emails.push_back(email);
    }
  }
  return names;
}

}  // namespace

std::string_view toString(HandshakeFailure failure) {
  switch (failure) {
    case HandshakeFailure::Timeout: return "timeout";
    case HandshakeFailure::NoCertificate: return "no_certificate";
    case HandshakeFailure::CertificateRefused: return "certificate_refused";
    case HandshakeFailure::Protocol: return "protocol";
    case HandshakeFailure::Closed: return "closed";
  }
  return "protocol";
}

std::expected<std::shared_ptr<const ServerTls>, std::string> ServerTls::load(const TlsFiles& files) {
  OPENSSL_init_ssl(0, nullptr);
  ERR_clear_error();
  std::shared_ptr<ServerTls> tls(new ServerTls());
  tls->context_ = SSL_CTX_new(TLS_server_method());
  SSL_CTX* ctx = tls->context_;
  if (ctx == nullptr) return std::unexpected("TLS is unavailable: " + upstream::tlsErrors());
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE |
                               SSL_OP_NO_TICKET | SSL_OP_IGNORE_UNEXPECTED_EOF);
  // No session state: every connection's identity comes from its own full handshake.
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) return std::unexpected("TLS ciphers: " + upstream::tlsErrors());
  SSL_CTX_set_alpn_select_cb(ctx, selectAlpn, nullptr);
  if (SSL_CTX_use_certificate_chain_file(ctx, files.certificate.c_str()) != 1) {
    return std::unexpected("--tls-cert " + files.certificate + ": cannot use it as a PEM certificate chain: " +
                           upstream::tlsErrors());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, files.key.c_str(), SSL_FILETYPE_PEM) != 1) {
    ERR_clear_error();  // OpenSSL's reason may quote parts of the file
    return std::unexpected("--tls-key " + files.key + ": cannot read a PEM private key from it");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    return std::unexpected("--tls-key " + files.key + " is not the private key of --tls-cert " + files.certificate);
  }
  if (!files.client_ca.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, files.client_ca.c_str(), nullptr) != 1) {
      return std::unexpected("--client-ca " + files.client_ca + ": cannot read PEM CA certificates from it: " +
                             upstream::tlsErrors());
    }
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(files.client_ca.c_str());
    if (names == nullptr || sk_X509_NAME_num(names) == 0) {
      if (names) sk_X509_NAME_pop_free(names, X509_NAME_free);
      ERR_clear_error();
      return std::unexpected("--client-ca " + files.client_ca + " holds no CA certificate");
    }
    SSL_CTX_set_client_CA_list(ctx, names);  // takes ownership
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    SSL_CTX_set_verify_depth(ctx, kVerifyDepth);
    // A certificate whose extended key usage excludes client authentication is refused.
    X509_VERIFY_PARAM_set_purpose(SSL_CTX_get0_param(ctx), X509_PURPOSE_SSL_CLIENT);
    static const unsigned char kContext[] = "sluice";
    SSL_CTX_set_session_id_context(ctx, kContext, sizeof kContext - 1);
    tls->verifies_clients_ = true;
  }
  return std::shared_ptr<const ServerTls>(std::move(tls));
}

ServerTls::~ServerTls() {
  if (context_) SSL_CTX_free(context_);
}

ClientTls::~ClientTls() {
  if (ssl_) SSL_free(ssl_);
}

std::expected<std::unique_ptr<ClientTls>, HandshakeFailure> ClientTls::accept(
    const ServerTls& server, int fd, net::fiber::Registration& registration, bool require_certificate,
    std::chrono::steady_clock::time_point deadline) {
  ERR_clear_error();
  SSL* ssl = SSL_new(server.context());
  if (ssl == nullptr) {
    ERR_clear_error();
    return std::unexpected(HandshakeFailure::Protocol);
  }
  std::unique_ptr<ClientTls> session(new ClientTls(ssl));
  SSL_set_fd(ssl, fd);
  if (server.verifiesClients() && require_certificate) {
    SSL_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  for (;;) {
    // The error queue is per thread and fibers share threads: start each call with it empty.
    ERR_clear_error();
    errno = 0;
    const int status = SSL_accept(ssl);
    if (status == 1) break;
    const int reason = SSL_get_error(ssl, status);
    if (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE ||
        (reason == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))) {
      if (std::chrono::steady_clock::now() >= deadline) return std::unexpected(HandshakeFailure::Timeout);
      const auto want = reason == SSL_ERROR_WANT_WRITE ? net::fiber::Want::Write : net::fiber::Want::Read;
      if (net::fiber::waitFd(fd, registration, want, deadline) == net::fiber::Wait::Timeout) {
        return std::unexpected(HandshakeFailure::Timeout);
      }
      continue;
    }
    HandshakeFailure failure = HandshakeFailure::Protocol;
    if (reason == SSL_ERROR_SYSCALL || reason == SSL_ERROR_ZERO_RETURN) {
      failure = HandshakeFailure::Closed;
    } else if (reason == SSL_ERROR_SSL) {
      const unsigned long code = ERR_peek_error();
      if (ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
        failure = HandshakeFailure::NoCertificate;
      } else if (SSL_get_verify_result(ssl) != X509_V_OK ||
                 (ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) == SSL_R_CERTIFICATE_VERIFY_FAILED)) {
        failure = HandshakeFailure::CertificateRefused;
      }
    }
    ERR_clear_error();
    return std::unexpected(failure);
  }
  if (X509* peer = SSL_get0_peer_certificate(ssl)) {
    // Verified by the handshake (SSL_VERIFY_PEER fails it otherwise); checked again, for certain.
    if (SSL_get_verify_result(ssl) != X509_V_OK) return std::unexpected(HandshakeFailure::CertificateRefused);
    session->certificate_ = namesOf(peer);
  }
  return session;
}

ClientTls::Io ClientTls::read(char* out, size_t n, size_t& got) {
  got = 0;
  for (;;) {
    ERR_clear_error();
    errno = 0;
    if (SSL_read_ex(ssl_, out, n, &got) == 1) return Io::Done;
    const int reason = SSL_get_error(ssl_, 0);
    switch (reason) {
      case SSL_ERROR_WANT_READ: return Io::WantRead;
      case SSL_ERROR_WANT_WRITE: return Io::WantWrite;
      case SSL_ERROR_ZERO_RETURN: return Io::Closed;
      case SSL_ERROR_SYSCALL:
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return Io::WantRead;
        ERR_clear_error();
        return errno == 0 ? Io::Closed : Io::Failed;
      default:
        ERR_clear_error();
        return Io::Failed;
    }
  }
}

ClientTls::Io ClientTls::write(const char* data, size_t n, size_t& put) {
  put = 0;
  for (;;) {
    ERR_clear_error();
    errno = 0;
    if (SSL_write_ex(ssl_, data, n, &put) == 1) return Io::Done;
    const int reason = SSL_get_error(ssl_, 0);
    switch (reason) {
      case SSL_ERROR_WANT_READ: return Io::WantRead;
      case SSL_ERROR_WANT_WRITE: return Io::WantWrite;
      case SSL_ERROR_SYSCALL:
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return Io::WantWrite;
        ERR_clear_error();
        return Io::Failed;
      default:
        ERR_clear_error();
        return Io::Failed;
    }
  }
}

bool ClientTls::pending() const { return SSL_pending(ssl_) > 0; }

void ClientTls::close() {
  if (closed_) return;
  closed_ = true;
  ERR_clear_error();
  SSL_shutdown(ssl_);
  ERR_clear_error();
}

}  // namespace sluice::http
