#pragma once
// The AWS event-stream framing (`application/vnd.amazon.eventstream`), as Bedrock's streamed
// answers use it. One message:
//
//   total length (u32 BE) | headers length (u32 BE) | prelude CRC32 (u32 BE, over the 8 bytes before)
//   headers (name length u8, name, type u8, value) ...
//   payload
//   message CRC32 (u32 BE, over everything before it)
//
// Both CRCs are checked; a frame longer than the decoder's limit, one whose lengths do not add
// up, or a header of an unknown type is refused. Pure.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::wire::bedrock {

// The value types of the framing (their numbers are on the wire).
enum class HeaderType : uint8_t {
  BoolTrue = 0, BoolFalse = 1, Byte = 2, Short = 3, Int = 4, Long = 5,
  Bytes = 6, String = 7, Timestamp = 8, Uuid = 9,
};

struct EventHeader {
  std::string name;
  HeaderType type = HeaderType::String;
  std::string bytes;   // Bytes, String, Uuid (16 bytes)
  int64_t number = 0;  // Byte, Short, Int, Long, Timestamp (ms since the epoch); 1/0 for the bools
};

struct EventMessage {
  std::vector<EventHeader> headers;
  std::string payload;
  // The value of a String header, or nullopt.
  std::optional<std::string_view> text(std::string_view name) const;
};

// AWS's own limits: 16 MiB a message, 128 KiB of headers.
inline constexpr size_t kMaxEventMessageBytes = 16u * 1024 * 1024;
inline constexpr size_t kMaxEventHeaderBytes = 128u * 1024;
inline constexpr size_t kEventPreludeBytes = 12;
inline constexpr size_t kEventOverheadBytes = 16;  // prelude + message CRC

// CRC-32 (IEEE 802.3, the one zlib computes), continued from `seed`.
uint32_t crc32(std::string_view bytes, uint32_t seed = 0);

// Decodes exactly one whole frame; on failure returns nullopt and says why in `error`.
std::optional<EventMessage> decodeEventMessage(std::string_view frame, std::string& error,
                                               size_t max_bytes = kMaxEventMessageBytes);

// Encodes one message (the mock provider and the tests write frames with it). Throws
// std::length_error past the limits above.
std::string encodeEventMessage(const EventMessage& message);

// Incremental decoder: bytes split anywhere. The first framing error stops it for good: the
// stream cannot be resynchronised, so the caller treats it as a transport failure.
class EventStreamDecoder {
 public:
  explicit EventStreamDecoder(size_t max_message_bytes = kMaxEventMessageBytes);
  // Every message completed by these bytes (those before an error, if one happens here).
  std::vector<EventMessage> feed(std::string_view bytes);
  // The stream ended: false (and error() set) when a frame was left half-sent.
  bool finish();
  const std::optional<std::string>& error() const { return error_; }
  size_t buffered() const { return buffer_.size(); }

 private:
  size_t max_message_bytes_;
  std::string buffer_;
  std::optional<std::string> error_;
};

}  // namespace sluice::wire::bedrock
