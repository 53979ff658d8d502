#include "server/protection/masker.h"

#include <utility>

#include "server/protection/placeholder.h"
#include "server/protection/request_texts.h"
#include "server/protection/scan_util.h"

namespace sluice::protection {
namespace {

// A value shorter than this is not searched for again outside the context that revealed it: a
// short password ("abc1") would otherwise be found inside unrelated words.
constexpr size_t kMinKnownBytes = 4;

constexpr std::string_view kDepthFailure = "a JSON value of the request nests too deeply to scan";

uint64_t reservedKey(Kind kind, int number) {
  return (static_cast<uint64_t>(kind) << 32) | static_cast<uint32_t>(number);
}

// The value of a credential: what follows an authentication scheme ("Bearer abc" -> "abc"), or
// all of it.
std::pair<size_t, size_t> credentialValue(std::string_view text) {
  size_t word = 0;
  while (word < text.size() && word < 32 && isAlpha(text[word])) ++word;
  if (word > 0 && at(text, word) == ' ' && word + 1 < text.size()) return {word + 1, text.size() - word - 1};
  return {0, text.size()};
}

}  // namespace

Masker::Masker(const Detector& detector, const MaskLimits& limits)
    : detector_(detector), limits_(limits), budget_(limits.max_scanned_bytes, limits.max_scan_time, limits.clock) {}

bool Masker::fail(std::string reason) {
  if (failure_.empty()) failure_ = std::move(reason);
  return false;
}

void Masker::notePlaceholders(std::string_view text) {
  size_t from = 0;
  while (true) {
    const size_t at = text.find(kOpenBracket, from);
    if (at == std::string_view::npos) return;
    const PlaceholderRead read = readPlaceholder(text.substr(at, kMaxPlaceholderBytes), false);
    if (read.state == PlaceholderRead::State::Complete) reserved_.insert(reservedKey(read.kind, read.number));
    from = at + kOpenBracket.size();
  }
}

bool Masker::noteValues(std::string_view text, const std::vector<Span>& spans) {
  occurrences_ += spans.size();
  if (occurrences_ > limits_.max_occurrences) {
    return fail("the request holds more than " + std::to_string(limits_.max_occurrences) + " values to mask");
  }
  for (const Span& span : spans) {
    auto& numbers = numbers_[static_cast<size_t>(span.kind)];
    std::string value(text.substr(span.offset, span.length));
    if (numbers.contains(value)) continue;
    if (values_.size() >= limits_.max_placeholders) {
      return fail("the request holds more than " + std::to_string(limits_.max_placeholders) +
                  " distinct values to mask");
    }
    if (value.size() >= kMinKnownBytes) {
      known_bytes_ += value.size();
      if (known_bytes_ > limits_.max_known_bytes) {
        return fail("the request's distinct values to mask hold more than " + std::to_string(limits_.max_known_bytes) +
                    " bytes");
      }
    }
    numbers.emplace(value, 0);
    values_.emplace_back(span.kind, std::move(value));
  }
  return true;
}

bool Masker::reserve(std::string_view text) {
  if (!failure_.empty()) return false;
  notePlaceholders(text);
  spans_.clear();
  if (!text.empty() && !detector_.collect(text, spans_, &budget_)) return fail(budget_.reason());
  resolveOverlaps(spans_);
  if (!noteValues(text, spans_)) return false;
  found_.push_back({text.size(), spans_});
  return true;
}

bool Masker::reserveCredential(std::string_view text) {
  const bool api_key = detector_.enabled(Kind::ApiKey);
  if (!api_key && !detector_.enabled(Kind::Password)) return reserve(text);
  if (!failure_.empty()) return false;
  notePlaceholders(text);
  if (!budget_.charge(text.size())) return fail(budget_.reason());
  const auto [offset, length] = credentialValue(text);
  spans_.clear();
  if (length > 0) spans_.push_back({api_key ? Kind::ApiKey : Kind::Password, offset, length});
  if (!noteValues(text, spans_)) return false;
  found_.push_back({text.size(), spans_});
  return true;
}

bool Masker::numberAll() {
  numbered_ = true;
  std::array<int, kKindCount> last{};  // the last number given per kind
  std::vector<ExactMatcher::Entry> known;
  for (const auto& [kind, value] : values_) {
    int number = last[static_cast<size_t>(kind)] + 1;
    while (number <= kMaxPlaceholderNumber && reserved_.contains(reservedKey(kind, number))) ++number;
    if (number > kMaxPlaceholderNumber) {
      return fail("the request uses up the placeholder numbers of kind " + std::string(toString(kind)));
    }
    last[static_cast<size_t>(kind)] = number;
    numbers_[static_cast<size_t>(kind)][value] = number;
    result_.mapping.assign(kind, number, value);
    if (value.size() >= kMinKnownBytes) known.push_back({value, static_cast<uint32_t>(kind)});
  }
  known_ = ExactMatcher::build(known);
  return true;
}

bool Masker::mask(std::string& text) {
  if (!failure_.empty()) return false;
  if (!numbered_ && !numberAll()) return false;
  if (next_text_ >= found_.size() || found_[next_text_].bytes != text.size()) {
    return fail("the texts to mask changed between the masker's two passes");
  }
  spans_ = std::move(found_[next_text_].spans);
  found_[next_text_].spans = {};
  ++next_text_;
  // Every value found anywhere, wherever it appears in this text, in contexts no detector reads.
  std::vector<ExactMatcher::Match> matches;
  if (!known_.findAll(text, matches, &budget_)) return fail(budget_.reason());
  if (!matches.empty()) {
    const size_t found = spans_.size();
    for (const ExactMatcher::Match& match : matches) {
      spans_.push_back({static_cast<Kind>(match.tag), match.offset, match.length});
    }
    resolveOverlaps(spans_);
    if (spans_.size() > found) {
      occurrences_ += spans_.size() - found;
      if (occurrences_ > limits_.max_occurrences) {
        return fail("the request holds more than " + std::to_string(limits_.max_occurrences) + " values to mask");
      }
    }
  }
  if (spans_.empty()) return true;
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
  struct Reserve {
    Masker& masker;
    bool text(std::string& value) { return masker.reserve(value); }
    bool credential(std::string& value) { return masker.reserveCredential(value); }
  } reserve{masker};
  struct Mask {
    Masker& masker;
    bool text(std::string& value) { return masker.mask(value); }
    bool credential(std::string& value) { return masker.mask(value); }
  } mask{masker};
  if (!texts::walkRequest(request, reserve) || !texts::walkRequest(request, mask)) {
    return std::unexpected(MaskFailure{masker.failure().empty() ? std::string(kDepthFailure) : masker.failure()});
  }
  // A tool kept raw is sent as its JSON, masked above; the description decoded from it is not
  // sent, and is not left unmasked in the request either.
  for (wire::Tool& tool : request.tools) {
    if (tool.raw.is_object()) tool.description.clear();
  }
  return masker.finish();
}

}  // namespace sluice::protection
