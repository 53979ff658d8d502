#include "server/wire/bedrock/event_stream.h"

#include <zlib.h>

#include <stdexcept>

namespace sluice::wire::bedrock {
namespace {

uint32_t readU32(std::string_view bytes, size_t at) {
  return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
         (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
}

uint64_t readBigEndian(std::string_view bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value = (value << 8) | uint8_t(bytes[at + i]);
  return value;
}

void writeBigEndian(std::string& out, uint64_t value, size_t width) {
  for (size_t i = width; i-- > 0;) out.push_back(char((value >> (8 * i)) & 0xff));
}

// The fixed width of a numeric value type; 0 for the bools, nullopt for the length-prefixed ones.
std::optional<size_t> fixedWidth(HeaderType type) {
  switch (type) {
    case HeaderType::BoolTrue:
    case HeaderType::BoolFalse: return 0;
    case HeaderType::Byte: return 1;
    case HeaderType::Short: return 2;
    case HeaderType::Int: return 4;
    case HeaderType::Long:
    case HeaderType::Timestamp: return 8;
    case HeaderType::Uuid: return 16;
    case HeaderType::Bytes:
    case HeaderType::String: return std::nullopt;
  }
  return std::nullopt;
}

int64_t signExtend(uint64_t value, size_t width) {
  if (width == 0 || width >= 8) return int64_t(value);
  const uint64_t sign = uint64_t(1) << (8 * width - 1);
  return int64_t((value ^ sign) - sign);
}

bool decodeHeaders(std::string_view block, std::vector<EventHeader>& out, std::string& error) {
  size_t at = 0;
  while (at < block.size()) {
    const size_t name_length = uint8_t(block[at++]);
    if (name_length == 0 || at + name_length + 1 > block.size()) {
      error = "event-stream header name is empty or runs past the header block";
      return false;
    }
    EventHeader header;
    header.name.assign(block.substr(at, name_length));
    at += name_length;
    const uint8_t type = uint8_t(block[at++]);
    if (type > uint8_t(HeaderType::Uuid)) {
      error = "event-stream header has an unknown value type";
      return false;
    }
    header.type = HeaderType(type);
    if (auto width = fixedWidth(header.type)) {
      if (at + *width > block.size()) {
        error = "event-stream header value runs past the header block";
        return false;
      }
      if (header.type == HeaderType::Uuid) {
        header.bytes.assign(block.substr(at, 16));
      } else if (*width == 0) {
        header.number = header.type == HeaderType::BoolTrue ? 1 : 0;
      } else {
        header.number = signExtend(readBigEndian(block, at, *width), *width);
      }
      at += *width;
    } else {
      if (at + 2 > block.size()) {
        error = "event-stream header value runs past the header block";
        return false;
      }
      const size_t length = size_t(readBigEndian(block, at, 2));
      at += 2;
      if (at + length > block.size()) {
        error = "event-stream header value runs past the header block";
        return false;
      }
      header.bytes.assign(block.substr(at, length));
      at += length;
    }
    out.push_back(std::move(header));
  }
  return true;
}

// Checks the prelude of a frame whose first 12 bytes are present; returns its total length.
std::optional<size_t> checkPrelude(std::string_view bytes, size_t max_bytes, std::string& error) {
  const uint32_t total = readU32(bytes, 0);
  const uint32_t headers = readU32(bytes, 4);
  if (crc32(bytes.substr(0, 8)) != readU32(bytes, 8)) {
    error = "event-stream prelude CRC does not match";
    return std::nullopt;
  }
  if (total < kEventOverheadBytes || total > max_bytes) {
    error = "event-stream message length " + std::to_string(total) + " is outside 16.." +
            std::to_string(max_bytes);
    return std::nullopt;
  }
  if (headers > total - kEventOverheadBytes || headers > kMaxEventHeaderBytes) {
    error = "event-stream headers length does not fit the message";
    return std::nullopt;
  }
  return total;
}

}  // namespace

uint32_t crc32(std::string_view bytes, uint32_t seed) {
  uLong crc = seed;
  while (!bytes.empty()) {
    const size_t piece = std::min<size_t>(bytes.size(), 1u << 30);
    crc = ::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), uInt(piece));
    bytes.remove_prefix(piece);
  }
  return uint32_t(crc);
}

