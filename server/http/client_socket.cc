#include "server/http/client_socket.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include <sys/socket.h>

#include "server/net/read_buffer.h"
#include "server/net/send_all.h"

namespace sluice::http {

namespace {

constexpr size_t kReadChunk = 4096;
constexpr size_t kKeepBuffer = 64u << 10;  // a larger read buffer is given back between requests
constexpr size_t kTlsJoinLimit = 16u << 10;  // pieces up to one TLS record are joined into one
constexpr size_t kReadTurn = 256u << 10;     // bytes one fiber reads before its worker's others get a turn

}  // namespace

ClientSocket::~ClientSocket() {
  // A TLS session ends with close_notify (best effort, never waiting), so the client reads the
  // close as the end of the session rather than a truncation.
  if (tls_ && !broken_) tls_->close();
}

std::expected<void, HandshakeFailure> ClientSocket::startTls(const ServerTls& server, bool require_certificate,
                                                             std::chrono::steady_clock::time_point deadline) {
  auto session = ClientTls::accept(server, fd_, registration_, require_certificate, deadline);
  if (!session) return std::unexpected(session.error());
  tls_ = std::move(*session);
  return {};
}

const std::optional<identity::CertificateNames>& ClientSocket::certificate() const {
  static const std::optional<identity::CertificateNames> kNone;
  return tls_ ? tls_->certificate() : kNone;
}

void ClientSocket::shutdownWrite() {
  if (tls_ && !broken_) tls_->close();
  ::shutdown(fd_, SHUT_WR);
}

void ClientSocket::startBody(BodyRate rate) {
  body_rate_ = rate.bytes_per_second;
  body_bytes_ = 0;
  body_start_ = std::chrono::steady_clock::now() + rate.grace;
}

void ClientSocket::clearOverdue() {
  overdue_ = Overdue::None;
  deadline_ = std::chrono::steady_clock::time_point::max();
  body_rate_ = 0;
}

size_t ClientSocket::receive(char* out, size_t n) {
  if (broken_ || eof_ || overdue_ != Overdue::None) return 0;
  const auto started = std::chrono::steady_clock::now();
  // The earliest of: the silence allowed, the head's deadline, the body's rate deadline.
  auto until = started + limits_.silence;
  Overdue reason = Overdue::None;
  if (deadline_ <= until) until = deadline_, reason = Overdue::Head;
  if (body_rate_ > 0) {
    const auto earned = std::chrono::milliseconds(body_bytes_ * 1000 / body_rate_);
    if (body_start_ + earned <= until) until = body_start_ + earned, reason = Overdue::Body;
  }
  const auto timedOut = [&]() -> size_t {
    if (reason != Overdue::None) overdue_ = reason;
    else broken_ = true;
    return 0;
  };
  // A deadline that has passed ends reading even while bytes keep coming: that is the point.
  if (reason != Overdue::None && until <= started) return timedOut();
  const auto got_bytes = [&](size_t got) {
    if (body_rate_ > 0) body_bytes_ += got;
    return got;
  };
  if (tls_) return got_bytes(receiveTls(out, n, until, reason));
  if (drained_ && net::fiber::active()) {
    // The socket was empty after the last read: wait for more before asking for it (on a fiber
    // the socket is edge-triggered, so the wait needs no system call of its own).
    drained_ = false;
    read_this_turn_ = 0;
    const auto waited =
        net::fiber::waitFd(fd_, registration_, net::fiber::Want::Read, until, limits_.interruptible);
    if (waited == net::fiber::Wait::Interrupted) return lastRead(out, n);
    if (waited == net::fiber::Wait::Timeout) return timedOut();
  }
  if (net::fiber::active()) {
    // A body arriving as fast as it is read would keep the worker on this connection for
    // megabytes: each turn reads at most kReadTurn, then the worker's other fibers and new
    // connections (/healthz among them) go first.
    if (read_this_turn_ >= kReadTurn) {
      read_this_turn_ = 0;
      net::fiber::yieldTurn();
    }
    n = std::min(n, kReadTurn - read_this_turn_);
  }
  for (;;) {
    const ssize_t got = ::recv(fd_, out, n, 0);
    if (got > 0) {
      drained_ = static_cast<size_t>(got) < n;
      read_this_turn_ += static_cast<size_t>(got);
      return got_bytes(static_cast<size_t>(got));
    }
    if (got == 0) {
      eof_ = true;
      return 0;
    }
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && net::fiber::active()) {
      // A non-blocking socket on a fiber: park until it is readable.
      const auto waited = net::fiber::waitFd(fd_, registration_, net::fiber::Want::Read, until, limits_.interruptible);
      if (waited == net::fiber::Wait::Ready) continue;
      if (waited == net::fiber::Wait::Interrupted) return lastRead(out, n);
      if (waited == net::fiber::Wait::Timeout) return timedOut();
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      // A tick of the socket's receive timeout.
      if (limits_.interruptible && limits_.stop != nullptr && limits_.stop->load()) return 0;
      if (std::chrono::steady_clock::now() < until) continue;
      return timedOut();
    }
    broken_ = true;  // reset
    return 0;
  }
}

