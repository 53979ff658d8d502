#include "server/upstream/client.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "server/net/send_all.h"

namespace sluice::upstream {

std::string_view toString(TransportFailure failure) {
  switch (failure) {
    case TransportFailure::Connect: return "connect";
    case TransportFailure::Timeout: return "timeout";
    case TransportFailure::Reset: return "reset";
    case TransportFailure::Tls: return "tls";
    case TransportFailure::Protocol: return "protocol";
  }
  return "transport";
}

namespace {

using SteadyClock = std::chrono::steady_clock;

// A kept-alive connection idle longer than this is not reused: servers close idle connections
// (Node after 5 s), and a request written into one that is closing fails for nothing.
constexpr auto kReuseLimit = std::chrono::seconds(4);
constexpr size_t kReadChunk = 16384;
constexpr size_t kFirstBuffer = 4096;   // a head and a small answer; grown when an answer needs more
constexpr size_t kPooledBuffer = 8192;  // a pooled connection keeps no larger buffer than this
constexpr size_t kMaxHead = 64u << 10;

// What an I/O call ended with, when it moved no bytes.
enum IoError : int { kClosed = 1, kTimedOut, kReset, kTlsError };

// Where a request goes: parsed from the deployment's absolute URL.
struct Target {
  bool tls = false;
  std::string host;         // without brackets
  std::string port;         // digits
  std::string origin;       // scheme://host:port, the pool's key
  std::string host_header;  // host[:port] as the Host field wants it
  std::string path;         // path and query, at least "/"
};

// ASCII only, as HTTP field names and schemes are (no locale lookup per character).
constexpr char lowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  }
  return true;
}

std::optional<Target> parseUrl(std::string_view url) {
  Target target;
  std::string_view rest;
  if (url.size() > 8 && equalsNoCase(url.substr(0, 8), "https://")) {
    target.tls = true;
    rest = url.substr(8);
  } else if (url.size() > 7 && equalsNoCase(url.substr(0, 7), "http://")) {
    rest = url.substr(7);
  } else {
    return std::nullopt;
  }
  const size_t authority_end = std::min(rest.find_first_of("/?#"), rest.size());
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view path = rest.substr(authority_end);
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;
  std::string_view host;
  std::string_view port;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
  } else {
    const size_t colon = authority.rfind(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (host.empty()) return std::nullopt;
  const std::string_view default_port = target.tls ? "443" : "80";
  if (port.empty()) port = default_port;
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  if (const int number = std::stoi(std::string(port)); number < 1 || number > 65535) return std::nullopt;
  if (const size_t hash = path.find('#'); hash != std::string_view::npos) path = path.substr(0, hash);
  target.host = std::string(host);
  target.port = std::string(port);
  const bool ipv6 = host.find(':') != std::string_view::npos;
  const std::string bracketed = ipv6 ? "[" + target.host + "]" : target.host;
  target.origin = std::string(target.tls ? "https://" : "http://") + bracketed + ":" + target.port;
  target.host_header = port == default_port ? bracketed : bracketed + ":" + target.port;
  target.path = path.empty() ? "/" : path.front() == '?' ? "/" + std::string(path) : std::string(path);
  return target;
}

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

void setTimeout(int fd, int option, int ms) {
  timeval value{};
  value.tv_sec = ms / 1000;
  value.tv_usec = (ms % 1000) * 1000;
  ::setsockopt(fd, SOL_SOCKET, option, &value, sizeof value);
}

}  // namespace

// One connection to a provider: the socket, its TLS session when https, the bytes read and not
// yet used, and the socket timeouts it was last given (set again only when they change: each is a
// system call, and a kept-alive connection carries them from request to request).
struct Link {
  int fd = -1;
  SSL* ssl = nullptr;
  int send_ms = -1;     // the socket's own timeouts, as last set (blocking mode)
  int receive_ms = -1;
  int send_wait_ms = 0;  // the timeouts this exchange wants (a wait's patience on a fiber)
  int receive_wait_ms = 0;
  bool nonblocking = false;  // on a fiber the socket is non-blocking and waits park the fiber
  bool sent = false;         // a request just went out: its answer cannot be there yet
  net::fiber::Registration registration;
  std::string buffer;
  size_t begin = 0;
  size_t end = 0;
  SteadyClock::time_point idle_since{};

