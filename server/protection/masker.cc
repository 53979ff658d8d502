#include "server/protection/masker.h"

#include <array>
#include <cstring>
#include <utility>

#include "server/protection/placeholder.h"
#include "server/wire/json_parse.h"

namespace sluice::protection {
namespace {

// A value shorter than this is not searched for again outside the context that revealed it: a
// short password ("abc1") would otherwise be found inside unrelated words.
constexpr size_t kMinKnownBytes = 4;
// Tool results nest blocks; deeper than this is not a real request.
constexpr int kMaxBlockDepth = 8;

constexpr std::string_view kDepthFailure = "a JSON value of the request nests too deeply to scan";

uint64_t reservedKey(Kind kind, int number) {
  return (static_cast<uint64_t>(kind) << 32) | static_cast<uint32_t>(number);
}

// Members of an Opaque block's JSON that are not text: ids, type tags, signatures, file and media
// payloads (base64, file ids, data: URLs). "data" is text only beside "type": "text" (an Anthropic
// plain-text document source).
bool isPayloadKey(std::string_view key) {
  static constexpr std::array<std::string_view, 14> kKeys = {
      "type",     "id",        "tool_use_id", "call_id",   "media_type", "mime_type",         "file_data",
      "file_id",  "image_url", "file_url",    "signature", "encrypted_content", "cache_control", "format"};
  for (const std::string_view k : kKeys) {
    if (key == k) return true;
  }
  return false;
}

// Calls `visit(std::string&)` on each string to scan, in document order; false as soon as a visit
// fails or the value nests past kMaxJsonDepth. `opaque` applies the payload rules above.
template <typename Visit>
bool walkJson(wire::Json& value, bool opaque, int depth, Visit& visit) {
  if (depth > wire::kMaxJsonDepth) return false;
  if (value.is_string()) return visit(value.get_ref<wire::Json::string_t&>());
  if (value.is_array()) {
    for (wire::Json& element : value) {
      if (!walkJson(element, opaque, depth + 1, visit)) return false;
    }
    return true;
  }
  if (!value.is_object()) return true;
  bool text_data = false;
  if (opaque) {
    const auto type = value.find("type");
    text_data = type != value.end() && type->is_string() && type->get_ref<const wire::Json::string_t&>() == "text";
  }
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (opaque) {
      const std::string& key = it.key();
      if (isPayloadKey(key) || (key == "data" && !text_data)) continue;
      if (it->is_string() && it->get_ref<const wire::Json::string_t&>().starts_with("data:")) continue;
    }
    if (!walkJson(*it, opaque, depth + 1, visit)) return false;
  }
  return true;
}

// A tool's input schema: only its "description" and "title" strings are prose.
template <typename Visit>
bool walkSchema(wire::Json& value, int depth, Visit& visit) {
  if (depth > wire::kMaxJsonDepth) return false;
  if (value.is_array()) {
    for (wire::Json& element : value) {
      if (!walkSchema(element, depth + 1, visit)) return false;
    }
    return true;
  }
  if (!value.is_object()) return true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (it->is_string()) {
      if ((it.key() == "description" || it.key() == "title") && !visit(it->get_ref<wire::Json::string_t&>())) {
        return false;
      }
    } else if (!walkSchema(*it, depth + 1, visit)) {
      return false;
    }
  }
  return true;
}

template <typename Visit>
bool walkBlock(wire::ContentBlock& block, int depth, Visit& visit) {
  using Type = wire::ContentBlock::Type;
  switch (block.type) {
    case Type::Text:
    case Type::Thinking:
      return visit(block.text);
    case Type::ToolUse:
      return walkJson(block.tool_input, false, 0, visit);
    case Type::ToolResult:
      if (depth >= kMaxBlockDepth) return false;
      for (wire::ContentBlock& part : block.result) {
        if (!walkBlock(part, depth + 1, visit)) return false;
      }
      return true;
    case Type::Opaque:
      return walkJson(block.raw, true, 0, visit);
    case Type::Image:
    case Type::RedactedThinking:
      return true;
  }
  return true;
}

// The request's texts in the numbering order: system, tools, messages, end-user id.
template <typename Visit>
bool walkRequest(wire::Request& request, Visit& visit) {
  for (wire::ContentBlock& block : request.system) {
    if (!walkBlock(block, 0, visit)) return false;
  }
  for (wire::Tool& tool : request.tools) {
    if (!visit(tool.description) || !walkSchema(tool.input_schema, 0, visit)) return false;
  }
  for (wire::Message& message : request.messages) {
    for (wire::ContentBlock& block : message.content) {
      if (!walkBlock(block, 0, visit)) return false;
    }
  }
  if (request.user && !visit(*request.user)) return false;
  return true;
}

}  // namespace