size_t ClientSocket::receiveTls(char* out, size_t n, std::chrono::steady_clock::time_point until, Overdue reason) {
  // No drained_ shortcut: the session may hold decrypted bytes the socket no longer shows, and
  // it says WantRead only once the socket itself had nothing (so an edge wait is then safe).
  for (;;) {
    size_t got = 0;
    const ClientTls::Io io = tls_->read(out, n, got);
    if (io == ClientTls::Io::Done) return got;
    if (io == ClientTls::Io::Closed) {
      eof_ = true;
      return 0;
    }
    if (io == ClientTls::Io::Failed) {
      broken_ = true;
      return 0;
    }
    const auto want = io == ClientTls::Io::WantWrite ? net::fiber::Want::Write : net::fiber::Want::Read;
    if (net::fiber::active()) {
      const auto waited = net::fiber::waitFd(fd_, registration_, want, until, limits_.interruptible);
      if (waited == net::fiber::Wait::Ready) continue;
      if (waited == net::fiber::Wait::Interrupted) return lastRead(out, n);
    } else {
      // A blocking socket: a tick of its receive timeout passed.
      if (limits_.interruptible && limits_.stop != nullptr && limits_.stop->load()) return 0;
      if (std::chrono::steady_clock::now() < until) continue;
    }
    if (reason != Overdue::None) overdue_ = reason;
    else broken_ = true;
    return 0;
  }
}

size_t ClientSocket::lastRead(char* out, size_t n) {
  // Interrupted (the gateway stops): what already arrived is still read, so a request the client
  // sent before the stop is served rather than reset by closing over unread bytes.
  if (tls_) {
    size_t got = 0;
    return tls_->read(out, n, got) == ClientTls::Io::Done ? got : 0;
  }
  const ssize_t got = ::recv(fd_, out, n, MSG_DONTWAIT);
  if (got > 0) return static_cast<size_t>(got);
  return 0;
}

size_t ClientSocket::fill() {
  if (broken_ || eof_) return 0;
  net::makeReadRoom(buffer_, begin_, end_, kReadChunk / 2, kReadChunk);
  const size_t got = receive(buffer_.data() + end_, buffer_.size() - end_);
  end_ += got;
  return got;
}

size_t ClientSocket::readInto(char* out, size_t n) { return receive(out, n); }

namespace {

// An address of the socket (getpeername or getsockname); the empty address when it has none.
Poco::Net::SocketAddress socketAddress(int fd, int (*ask)(int, sockaddr*, socklen_t*)) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (ask(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  return Poco::Net::SocketAddress(reinterpret_cast<const sockaddr*>(&address), length);
}

}  // namespace

const Poco::Net::SocketAddress& ClientSocket::peerAddress() const {
  if (!peer_address_) peer_address_.emplace(socketAddress(fd_, ::getpeername));
  return *peer_address_;
}

const Poco::Net::SocketAddress& ClientSocket::localAddress() const {
  if (!local_address_) local_address_.emplace(socketAddress(fd_, ::getsockname));
  return *local_address_;
}

bool ClientSocket::writeTls(std::initializer_list<std::string_view> pieces) {
  // Small pieces go out as one TLS record (a head and its body, a chunk and its framing).
  size_t total = 0;
  for (const std::string_view piece : pieces) total += piece.size();
  std::string joined;
  std::string_view parts[8];
  size_t count = 0;
  if (total <= kTlsJoinLimit) {
    joined.reserve(total);
    for (const std::string_view piece : pieces) joined.append(piece);
    parts[count++] = joined;
  } else {
    for (const std::string_view piece : pieces) {
      if (!piece.empty() && count < std::size(parts)) parts[count++] = piece;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    std::string_view rest = parts[i];
    while (!rest.empty()) {
      size_t put = 0;
      const ClientTls::Io io = tls_->write(rest.data(), rest.size(), put);
      if (io == ClientTls::Io::Done) {
        rest.remove_prefix(put);
        continue;
      }
      if (io == ClientTls::Io::WantRead || io == ClientTls::Io::WantWrite) {
        // The same bytes again once there is room, as OpenSSL requires.
        const auto want = io == ClientTls::Io::WantRead ? net::fiber::Want::Read : net::fiber::Want::Write;
        const auto deadline = std::chrono::steady_clock::now() + send_patience_;
        if (net::fiber::waitFd(fd_, registration_, want, deadline) != net::fiber::Wait::Timeout) continue;
      }
      broken_ = true;
      return false;
    }
  }
  return true;
}

bool ClientSocket::write(std::initializer_list<std::string_view> pieces) {
  if (broken_ || overdue_ != Overdue::None) return false;
  if (tls_) return writeTls(pieces);
  const net::SendWait wait{registration_, send_patience_};
  if (net::sendAll(fd_, pieces, &wait) != 0) broken_ = true;
  return !broken_;
}

void ClientSocket::trim() {
  if (begin_ == end_) {
    begin_ = end_ = 0;
    if (buffer_.capacity() > kKeepBuffer) std::string().swap(buffer_);
  }
}

}  // namespace sluice::http