  Link() = default;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  ~Link() {
    if (ssl) SSL_free(ssl);
    if (fd >= 0) ::close(fd);
  }

  // Non-blocking with fiber waits on a fiber, blocking with socket timeouts elsewhere.
  void useFibers(bool on) {
    if (on == nonblocking) return;
    const int flags = ::fcntl(fd, F_GETFL);
    ::fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK);
    nonblocking = on;
    if (!on) {
      sendTimeout(send_wait_ms);
      receiveTimeout(receive_wait_ms);
    }
  }

  void sendTimeout(int ms) {
    send_wait_ms = ms;
    if (nonblocking || send_ms == ms) return;
    setTimeout(fd, SO_SNDTIMEO, ms);
    send_ms = ms;
  }
  void receiveTimeout(int ms) {
    receive_wait_ms = ms;
    if (nonblocking || receive_ms == ms) return;
    setTimeout(fd, SO_RCVTIMEO, ms);
    receive_ms = ms;
  }

  // On a fiber: waits for the socket (a timeout of 0 waits without end, like SO_RCVTIMEO's 0).
  bool await(net::fiber::Want want, int ms) {
    const auto deadline = ms > 0 ? net::fiber::Clock::now() + std::chrono::milliseconds(ms) : net::fiber::kNever;
    return net::fiber::waitFd(fd, registration, want, deadline) != net::fiber::Wait::Timeout;
  }

  std::string_view buffered() const { return {buffer.data() + begin, end - begin}; }
  void consume(size_t n) { begin += n; }

  // Reads what arrives into `out`: the byte count, or 0 with `error` set.
  size_t read(char* out, size_t n, int& error) {
    if (sent && nonblocking) {
      // Wait first: a read now would only come back empty.
      sent = false;
      if (!await(net::fiber::Want::Read, receive_wait_ms)) {
        error = kTimedOut;
        return 0;
      }
    }
    sent = false;
    for (;;) {
      if (ssl) {
        const int got = SSL_read(ssl, out, static_cast<int>(std::min<size_t>(n, 1u << 30)));
        if (got > 0) return static_cast<size_t>(got);
        const int reason = SSL_get_error(ssl, got);
        if (reason == SSL_ERROR_ZERO_RETURN) {
          error = kClosed;
        } else if (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE) {
          if (nonblocking) {
            ERR_clear_error();
            const auto want = reason == SSL_ERROR_WANT_READ ? net::fiber::Want::Read : net::fiber::Want::Write;
            if (await(want, receive_wait_ms)) continue;
          }
          error = kTimedOut;
        } else if (reason == SSL_ERROR_SYSCALL) {
          if (errno == EINTR) continue;
          error = errno == EAGAIN || errno == EWOULDBLOCK ? kTimedOut : errno == 0 ? kClosed : kReset;
        } else {
          error = kTlsError;
        }
        ERR_clear_error();
        return 0;
      }
      const ssize_t got = ::recv(fd, out, n, 0);
      if (got > 0) return static_cast<size_t>(got);
      if (got == 0) {
        error = kClosed;
        return 0;
      }
      if (errno == EINTR) continue;
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && nonblocking && await(net::fiber::Want::Read, receive_wait_ms)) {
        continue;
      }
      error = errno == EAGAIN || errno == EWOULDBLOCK ? kTimedOut : kReset;
      return 0;
    }
  }

  // Reads more into the buffer.
  size_t fill(int& error) {
    if (begin == end) begin = end = 0;
    if (buffer.size() - end < kFirstBuffer / 4) {
      if (begin > 0) {
        std::memmove(buffer.data(), buffer.data() + begin, end - begin);
        end -= begin;
        begin = 0;
      }
      if (buffer.size() - end < kFirstBuffer / 4) buffer.resize(std::max(kFirstBuffer, buffer.size() * 2));
    }
    const size_t got = read(buffer.data() + end, buffer.size() - end, error);
    end += got;
    return got;
  }

  // Writes every piece, in order; false with `error` set when the connection failed.
  bool write(std::string_view head, std::string_view body, int& error) {
    if (ssl) {
      // Small requests go out as one TLS record; a large body follows its head.
      std::string joined;
      std::string_view pieces[2] = {head, body};
      size_t count = 2;
      if (head.size() + body.size() <= kReadChunk) {
        joined.reserve(head.size() + body.size());
        joined.append(head).append(body);
        pieces[0] = joined;
        count = 1;
      }
      for (size_t i = 0; i < count; ++i) {
        std::string_view rest = pieces[i];
        while (!rest.empty()) {
          const int sent = SSL_write(ssl, rest.data(), static_cast<int>(std::min<size_t>(rest.size(), 1u << 30)));
          if (sent > 0) {
            rest.remove_prefix(static_cast<size_t>(sent));
            continue;
          }
          const int reason = SSL_get_error(ssl, sent);
          if (reason == SSL_ERROR_SYSCALL && errno == EINTR) continue;
          if (nonblocking && (reason == SSL_ERROR_WANT_WRITE || reason == SSL_ERROR_WANT_READ)) {
            ERR_clear_error();
            const auto want = reason == SSL_ERROR_WANT_READ ? net::fiber::Want::Read : net::fiber::Want::Write;
            if (await(want, send_wait_ms)) continue;  // the same bytes again, as OpenSSL requires
          }
          error = reason == SSL_ERROR_WANT_WRITE || reason == SSL_ERROR_WANT_READ ||
                          (reason == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EWOULDBLOCK))
                      ? kTimedOut
                      : reason == SSL_ERROR_SYSCALL ? kReset : kTlsError;
          ERR_clear_error();
          return false;
        }
      }
      return true;
    }
    const net::SendWait wait{registration, std::chrono::milliseconds(send_wait_ms > 0 ? send_wait_ms : 86'400'000)};
    const int failure = net::sendAll(fd, {head, body}, nonblocking ? &wait : nullptr);
    if (failure != 0) {
      error = failure == EAGAIN || failure == EWOULDBLOCK ? kTimedOut : kReset;
      return false;
    }
    return true;
  }
};

