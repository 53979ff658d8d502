#include "server/http/server_session.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include <sys/socket.h>

#include <Poco/Exception.h>
#include <Poco/String.h>

#include "server/net/send_all.h"

namespace sluice::http {

namespace {

constexpr size_t kReadChunk = 4096;
constexpr size_t kKeepBuffer = 64u << 10;  // a larger read buffer is given back between requests
constexpr size_t kWriteBuffer = 16384;

// Content-Length: digits only, one value (repeated identical values are allowed, RFC 9110 §8.6).
bool parseLength(const std::string& text, uint64_t& out) {
  std::string_view rest = text;
  std::optional<uint64_t> seen;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.empty() || item.size() > 18) return false;
    uint64_t value = 0;
    for (const char c : item) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    if (seen && *seen != value) return false;
    seen = value;
  }
  if (!seen) return false;
  out = *seen;
  return true;
}

}  // namespace

// ---- ClientSocket -------------------------------------------------------------------------------

size_t ClientSocket::receive(char* out, size_t n) {
  if (broken_ || eof_) return 0;
  const auto started = std::chrono::steady_clock::now();
  if (drained_ && net::fiber::active()) {
    // The socket was empty after the last read: wait for more before asking for it (on a fiber
    // the socket is edge-triggered, so the wait needs no system call of its own).
    drained_ = false;
    const auto waited = net::fiber::waitFd(fd_, registration_, net::fiber::Want::Read, started + limits_.silence,
                                           limits_.interruptible);
    if (waited == net::fiber::Wait::Interrupted) return 0;
    if (waited == net::fiber::Wait::Timeout) {
      broken_ = true;
      return 0;
    }
  }
  for (;;) {
    const ssize_t got = ::recv(fd_, out, n, 0);
    if (got > 0) {
      drained_ = static_cast<size_t>(got) < n;
      return static_cast<size_t>(got);
    }
    if (got == 0) {
      eof_ = true;
      return 0;
    }
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && net::fiber::active()) {
      // A non-blocking socket on a fiber: park until it is readable.
      const auto waited = net::fiber::waitFd(fd_, registration_, net::fiber::Want::Read, started + limits_.silence,
                                             limits_.interruptible);
      if (waited == net::fiber::Wait::Ready) continue;
      if (waited == net::fiber::Wait::Interrupted) return 0;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      // A tick of the socket's receive timeout.
      if (limits_.interruptible && limits_.stop != nullptr && limits_.stop->load()) return 0;
      if (std::chrono::steady_clock::now() - started < limits_.silence) continue;
    }
    broken_ = true;  // reset, or silent for too long
    return 0;
  }
}

size_t ClientSocket::fill() {
  if (broken_ || eof_) return 0;
  if (begin_ == end_) begin_ = end_ = 0;
  if (buffer_.size() - end_ < kReadChunk / 2) {
    if (begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (buffer_.size() - end_ < kReadChunk / 2) buffer_.resize(std::max(kReadChunk, buffer_.size() * 2));
  }
  const size_t got = receive(buffer_.data() + end_, buffer_.size() - end_);
  end_ += got;
  return got;
}

size_t ClientSocket::readInto(char* out, size_t n) { return receive(out, n); }

bool ClientSocket::write(std::initializer_list<std::string_view> pieces) {
  if (broken_) return false;
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

// ---- BodyReader ---------------------------------------------------------------------------------

BodyReader::BodyReader(ClientSocket& socket, Framing framing, uint64_t length)
    : socket_(socket), framing_(framing), remaining_(framing == Framing::Length ? length : 0) {}

bool BodyReader::complete() const {
  if (failed_) return false;
  switch (framing_) {
    case Framing::None: return true;
    case Framing::Length: return remaining_ == 0;
    case Framing::Chunked: return chunked_.done();
  }
  return false;
}

bool BodyReader::next() {
  if (failed_) return false;
  if (framing_ == Framing::None) return false;
  if (framing_ == Framing::Length) {
    if (remaining_ == 0) return false;
    if (socket_.buffered().empty() && socket_.fill() == 0) {
      failed_ = true;
      return false;
    }
    const std::string_view in = socket_.buffered();
    const size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size()));
    char* start = const_cast<char*>(in.data());
    setg(start, start, start + take);
    socket_.consume(take);
    remaining_ -= take;
    return true;
  }
  for (;;) {
    if (chunked_.done()) return false;
    const std::string_view in = socket_.buffered();
    if (in.empty()) {
      if (socket_.fill() == 0) {
        failed_ = true;
        return false;
      }
      continue;
    }
    std::string_view data;
    const size_t used = chunked_.feed(in, data);
    socket_.consume(used);
    if (chunked_.failed()) {
      failed_ = true;
      return false;
    }
    if (!data.empty()) {
      char* start = const_cast<char*>(data.data());
      setg(start, start, start + data.size());
      return true;
    }
  }
}

BodyReader::int_type BodyReader::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (!next()) return traits_type::eof();
  return traits_type::to_int_type(*gptr());
}