void Masker::reserve(std::string_view text) {
  size_t from = 0;
  while (true) {
    const size_t at = text.find(kOpenBracket, from);
    if (at == std::string_view::npos) return;
    const PlaceholderRead read = readPlaceholder(text.substr(at, kMaxPlaceholderBytes), false);
    if (read.state == PlaceholderRead::State::Complete) reserved_.insert(reservedKey(read.kind, read.number));
    from = at + kOpenBracket.size();
  }
}

int Masker::numberFor(Kind kind, std::string_view value) {
  auto& numbers = numbers_[static_cast<size_t>(kind)];
  std::string key(value);
  if (const auto it = numbers.find(key); it != numbers.end()) return it->second;
  if (minted_ >= limits_.max_placeholders) {
    failure_ = "the request holds more than " + std::to_string(limits_.max_placeholders) + " distinct values to mask";
    return 0;
  }
  int number = next_[static_cast<size_t>(kind)] + 1;
  while (number <= kMaxPlaceholderNumber && reserved_.contains(reservedKey(kind, number))) ++number;
  if (number > kMaxPlaceholderNumber) {
    failure_ = "the request uses up the placeholder numbers of kind " + std::string(toString(kind));
    return 0;
  }
  next_[static_cast<size_t>(kind)] = number;
  ++minted_;
  result_.mapping.assign(kind, number, key);
  if (value.size() >= kMinKnownBytes) known_.add(value, static_cast<uint32_t>(kind));
  numbers.emplace(std::move(key), number);
  return number;
}

bool Masker::mask(std::string& text) {
  if (text.empty()) return true;
  scanned_ += text.size();
  if (scanned_ > limits_.max_scanned_bytes) {
    failure_ = "the request has more than " + std::to_string(limits_.max_scanned_bytes) + " bytes of text to scan";
    return false;
  }
  spans_.clear();
  detector_.collect(text, spans_);
  if (spans_.empty() && known_.empty()) return true;
  resolveOverlaps(spans_);
  // Number the new values in order of appearance before looking for earlier ones, so a value that
  // appears twice in this text is found the second time too.
  for (const Span& span : spans_) {
    if (numberFor(span.kind, std::string_view(text).substr(span.offset, span.length)) == 0) return false;
  }
  if (!known_.empty()) {
    std::vector<ExactMatcher::Match> matches;
    known_.findAll(text, matches);
    if (!matches.empty()) {
      for (const ExactMatcher::Match& match : matches) {
        spans_.push_back({static_cast<Kind>(match.tag), match.offset, match.length});
      }
      resolveOverlaps(spans_);
    }
  }
  if (spans_.empty()) return true;
  occurrences_ += spans_.size();
  if (occurrences_ > limits_.max_occurrences) {
    failure_ = "the request holds more than " + std::to_string(limits_.max_occurrences) + " values to mask";
    return false;
  }
  std::string out;
  out.reserve(text.size() + spans_.size() * kMaxPlaceholderBytes);
  size_t position = 0;
  for (const Span& span : spans_) {
    out.append(text, position, span.offset - position);
    const auto& numbers = numbers_[static_cast<size_t>(span.kind)];
    const auto it = numbers.find(text.substr(span.offset, span.length));
    out.append(makePlaceholder(span.kind, it->second));
    ++result_.counts[span.kind];
    position = span.end();
  }
  out.append(text, position, std::string::npos);
  text = std::move(out);
  return true;
}

MaskResult Masker::finish() { return std::exchange(result_, MaskResult{}); }

std::expected<MaskResult, MaskFailure> maskRequest(wire::Request& request, const Detector& detector,
                                                   const MaskLimits& limits) {
  if (detector.empty()) return MaskResult{};
  Masker masker(detector, limits);
  auto reserve = [&](std::string& text) {
    masker.reserve(text);
    return true;
  };
  if (!walkRequest(request, reserve)) return std::unexpected(MaskFailure{std::string(kDepthFailure)});
  auto mask = [&](std::string& text) { return masker.mask(text); };
  if (!walkRequest(request, mask)) {
    return std::unexpected(MaskFailure{masker.failure().empty() ? std::string(kDepthFailure) : masker.failure()});
  }
  return masker.finish();
}

}  // namespace sluice::protection