// Idle keep-alive connections per origin ("https://host:port").
class Pool {
 public:
  explicit Pool(int max_idle) : max_idle_(max_idle) {}

  std::unique_ptr<Link> take(const std::string& origin) {
    std::lock_guard lock(mutex_);
    auto found = idle_.find(origin);
    if (found == idle_.end()) return nullptr;
    auto& idle = found->second;
    // Newest last: when the newest has sat too long, so have all the others.
    if (!idle.empty() && SteadyClock::now() - idle.back()->idle_since > kReuseLimit) idle.clear();
    if (idle.empty()) return nullptr;
    // On a fiber, a connection last used on this worker saves moving its epoll registration.
    size_t pick = idle.size() - 1;
    if (const int epoll_fd = net::fiber::currentEpoll(); epoll_fd >= 0) {
      for (size_t i = idle.size(), looked = 0; i-- > 0 && looked < 8; ++looked) {
        if (idle[i]->registration.epoll_fd == epoll_fd) {
          pick = i;
          break;
        }
      }
    }
    auto link = std::move(idle[pick]);
    idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(pick));
    link->useFibers(net::fiber::active());
    return link;
  }

  void give(const std::string& origin, std::unique_ptr<Link> link) {
    link->idle_since = SteadyClock::now();
    if (link->buffer.capacity() > kPooledBuffer) {
      // A large answer grew it: idle connections should not hold on to that.
      std::string().swap(link->buffer);
      link->begin = link->end = 0;
    }
    std::lock_guard lock(mutex_);
    auto& idle = idle_[origin];
    if (static_cast<int>(idle.size()) < max_idle_) idle.push_back(std::move(link));
  }

 private:
  std::mutex mutex_;
  int max_idle_;
  std::map<std::string, std::vector<std::unique_ptr<Link>>, std::less<>> idle_;
};

