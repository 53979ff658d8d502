#pragma once
// Protocol Buffers' wire format, the part OTLP needs, written into one buffer through a cursor:
// varints, fixed numbers, strings and bytes, hex ids as their bytes, and nested messages opened
// with room for their length that close() fills in (moving the contents once only when the length
// needs more or fewer bytes than the room left). The buffer grows by doubling and is trimmed to
// what was written when the writer ends (finish() or its destructor): until then the string may
// be longer than its contents, so nothing else may touch it. Pure.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "server/text/hex.h"

namespace sluice::telemetry {

class ProtobufWriter {
 public:
  enum WireType { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

  // Appends to `out` after what it holds.
  explicit ProtobufWriter(std::string& out) : out_(out), size_(out.size()) {}
  ~ProtobufWriter() { finish(); }
  ProtobufWriter(const ProtobufWriter&) = delete;
  ProtobufWriter& operator=(const ProtobufWriter&) = delete;

  // Trims the string to what was written; writing may go on after it.
  void finish() { out_.resize(size_); }
  size_t size() const { return size_; }
  // Drops what was written after `size` (a record that turned out not to be one).
  void truncate(size_t size) { size_ = std::min(size, size_); }

  void bytes(int field, std::string_view value) {
    char* at = reserve(20 + value.size());
    at += put(at, key(field, kLength));
    at += put(at, value.size());
    commit(copy(at, value));
  }
  // A string field whose text comes in two pieces ("sluice." and a column name).
  void bytes(int field, std::string_view first, std::string_view second) {
    char* at = reserve(20 + first.size() + second.size());
    at += put(at, key(field, kLength));
    at += put(at, first.size() + second.size());
    commit(copy(copy(at, first), second));
  }
  // Bytes already encoded (messages written elsewhere).
  void raw(std::string_view encoded) { commit(copy(reserve(encoded.size()), encoded)); }
  // A string field, left out when empty (proto3 default).
  void text(int field, std::string_view value) {
    if (!value.empty()) bytes(field, value);
  }
  // A trace or span id given in hex, as its bytes; left out when it is not hex.
  void id(int field, std::string_view hex) {
    if (hex.empty() || hex.size() % 2 != 0 || hex.size() > 64) return;
    char bytes_of[32];
    for (size_t i = 0; i < hex.size(); i += 2) {
      const int high = kHex[static_cast<unsigned char>(hex[i])];
      const int low = kHex[static_cast<unsigned char>(hex[i + 1])];
      if ((high | low) < 0) return;
      bytes_of[i / 2] = static_cast<char>(high * 16 + low);
    }
    bytes(field, std::string_view(bytes_of, hex.size() / 2));
  }
  void fixed64(int field, uint64_t value) {
    char* at = reserve(18);
    at += put(at, key(field, kFixed64));
    for (int i = 0; i < 8; ++i) *at++ = static_cast<char>((value >> (8 * i)) & 0xff);
    commit(at);
  }
  void fixed32(int field, uint32_t value) {
    char* at = reserve(14);
    at += put(at, key(field, kFixed32));
    for (int i = 0; i < 4; ++i) *at++ = static_cast<char>((value >> (8 * i)) & 0xff);
    commit(at);
  }
  void number(int field, uint64_t value) {
    char* at = reserve(20);
    at += put(at, key(field, kVarint));
    commit(at + put(at, value));
  }

  // Where an open message's contents begin and how many bytes its length was given.
  struct Mark {
    size_t start = 0;
    size_t room = 1;
  };
  // Opens message field `field` with `room` bytes for its length: 1 for a small message, 2 for
  // one usually of 128 bytes to 16 KiB (a span, a log record), so that close() writes the length
  // in place.
  Mark open(int field, size_t room = 1) {
    char* at = reserve(10 + room);
    at += put(at, key(field, kLength));
    std::memset(at, 0, room);
    commit(at + room);
    return {size_, room};
  }
  void close(Mark mark) {
    char length[10];
    const size_t used = put(length, size_ - mark.start);
    if (used != mark.room) {
      reserve(used);  // may move the buffer: positions, not pointers, from here
      char* data = out_.data();
      std::memmove(data + mark.start - mark.room + used, data + mark.start, size_ - mark.start);
      size_ = size_ + used - mark.room;
    }
    std::memcpy(out_.data() + mark.start - mark.room, length, used);
  }

  // Room for `most` bytes at the cursor, to be written through the pointer returned and then
  // committed (valid until the next call).
  [[gnu::always_inline]] char* reserve(size_t most) {
    if (out_.size() - size_ < most) grow(most);
    return out_.data() + size_;
  }
  // Moves the cursor to `end`, a pointer into what reserve() returned.
  [[gnu::always_inline]] void commit(const char* end) { size_ = static_cast<size_t>(end - out_.data()); }

  static constexpr uint64_t key(int field, WireType type) { return (static_cast<uint64_t>(field) << 3) | type; }
  // How many bytes `value` takes as a varint.
  static size_t varintSize(uint64_t value) {
    size_t size = 1;
    while (value >= 0x80) {
      value >>= 7;
      ++size;
    }
    return size;
  }
  // Writes `value` as a varint at `at` (room for 10 bytes); returns how many bytes it took.
  static size_t put(char* at, uint64_t value) {
    size_t used = 0;
    while (value >= 0x80) {
      at[used++] = static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    at[used++] = static_cast<char>(value);
    return used;
  }
  static char* copy(char* at, std::string_view text) {
    if (!text.empty()) std::memcpy(at, text.data(), text.size());
    return at + text.size();
  }

 private:
  // Lengthens the buffer without filling it: what is beyond size_ is written before it is read.
  void grow(size_t most) {
    const size_t length = std::max({out_.capacity(), 2 * out_.size(), size_ + most + 256});
    out_.resize_and_overwrite(length, [](char*, size_t n) { return n; });
  }
  static constexpr auto kHex = [] {
    std::array<int8_t, 256> table{};
    for (int c = 0; c < 256; ++c) table[static_cast<size_t>(c)] = static_cast<int8_t>(text::hexValue(static_cast<char>(c)));
    return table;
  }();
  std::string& out_;
  size_t size_;  // what was written; out_ may be longer until finish()
};

}  // namespace sluice::telemetry
