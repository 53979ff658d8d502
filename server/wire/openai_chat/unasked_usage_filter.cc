#include "server/wire/openai_chat/unasked_usage_filter.h"
#include "server/wire/json_parse.h"
#include "server/wire/sse_event_filter.h"

#include <optional>

#include <nlohmann/json.hpp>

namespace sluice::wire::openai_chat {

namespace {

using Json = nlohmann::ordered_json;

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
  // Chat chunks put the whole JSON on one `data:` line.
  const auto span = jsonDataLine(event);
  if (!span) return std::string(event);
  const std::string_view value = event.substr(span->at, span->size);
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
  std::string out(event.substr(0, span->at));
  out += replaced;
  out += event.substr(span->at + span->size);
  return out;
}

}  // namespace sluice::wire::openai_chat