namespace {

[[noreturn]] void throwConnect(const Target& target, const std::string& why) {
  throw TransportError(TransportFailure::Connect, "cannot connect to " + target.host + ":" + target.port + ": " + why);
}

// Connects within `timeout_ms` (every address the name resolves to, in order), then, for https,
// completes the TLS handshake within the same time and checks the certificate names the host.
std::unique_ptr<Link> connectTo(const Target& target, int timeout_ms) {
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  in6_addr ip{};
  const bool literal = ::inet_pton(AF_INET, target.host.c_str(), &ip) == 1 ||
                       ::inet_pton(AF_INET6, target.host.c_str(), &ip) == 1;
  // A name lookup may wait on DNS: on a fiber it runs on a helper thread (fiber.h blocking()).
  const int resolved =
      literal ? ::getaddrinfo(target.host.c_str(), target.port.c_str(), &hints, &found)
              : net::fiber::blocking([&] { return ::getaddrinfo(target.host.c_str(), target.port.c_str(), &hints, &found); });
  if (resolved != 0) throwConnect(target, std::string("cannot resolve the host: ") + ::gai_strerror(resolved));
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  auto link = std::make_unique<Link>();
  std::string last_error = "no address";
  bool timed_out = false;
  for (const addrinfo* address = found; address && link->fd < 0; address = address->ai_next) {
    const int fd = ::socket(address->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int status = ::connect(fd, address->ai_addr, address->ai_addrlen);
    net::fiber::Registration registration;
    if (status != 0 && errno == EINPROGRESS) {
      const bool ready = net::fiber::waitFd(fd, registration, net::fiber::Want::Write, deadline) == net::fiber::Wait::Ready;
      if (!ready) {
        timed_out = true;
        last_error = "timed out";
        ::close(fd);
        break;
      }
      int error = 0;
      socklen_t length = sizeof error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      status = error == 0 ? 0 : -1;
      errno = error;
    }
    if (status != 0) {
      last_error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    const int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    link->fd = fd;
    link->nonblocking = true;
    link->registration = registration;
    link->useFibers(net::fiber::active());
  }
  if (link->fd < 0) {
    if (timed_out) throw TransportError(TransportFailure::Connect, "timed out connecting to the provider");
    throwConnect(target, last_error);
  }
  if (!target.tls) return link;

  SSL_CTX* context = tlsContext();
  if (!context) throw TransportError(TransportFailure::Tls, "TLS is unavailable: " + tlsErrors());
  link->ssl = SSL_new(context);
  if (!link->ssl) throw TransportError(TransportFailure::Tls, "TLS is unavailable: " + tlsErrors());
  SSL_set_fd(link->ssl, link->fd);
  if (literal) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(link->ssl), target.host.c_str());
  } else {
    SSL_set_tlsext_host_name(link->ssl, target.host.c_str());
    SSL_set1_host(link->ssl, target.host.c_str());
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  const int handshake_ms = static_cast<int>(std::max<int64_t>(left, 1));
  link->sendTimeout(handshake_ms);
  link->receiveTimeout(handshake_ms);
  for (;;) {
    const int status = SSL_connect(link->ssl);
    if (status == 1) break;
    const int reason = SSL_get_error(link->ssl, status);
    if (link->nonblocking && (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE)) {
      ERR_clear_error();
      const auto want = reason == SSL_ERROR_WANT_READ ? net::fiber::Want::Read : net::fiber::Want::Write;
      if (net::fiber::waitFd(link->fd, link->registration, want, deadline) == net::fiber::Wait::Ready) continue;
    }
    const long verify = SSL_get_verify_result(link->ssl);
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
    throw TransportError(TransportFailure::Tls, "TLS handshake with " + target.host + " failed: " + why);
  }
  return link;
}

std::string renderHead(const Request& request, const Target& target) {
  std::string head;
  head.reserve(256 + request.headers.size() * 48);
  head.append(request.method).append(" ").append(target.path).append(" HTTP/1.1\r\nHost: ");
  head.append(target.host_header).append("\r\n");
  for (const auto& [name, value] : request.headers) {
    if (equalsNoCase(name, "host") || equalsNoCase(name, "content-length") || equalsNoCase(name, "connection") ||
        equalsNoCase(name, "transfer-encoding")) {
      continue;  // framing is the client's business
    }
    head.append(name).append(": ");
    // A value never carries a line break into the head.
    for (const char c : value) head += (c == '\r' || c == '\n') ? ' ' : c;
    head.append("\r\n");
  }
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
    head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  }
  head.append("\r\n");
  return head;
}

TransportError transportError(int error, bool answering) {
  switch (error) {
    case kTimedOut: return TransportError(TransportFailure::Timeout, "timed out waiting for the provider");
    case kTlsError: return TransportError(TransportFailure::Tls, "TLS failure: " + tlsErrors());
    case kClosed:
      return TransportError(TransportFailure::Reset, answering ? "the provider closed the connection mid-answer"
                                                               : "the provider closed the connection");
    default: return TransportError(TransportFailure::Reset, "connection reset by the provider");
  }
}

// The head of the answer, after any 1xx interim heads. nullopt with `error` set when the
// connection failed first; throws TransportError{Protocol} on a malformed head.
std::optional<Response::Head> readHead(Link& link, const Request& request, int& error, bool& any_byte) {
  net::h1::HeadLimits limits;
  limits.max_head_bytes = kMaxHead;
  limits.max_fields = 256;
  for (;;) {
    net::h1::ResponseHead parsed;
    const net::h1::HeadResult result = net::h1::parseResponseHead(link.buffered(), limits, parsed);
    if (result.status == net::h1::HeadStatus::Incomplete) {
      if (link.fill(error) == 0) return std::nullopt;
      any_byte = true;
      continue;
    }
    if (result.status != net::h1::HeadStatus::Complete) {
      throw TransportError(TransportFailure::Protocol, "malformed answer from the provider: " + result.reason);
    }
    if (parsed.status >= 100 && parsed.status < 200 && parsed.status != 101) {
      link.consume(result.consumed);  // 100 Continue, 103 Early Hints: the answer follows
      continue;
    }
    Response::Head head;
    head.status = parsed.status;
    head.headers.reserve(parsed.fields.size());
    std::optional<std::string_view> length;
    bool chunked = false;
    bool close = parsed.version == "HTTP/1.0";
    for (const auto& [name, value] : parsed.fields) {
      head.headers.emplace_back(name, value);
      if (equalsNoCase(name, "content-length")) {
        if (length && *length != value) {
          throw TransportError(TransportFailure::Protocol, "malformed answer from the provider: two Content-Lengths");
        }
        length = value;
      } else if (equalsNoCase(name, "transfer-encoding")) {
        chunked = value.size() >= 7 && equalsNoCase(value.substr(value.size() - 7), "chunked");
      } else if (equalsNoCase(name, "connection")) {
        if (equalsNoCase(value, "close")) close = true;
        else if (equalsNoCase(value, "keep-alive")) close = false;
      }
    }
    link.consume(result.consumed);
    const bool bodiless = request.method == "HEAD" || parsed.status == 204 || parsed.status == 304;
    if (bodiless) {
      head.framing = Response::Framing::None;
    } else if (chunked) {
      head.framing = Response::Framing::Chunked;
    } else if (length) {
      uint64_t value = 0;
      if (length->empty() || length->size() > 18 || length->find_first_not_of("0123456789") != std::string_view::npos) {
        throw TransportError(TransportFailure::Protocol, "malformed answer from the provider: bad Content-Length");
      }
      for (const char c : *length) value = value * 10 + static_cast<uint64_t>(c - '0');
      head.framing = value == 0 ? Response::Framing::None : Response::Framing::Length;
      head.length = value;
    } else {
      head.framing = Response::Framing::Close;
      close = true;
    }
    head.keep_alive = !close;
    return head;
  }
}

}  // namespace

