#include "server/upstream/link.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "server/net/read_buffer.h"
#include "server/net/send_all.h"
#include "server/upstream/tls.h"

namespace sluice::upstream {

namespace {

constexpr size_t kReadChunk = 16384;   // a request this small goes out as one TLS record
constexpr size_t kFirstBuffer = 4096;  // a head and a small answer; grown when an answer needs more

void setTimeout(int fd, int option, int ms) {
  timeval value{};
  value.tv_sec = ms / 1000;
  value.tv_usec = (ms % 1000) * 1000;
  ::setsockopt(fd, SOL_SOCKET, option, &value, sizeof value);
}

}  // namespace

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

Link::~Link() {
  if (ssl) SSL_free(ssl);
  if (fd >= 0) ::close(fd);
}

void Link::useFibers(bool on) {
  if (on == nonblocking) return;
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK);
  nonblocking = on;
  if (!on) {
    sendTimeout(send_wait_ms);
    receiveTimeout(receive_wait_ms);
  }
}

void Link::sendTimeout(int ms) {
  send_wait_ms = ms;
  if (nonblocking || send_ms == ms) return;
  setTimeout(fd, SO_SNDTIMEO, ms);
  send_ms = ms;
}

void Link::receiveTimeout(int ms) {
  receive_wait_ms = ms;
  if (nonblocking || receive_ms == ms) return;
  setTimeout(fd, SO_RCVTIMEO, ms);
  receive_ms = ms;
}

bool Link::await(net::fiber::Want want, int ms) {
  // A timeout of 0 waits without end, like SO_RCVTIMEO's 0.
  const auto deadline = ms > 0 ? net::fiber::Clock::now() + std::chrono::milliseconds(ms) : net::fiber::kNever;
  return net::fiber::waitFd(fd, registration, want, deadline) != net::fiber::Wait::Timeout;
}

size_t Link::read(char* out, size_t n, int& error) {
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

size_t Link::fill(int& error) {
  net::makeReadRoom(buffer, begin, end, kFirstBuffer / 4, kFirstBuffer);
  const size_t got = read(buffer.data() + end, buffer.size() - end, error);
  end += got;
  return got;
}

bool Link::write(std::string_view head, std::string_view body, int& error) {
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
        const int sent_now = SSL_write(ssl, rest.data(), static_cast<int>(std::min<size_t>(rest.size(), 1u << 30)));
        if (sent_now > 0) {
          rest.remove_prefix(static_cast<size_t>(sent_now));
          continue;
        }
        const int reason = SSL_get_error(ssl, sent_now);
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

}  // namespace sluice::upstream
