#include "server/wire/json_parse.h"

#include <cstring>

namespace sluice::wire {

bool nestsDeeperThan(std::string_view text, int limit) {
  int depth = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char c = *p++;
    if (c == '"') {
      // Skip the string: to the next quote not escaped by a backslash.
      for (;;) {
        const auto* quote = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
        if (quote == nullptr) return false;  // unterminated: malformed, the parse says so
        size_t backslashes = 0;
        for (const char* q = quote; q > p && q[-1] == '\\'; --q) ++backslashes;
        p = quote + 1;
        if (backslashes % 2 == 0) break;
      }
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

Json parseBounded(std::string_view text) {
  if (nestsDeeperThan(text)) return Json(Json::value_t::discarded);
  return Json::parse(text, nullptr, false);
}

}  // namespace sluice::wire