void Cancel::cancel() {
  std::lock_guard lock(mutex_);
  cancelled_.store(true, std::memory_order_release);
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  woken_.notify_all();
  if (waker_) waker_.wake();
}

bool Cancel::waitFor(std::chrono::milliseconds duration) {
  if (net::fiber::active()) {
    const auto deadline = net::fiber::Clock::now() + duration;
    {
      std::lock_guard lock(mutex_);
      if (cancelled_.load(std::memory_order_acquire)) return false;
      waker_ = net::fiber::currentWaker();
    }
    net::fiber::park(deadline);
    std::lock_guard lock(mutex_);
    waker_ = {};
    return !cancelled_.load(std::memory_order_acquire);
  }
  std::unique_lock lock(mutex_);
  return !woken_.wait_for(lock, duration, [this] { return cancelled_.load(std::memory_order_acquire); });
}

void Cancel::attach(int fd) {
  std::lock_guard lock(mutex_);
  fd_ = fd;
  if (cancelled_.load(std::memory_order_acquire) && fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void Cancel::detach() {
  std::lock_guard lock(mutex_);
  fd_ = -1;
}

Response::Response(std::shared_ptr<Pool> pool, std::string origin, std::unique_ptr<Link> link, Head head, int idle_ms,
                   Cancel* cancel)
    : pool_(std::move(pool)), origin_(std::move(origin)), link_(std::move(link)), head_(std::move(head)),
      remaining_(head_.length), cancel_(cancel) {
  link_->receiveTimeout(idle_ms);
  if (head_.framing == Framing::Chunked) chunked_ = std::make_unique<net::h1::ChunkedDecoder>();
  if (head_.framing == Framing::None) finished_ = true;
}

Response::~Response() {
  // Detached first: once pooled, the socket belongs to another request.
  if (cancel_) cancel_->detach();
  // Reused only when the answer ended exactly where its framing said.
  if (link_ && finished_ && !aborted_ && head_.keep_alive && link_->buffered().empty() &&
      !(cancel_ && cancel_->cancelled())) {
    pool_->give(origin_, std::move(link_));
  }
}

int Response::status() const { return head_.status; }

std::string Response::header(const std::string& name) const {
  for (const auto& [key, value] : head_.headers) {
    if (equalsNoCase(key, name)) return value;
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> Response::headers() const { return head_.headers; }

void Response::fail(int error) {
  aborted_ = true;
  if (cancel_) cancel_->detach();
  link_.reset();
  throw transportError(error, true);
}

bool Response::fill() {
  int error = 0;
  if (link_->fill(error) > 0) return true;
  if (error == kClosed) return false;
  fail(error);
}

bool Response::readSome(std::string& out) {
  if (finished_ || aborted_ || !link_) return false;
  switch (head_.framing) {
    case Framing::None:
      finished_ = true;
      return false;
    case Framing::Length: {
      if (remaining_ == 0) {
        finished_ = true;
        return false;
      }
      if (link_->buffered().empty()) {
        // Straight into `out`: no copy through the connection's buffer.
        const size_t had = out.size();
        const auto want = static_cast<size_t>(std::min<uint64_t>(remaining_, 64u << 10));
        int error = 0;
        size_t got = 0;
        out.resize_and_overwrite(had + want, [&](char* data, size_t) {
          got = link_->read(data + had, want, error);
          return had + got;
        });
        if (got == 0) fail(error);
        remaining_ -= got;
        if (remaining_ == 0) finished_ = true;
        return true;
      }
      const std::string_view in = link_->buffered();
      const auto take = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size()));
      out.append(in.data(), take);
      link_->consume(take);
      remaining_ -= take;
      if (remaining_ == 0) finished_ = true;
      return true;
    }
    case Framing::Chunked: {
      bool any = false;
      for (;;) {
        if (chunked_->done()) {
          finished_ = true;
          return any;
        }
        if (link_->buffered().empty()) {
          if (any) return true;
          if (!fill()) fail(kClosed);
          continue;
        }
        std::string_view data;
        const size_t used = chunked_->feed(link_->buffered(), data);
        out.append(data);
        link_->consume(used);
        any = any || !data.empty();
        if (chunked_->failed()) {
          aborted_ = true;
          if (cancel_) cancel_->detach();
          link_.reset();
          throw TransportError(TransportFailure::Protocol, "malformed chunked answer from the provider: " + chunked_->error());
        }
      }
    }
    case Framing::Close: {
      if (link_->buffered().empty() && !fill()) {
        finished_ = true;
        return false;
      }
      const std::string_view in = link_->buffered();
      out.append(in);
      link_->consume(in.size());
      return true;
    }
  }
  return false;
}

std::string Response::readAll() {
  std::string out;
  if (head_.framing == Framing::Length) out.reserve(static_cast<size_t>(std::min<uint64_t>(head_.length, 64u << 20)));
  while (readSome(out)) {
  }
  return out;
}

void Response::abort() {
  if (aborted_) return;
  aborted_ = true;
  if (cancel_) cancel_->detach();
  link_.reset();
}

Client::Client(int max_idle_per_origin) : pool_(std::make_shared<Pool>(max_idle_per_origin)) {}
Client::~Client() = default;

std::unique_ptr<Response> Client::send(const Request& request, Cancel* cancel) {
  const std::optional<Target> target = parseUrl(request.url);
  if (!target) throw TransportError(TransportFailure::Connect, "not an http(s) URL: " + request.url);
  const std::string head = renderHead(request, *target);
  auto cancelled = [] {
    return TransportError(TransportFailure::Reset, "cancelled: the client is gone");
  };
  // A pooled connection the provider already closed fails before any answer: retry once on a fresh one.
  for (int round = 0; round < 2; ++round) {
    if (cancel && cancel->cancelled()) throw cancelled();
    auto link = round == 0 ? pool_->take(target->origin) : nullptr;
    const bool reused = link != nullptr;
    if (!link) link = connectTo(*target, request.timeouts.connect_ms);
    // This call's own limits, whatever the connection had before.
    link->sendTimeout(request.timeouts.first_byte_ms);
    link->receiveTimeout(request.timeouts.first_byte_ms);
    if (cancel) cancel->attach(link->fd);
    int error = 0;
    bool any_byte = false;
    std::optional<Response::Head> answer;
    try {
      if (link->write(head, request.body, error)) {
        link->sent = true;
        answer = readHead(*link, request, error, any_byte);
      }
    } catch (const TransportError&) {
      if (cancel) cancel->detach();
      throw;
    }
    if (answer) {
      return std::make_unique<Response>(pool_, target->origin, std::move(link), std::move(*answer),
                                        request.timeouts.idle_ms, cancel);
    }
    if (cancel) {
      cancel->detach();
      if (cancel->cancelled()) throw cancelled();
    }
    if (reused && round == 0 && !any_byte && error != kTimedOut) continue;
    throw transportError(error, false);
  }
  throw TransportError(TransportFailure::Connect, "could not reach " + target->origin);
}

}  // namespace sluice::upstream
