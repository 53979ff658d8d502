#pragma once
// Shell-style wildcards over model ids: '*' matches any run of characters (including none),
// '?' matches exactly one. No character classes, no escapes.

#include <string_view>

namespace sluice::catalog {

bool isGlob(std::string_view pattern);

// True when `pattern` matches the whole of `text`.
bool globMatch(std::string_view pattern, std::string_view text);

}  // namespace sluice::catalog
