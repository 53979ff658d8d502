#include "server/wire/openai_chat/unasked_usage_filter.h"
#include "server/wire/json_parse.h"

#include <optional>

#include <nlohmann/json.hpp>

namespace sluice::wire::openai_chat {

namespace {

using Json = nlohmann::ordered_json;

// The end of the first complete event in `text` (just past its blank line), or npos.
size_t eventEnd(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') continue;
    if (i + 1 < text.size() && text[i + 1] == '\n') return i + 2;
    if (i + 2 < text.size() && text[i + 1] == '\r' && text[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

// `"usage":null` removed from a chunk's JSON text, spelling kept; nullopt when the text does not
// have it in the compact form (the caller then re-serialises).
std::optional<std::string> withoutNullUsage(std::string_view data) {
  for (std::string_view needle : {std::string_view(",\"usage\":null"), std::string_view("\"usage\":null,")}) {
    const size_t at = data.find(needle);
    if (at == std::string_view::npos) continue;
    std::string out(data.substr(0, at));
    out += data.substr(at + needle.size());
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::string filterUnaskedUsage(std::string_view event) {
  // Find the data line; Chat chunks put the whole JSON on one `data:` line.
  const size_t data_at = event.starts_with("data:") ? 0 : event.find("\ndata:");
  if (data_at == std::string_view::npos) return std::string(event);
  const size_t value_at = data_at + (data_at == 0 ? 5 : 6);
  const size_t line_end = event.find('\n', value_at);
  std::string_view value = event.substr(value_at, line_end == std::string_view::npos ? std::string_view::npos
                                                                                     : line_end - value_at);
  if (!value.empty() && value.back() == '\r') value.remove_suffix(1);
  const size_t lead = value.find_first_not_of(' ');
  if (lead == std::string_view::npos) return std::string(event);
  value.remove_prefix(lead);
  if (value.empty() || value.front() != '{') return std::string(event);
  Json chunk = parseBounded(value);
  if (chunk.is_discarded() || !chunk.is_object() || !chunk.contains("usage")) return std::string(event);
  const Json& choices = chunk.contains("choices") ? chunk["choices"] : Json();
  if (!chunk["usage"].is_null() && (!choices.is_array() || choices.empty())) return {};  // the usage chunk
  std::string replaced;
  if (chunk["usage"].is_null()) {
    if (auto text = withoutNullUsage(value)) {
      const Json check = parseJsonText(*text);
      if (!check.is_discarded()) replaced = std::move(*text);
    }
  }
  if (replaced.empty()) {
    chunk.erase("usage");
    replaced = dumpJsonText(chunk);
  }
  std::string out(event.substr(0, value_at + lead));
  out += replaced;
  out += event.substr(value_at + lead + value.size());
  return out;
}

std::string UnaskedUsageFilter::feed(std::string_view bytes) {
  pending_.append(bytes);
  std::string out;
  size_t start = 0;
  for (;;) {
    const size_t end = eventEnd(std::string_view(pending_).substr(start));
    if (end == std::string_view::npos) break;
    out += filterUnaskedUsage(std::string_view(pending_).substr(start, end));
    start += end;
  }
  pending_.erase(0, start);
  return out;
}

std::string UnaskedUsageFilter::finish() {
  std::string out = pending_.empty() ? std::string() : filterUnaskedUsage(pending_);
  pending_.clear();
  return out;
}

}  // namespace sluice::wire::openai_chat
