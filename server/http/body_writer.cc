#include "server/http/body_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace sluice::http {

namespace {

constexpr size_t kWriteBuffer = 16384;

}  // namespace

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
  if (tap_ != nullptr) {
    tap_->bytes(first);
    tap_->bytes(second);
  }
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

}  // namespace sluice::http
