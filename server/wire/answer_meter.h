#pragma once
// What a JSON answer of the non-chat endpoints counts, read while it is relayed unchanged: the
// top-level `usage` (tokens, or {"type":"duration","seconds":N} for transcriptions), the
// top-level `duration` (verbose transcriptions) and how many items the top-level `data` array
// holds (images). Pure, fed in pieces of any size; memory stays bounded (a member's value is kept
// only up to kMaxCaptured bytes, a key up to 64) however large the answer — an image list of
// base64 pictures is walked, never held.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/wire/usage.h"

namespace sluice::wire {

struct AnswerMeasure {
  std::optional<Usage> usage;             // tokens the answer reported
  std::optional<double> duration_seconds; // audio seconds the answer reported
  int64_t data_items = 0;                 // elements of the top-level `data` array
};

class AnswerMeter {
 public:
  static constexpr size_t kMaxCaptured = 4096;

  void feed(std::string_view bytes);
  // What was read so far (complete once the answer has ended).
  AnswerMeasure measure() const;

 private:
  enum class Phase { Key, Colon, Value };
  void endMember();

  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  Phase phase_ = Phase::Key;
  bool reading_key_ = false;
  std::string key_;
  bool key_too_long_ = false;
  std::string member_;     // the key of the member whose value is being read (depth 1)
  bool capturing_ = false;
  std::string captured_;
  std::string usage_text_;
  std::string duration_text_;
  bool in_data_ = false;
  bool data_any_ = false;
  int64_t data_commas_ = 0;
  int64_t data_items_ = 0;
};

}  // namespace sluice::wire
