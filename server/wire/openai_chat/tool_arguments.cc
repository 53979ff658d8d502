#include "server/wire/openai_chat/tool_arguments.h"

#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::openai_chat {

std::optional<Json> parseToolArguments(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return Json::object();
  Json parsed = parseBounded(text);
  if (parsed.is_null()) return Json::object();
  if (!parsed.is_object()) return std::nullopt;  // also a discarded (malformed) value
  return parsed;
}

std::string dumpToolArguments(const Json& input) { return input.is_object() ? dumpJsonText(input) : "{}"; }

}  // namespace sluice::wire::openai_chat