std::optional<std::string_view> EventMessage::text(std::string_view name) const {
  for (const auto& header : headers) {
    if (header.name == name && header.type == HeaderType::String) return header.bytes;
  }
  return std::nullopt;
}

std::optional<EventMessage> decodeEventMessage(std::string_view frame, std::string& error,
                                               size_t max_bytes) {
  if (frame.size() < kEventPreludeBytes) {
    error = "event-stream frame is shorter than its prelude";
    return std::nullopt;
  }
  auto total = checkPrelude(frame, max_bytes, error);
  if (!total) return std::nullopt;
  if (frame.size() != *total) {
    error = "event-stream frame is " + std::to_string(frame.size()) + " bytes, its prelude says " +
            std::to_string(*total);
    return std::nullopt;
  }
  if (crc32(frame.substr(0, *total - 4)) != readU32(frame, *total - 4)) {
    error = "event-stream message CRC does not match";
    return std::nullopt;
  }
  const size_t headers_length = readU32(frame, 4);
  EventMessage message;
  if (!decodeHeaders(frame.substr(kEventPreludeBytes, headers_length), message.headers, error)) {
    return std::nullopt;
  }
  const size_t payload_at = kEventPreludeBytes + headers_length;
  message.payload.assign(frame.substr(payload_at, *total - 4 - payload_at));
  return message;
}

std::string encodeEventMessage(const EventMessage& message) {
  std::string headers;
  for (const auto& header : message.headers) {
    if (header.name.empty() || header.name.size() > 255) {
      throw std::length_error("event-stream header name must be 1..255 bytes");
    }
    headers.push_back(char(header.name.size()));
    headers += header.name;
    headers.push_back(char(header.type));
    if (auto width = fixedWidth(header.type)) {
      if (header.type == HeaderType::Uuid) {
        if (header.bytes.size() != 16) throw std::length_error("event-stream uuid must be 16 bytes");
        headers += header.bytes;
      } else {
        writeBigEndian(headers, uint64_t(header.number), *width);
      }
    } else {
      if (header.bytes.size() > 0x7fff) throw std::length_error("event-stream header value too long");
      writeBigEndian(headers, header.bytes.size(), 2);
      headers += header.bytes;
    }
  }
  if (headers.size() > kMaxEventHeaderBytes) throw std::length_error("event-stream headers too long");
  const size_t total = kEventOverheadBytes + headers.size() + message.payload.size();
  if (total > kMaxEventMessageBytes) throw std::length_error("event-stream message too long");
  std::string out;
  out.reserve(total);
  writeBigEndian(out, total, 4);
  writeBigEndian(out, headers.size(), 4);
  writeBigEndian(out, crc32(out), 4);
  out += headers;
  out += message.payload;
  writeBigEndian(out, crc32(out), 4);
  return out;
}

EventStreamDecoder::EventStreamDecoder(size_t max_message_bytes)
    : max_message_bytes_(std::min(max_message_bytes, kMaxEventMessageBytes)) {}

std::vector<EventMessage> EventStreamDecoder::feed(std::string_view bytes) {
  std::vector<EventMessage> out;
  if (error_) return out;
  buffer_.append(bytes);
  size_t at = 0;
  while (buffer_.size() - at >= kEventPreludeBytes) {
    std::string error;
    const std::string_view rest = std::string_view(buffer_).substr(at);
    auto total = checkPrelude(rest, max_message_bytes_, error);
    if (!total) {
      error_ = std::move(error);
      break;
    }
    if (rest.size() < *total) break;  // the rest of this frame is still on its way
    auto message = decodeEventMessage(rest.substr(0, *total), error, max_message_bytes_);
    if (!message) {
      error_ = std::move(error);
      break;
    }
    out.push_back(std::move(*message));
    at += *total;
  }
  if (error_) {
    buffer_.clear();
    buffer_.shrink_to_fit();
  } else {
    buffer_.erase(0, at);
  }
  return out;
}

bool EventStreamDecoder::finish() {
  if (error_) return false;
  if (!buffer_.empty()) {
    error_ = "event-stream ended in the middle of a frame (" + std::to_string(buffer_.size()) +
             " bytes left)";
    buffer_.clear();
    return false;
  }
  return true;
}

}  // namespace sluice::wire::bedrock
