#pragma once
// Protocol Buffers' wire format, the part OTLP needs, appended to one buffer: varints, fixed
// numbers, strings and bytes, hex ids as their bytes, and nested messages opened with a one-byte
// length that close() fills in, widening it (one move of what follows) only for a message of 128
// bytes or more, so no message is built apart and copied in. Pure.

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

  explicit ProtobufWriter(std::string& out) : out_(out) {}

  void varint(uint64_t value) {
    char raw[10];
    out_.append(raw, put(raw, value));
  }
  void tag(int field, WireType type) { varint(key(field, type)); }
  void bytes(int field, std::string_view value) {
    char raw[20];
    size_t used = put(raw, key(field, kLength));
    used += put(raw + used, value.size());
    out_.append(raw, used).append(value);
  }
  // A string field whose text comes in two pieces ("sluice." and a column name).
  void bytes(int field, std::string_view first, std::string_view second) {
    char raw[20];
    size_t used = put(raw, key(field, kLength));
    used += put(raw + used, first.size() + second.size());
    out_.append(raw, used).append(first).append(second);
  }
  // A string field, left out when empty (proto3 default).
  void text(int field, std::string_view value) {
    if (!value.empty()) bytes(field, value);
  }
  // A trace or span id given in hex, as its bytes; left out when it is not hex.
  void id(int field, std::string_view hex) {
    if (hex.empty() || hex.size() % 2 != 0 || hex.size() > 64) return;
    char raw[32];
    for (size_t i = 0; i < hex.size(); i += 2) {
      const int high = kHex[static_cast<unsigned char>(hex[i])];
      const int low = kHex[static_cast<unsigned char>(hex[i + 1])];
      if ((high | low) < 0) return;
      raw[i / 2] = static_cast<char>(high * 16 + low);
    }
    bytes(field, std::string_view(raw, hex.size() / 2));
  }
  void fixed64(int field, uint64_t value) {
    char raw[18];
    size_t used = put(raw, key(field, kFixed64));
    for (int i = 0; i < 8; ++i) raw[used++] = static_cast<char>((value >> (8 * i)) & 0xff);
    out_.append(raw, used);
  }
  void fixed32(int field, uint32_t value) {
    char raw[14];
    size_t used = put(raw, key(field, kFixed32));
    for (int i = 0; i < 4; ++i) raw[used++] = static_cast<char>((value >> (8 * i)) & 0xff);
    out_.append(raw, used);
  }
  void number(int field, uint64_t value) {
    char raw[20];
    size_t used = put(raw, key(field, kVarint));
    used += put(raw + used, value);
    out_.append(raw, used);
  }
  // Where an open message's contents begin and how many bytes its length was given.
  struct Mark {
    size_t start = 0;
    size_t room = 1;
  };
  // Opens message field `field` with `room` bytes for its length: 1 for a small message, 2 for
  // one usually of 128 bytes to 16 KiB (a span, a log record), so that close() writes the length
  // in place; a length that needs more or fewer bytes moves the contents once.
  Mark open(int field, size_t room = 1) {
    char raw[12] = {};
    const size_t used = put(raw, key(field, kLength));
    out_.append(raw, used + room);
    return {out_.size(), room};
  }
  void close(Mark mark) {
    char raw[10];
    const size_t used = put(raw, out_.size() - mark.start);
    if (used == mark.room) {
      std::memcpy(out_.data() + mark.start - mark.room, raw, used);
    } else {
      out_.replace(mark.start - mark.room, mark.room, raw, used);
    }
  }

  // `size` more bytes at the end, to be written through the pointer returned (valid until the
  // next call): one call for a small message whose length is known beforehand.
  char* extend(size_t size) {
    const size_t at = out_.size();
    if (out_.capacity() - at < size) out_.reserve(std::max(2 * out_.capacity(), at + size));
    out_.resize_and_overwrite(at + size, [](char*, size_t n) { return n; });  // no fill: the caller writes it
    return out_.data() + at;
  }

  static uint64_t key(int field, WireType type) { return (static_cast<uint64_t>(field) << 3) | type; }
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

 private:
  static constexpr auto kHex = [] {
    std::array<int8_t, 256> table{};
    for (int c = 0; c < 256; ++c) table[static_cast<size_t>(c)] = static_cast<int8_t>(text::hexValue(static_cast<char>(c)));
    return table;
  }();
  std::string& out_;
};

}  // namespace sluice::telemetry