std::streamsize BodyReader::xsgetn(char* out, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    if (gptr() == egptr()) {
      // A large body read with nothing buffered: straight from the socket into the caller's memory.
      const auto want = static_cast<uint64_t>(n - done);
      if (framing_ == Framing::Length && remaining_ > 0 && want >= kReadChunk && socket_.buffered().empty()) {
        const size_t got = socket_.readInto(out + done, static_cast<size_t>(std::min(want, remaining_)));
        if (got == 0) {
          failed_ = true;
          break;
        }
        remaining_ -= got;
        done += static_cast<std::streamsize>(got);
        continue;
      }
      if (!next()) break;
    }
    const auto take = std::min<std::streamsize>(egptr() - gptr(), n - done);
    std::memcpy(out + done, gptr(), static_cast<size_t>(take));
    gbump(static_cast<int>(take));
    done += take;
  }
  return done;
}

std::streamsize BodyReader::showmanyc() {
  if (gptr() < egptr()) return egptr() - gptr();
  return complete() ? -1 : 0;
}

bool BodyReader::skipRest(size_t limit) {
  size_t skipped = static_cast<size_t>(egptr() - gptr());
  setg(eback(), egptr(), egptr());
  while (skipped <= limit && next()) {
    skipped += static_cast<size_t>(egptr() - gptr());
    setg(eback(), egptr(), egptr());
  }
  return skipped <= limit && complete();
}

// ---- BodyWriter ---------------------------------------------------------------------------------

BodyWriter::BodyWriter(ClientSocket& socket, std::string head, Framing framing, uint64_t length, bool head_only)
    : socket_(socket), head_(std::move(head)), framing_(framing), length_(length), head_only_(head_only),
      buffer_(new char[kWriteBuffer]) {
  setp(buffer_.get(), buffer_.get() + kWriteBuffer);
}

BodyWriter::~BodyWriter() {
  // NOTE: a response the handler left unfinished still ends its body when the connection is kept.
  if (!finished_) finish();
}

bool BodyWriter::emit(std::string_view first, std::string_view second, bool last) {
  if (!ok_) return false;
  if (framing_ == Framing::Length && written_ + first.size() + second.size() > length_) {
    // More than the Content-Length announced: what fits goes out, the rest is dropped.
    const auto room = static_cast<size_t>(length_ - written_);
    first = first.substr(0, std::min(room, first.size()));
    second = second.substr(0, room - first.size());
    ok_ = false;
  }
  written_ += first.size() + second.size();
  if (head_only_) first = second = {};
  const size_t size = first.size() + second.size();
  char size_line[24];
  std::string_view chunk_head;
  std::string_view chunk_tail;
  if (framing_ == Framing::Chunked && !head_only_) {
    if (size > 0) {
      const int n = std::snprintf(size_line, sizeof size_line, "%zx\r\n", size);
      chunk_head = std::string_view(size_line, static_cast<size_t>(n));
      chunk_tail = last ? std::string_view("\r\n0\r\n\r\n") : std::string_view("\r\n");
    } else if (last) {
      chunk_tail = "0\r\n\r\n";
    }
  }
  if (head_.empty() && size == 0 && chunk_tail.empty()) return ok_;
  const bool sent = socket_.write({head_, chunk_head, first, second, chunk_tail});
  head_.clear();
  if (!sent) ok_ = false;
  return sent;
}

int BodyWriter::sync() {
  const auto pending = static_cast<size_t>(pptr() - pbase());
  const bool sent = emit(std::string_view(pbase(), pending), {}, false);
  setp(buffer_.get(), buffer_.get() + kWriteBuffer);
  return sent ? 0 : -1;
}

