#include "server/http/body_reader.h"

#include <algorithm>
#include <cstring>

namespace sluice::http {

namespace {

constexpr size_t kDirectRead = 4096;  // a read at least this large with nothing buffered bypasses the buffer

}  // namespace

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
      if (framing_ == Framing::Length && remaining_ > 0 && want >= kDirectRead && socket_.buffered().empty()) {
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

}  // namespace sluice::http