BodyWriter::int_type BodyWriter::overflow(int_type c) {
  if (sync() != 0) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize BodyWriter::xsputn(const char* data, std::streamsize n) {
  const auto room = static_cast<std::streamsize>(epptr() - pptr());
  if (n <= room) {
    std::memcpy(pptr(), data, static_cast<size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }
  // Larger than the room left: what is pending and these bytes go out together, in one chunk.
  const auto pending = static_cast<size_t>(pptr() - pbase());
  const bool sent = emit(std::string_view(pbase(), pending), std::string_view(data, static_cast<size_t>(n)), false);
  setp(buffer_.get(), buffer_.get() + kWriteBuffer);
  return sent ? n : 0;
}

bool BodyWriter::finish() {
  if (finished_) return ok_;
  finished_ = true;
  const auto pending = static_cast<size_t>(pptr() - pbase());
  emit(std::string_view(pbase(), pending), {}, true);
  setp(buffer_.get(), buffer_.get() + kWriteBuffer);
  if (framing_ == Framing::Length && written_ != length_) ok_ = false;  // the body fell short
  if (framing_ == Framing::Close) return false;
  return ok_;
}

// ---- ServerRequest ------------------------------------------------------------------------------

ServerRequest::ServerRequest(ClientSocket& socket, ServerResponse& response, const Poco::Net::HTTPServerParams& params,
                             const h1::RequestHead& head)
    : socket_(socket), response_(response), params_(params) {
  setMethod(std::string(head.method));
  setURI(std::string(head.target));
  setVersion(std::string(head.version));
  for (const auto& [name, value] : head.fields) add(std::string(name), std::string(value));

  BodyReader::Framing framing = BodyReader::Framing::None;
  uint64_t length = 0;
  const bool has_length = has(CONTENT_LENGTH);
  if (has(TRANSFER_ENCODING)) {
    // Only "chunked" alone is accepted: any other coding, or chunked beside a Content-Length, is
    // what request smuggling is made of.
    if (Poco::icompare(Poco::trim(get(TRANSFER_ENCODING)), "chunked") != 0) {
      framing_error_ = "unsupported Transfer-Encoding: " + get(TRANSFER_ENCODING);
    } else if (has_length) {
      framing_error_ = "both Content-Length and Transfer-Encoding given";
    } else {
      framing = BodyReader::Framing::Chunked;
    }
  } else if (has_length) {
    std::string all;
    for (const auto& [name, value] : *this) {
      if (Poco::icompare(name, CONTENT_LENGTH) != 0) continue;
      if (!all.empty()) all += ',';
      all += value;
    }
    if (!parseLength(all, length)) {
      framing_error_ = "malformed Content-Length";
    } else if (length > 0) {
      framing = BodyReader::Framing::Length;
    }
  }
  if (!framing_error_.empty()) framing = BodyReader::Framing::None;
  reader_ = std::make_unique<BodyReader>(socket_, framing, length);
  stream_ = std::make_unique<std::istream>(reader_.get());
}

ServerRequest::~ServerRequest() = default;

std::istream& ServerRequest::stream() { return *stream_; }

Poco::Net::HTTPServerResponse& ServerRequest::response() const { return response_; }

const Poco::Net::SocketAddress& ServerRequest::clientAddress() const {
  if (!client_address_) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (::getpeername(socket_.fd(), reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      client_address_.emplace(reinterpret_cast<const sockaddr*>(&address), length);
    } else {
      client_address_.emplace();
    }
  }
  return *client_address_;
}

const Poco::Net::SocketAddress& ServerRequest::serverAddress() const {
  if (!server_address_) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (::getsockname(socket_.fd(), reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      server_address_.emplace(reinterpret_cast<const sockaddr*>(&address), length);
    } else {
      server_address_.emplace();
    }
  }
  return *server_address_;
}

// ---- ServerResponse -----------------------------------------------------------------------------

ServerResponse::~ServerResponse() = default;

std::string ServerResponse::renderHead() const {
  std::string head;
  head.reserve(256);
  head += getVersion();
  head += ' ';
  head += std::to_string(static_cast<int>(getStatus()));
  head += ' ';
  head += getReason().empty() ? getReasonForStatus(getStatus()) : getReason();
  head += "\r\n";
  for (const auto& [name, value] : *this) {
    head += name;
    head += ": ";
    head += value;
    head += "\r\n";
  }
  head += "\r\n";
  return head;
}

void ServerResponse::sendContinue() {
  static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  socket_.write(kContinue);
}

std::ostream& ServerResponse::send() {
  if (sent_) throw Poco::IllegalStateException("response already sent");
  sent_ = true;
  BodyWriter::Framing framing = BodyWriter::Framing::Length;
  uint64_t length = 0;
  const int status = static_cast<int>(getStatus());
  if (status < 200 || status == HTTP_NO_CONTENT || status == HTTP_NOT_MODIFIED) {
    framing = BodyWriter::Framing::Length;
  } else if (getChunkedTransferEncoding()) {
    framing = BodyWriter::Framing::Chunked;
  } else if (hasContentLength()) {
    length = static_cast<uint64_t>(getContentLength64());
  } else {
    framing = BodyWriter::Framing::Close;
    setKeepAlive(false);
  }
  writer_ = std::make_unique<BodyWriter>(socket_, renderHead(), framing, length, head_only_);
  stream_ = std::make_unique<std::ostream>(writer_.get());
  return *stream_;
}

void ServerResponse::sendBuffer(const void* buffer, std::size_t length) {
  if (sent_) throw Poco::IllegalStateException("response already sent");
  sent_ = true;
  setChunkedTransferEncoding(false);
  setContentLength64(static_cast<Poco::Int64>(length));
  const std::string head = renderHead();
  const std::string_view body = head_only_ || length == 0 ? std::string_view{}
                                                          : std::string_view(static_cast<const char*>(buffer), length);
  ok_ = socket_.write({head, body});
}

void ServerResponse::sendFile(const std::string& path, const std::string& media_type) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Poco::OpenFileException(path);
  const std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  setContentType(media_type);
  sendBuffer(content.data(), content.size());
}

void ServerResponse::redirect(const std::string& uri, HTTPStatus status) {
  setStatusAndReason(status);
  set("Location", uri);
  sendBuffer(nullptr, 0);
}

void ServerResponse::requireAuthentication(const std::string& realm) {
  setStatusAndReason(HTTP_UNAUTHORIZED);
  set("WWW-Authenticate", "Basic realm=\"" + realm + "\"");
  sendBuffer(nullptr, 0);
}

bool ServerResponse::finish() {
  if (!sent_) return false;
  if (writer_) {
    stream_->flush();
    return writer_->finish();
  }
  return ok_;
}

}  // namespace sluice::http
