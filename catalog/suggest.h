#pragma once
// "Did you mean ...?": the names nearest to one that was not found, for diagnostics and for the
// command line. Pure; never throws. Bounded: a text or name longer than kMaxSuggestedLength is
// never compared (no suggestion is made for it), so the quadratic edit distance stays small.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::catalog {

class Catalog;

inline constexpr size_t kMaxSuggestedLength = 128;

// Levenshtein distance: insertions, deletions and substitutions of single bytes.
size_t editDistance(std::string_view a, std::string_view b);

// The one name within `below` edits of `text` (strictly fewer), the nearest first in `names`
// order; "" when none is. For short names such as YAML keys.
std::string_view closestName(std::string_view text, std::span<const std::string_view> names, size_t below);

// Up to `limit` names that `text` was probably meant as, best first: those within a third of
// `text`'s length in edits (at least 2) and at most one edit further than the nearest, nearest
// first; then those that contain `text` whole (when it has at least 3 characters). Each name once,
// in `names` order among equals.
std::vector<std::string> nearestNames(std::string_view text, const std::vector<std::string>& names, size_t limit = 3);

// What `catalog` serves when a client names it: the declared model ids, then the alias routes'
// ids. (Retired ids are left out: suggesting one would only lead to its refusal.)
std::vector<std::string> servedIds(const Catalog& catalog);

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string quotedChoice(const std::vector<std::string>& names);

// " (did you mean 'a'?)", " (did you mean 'a' or 'b'?)", …, or "" when `names` is empty.
std::string didYouMean(const std::vector<std::string>& names);

}  // namespace sluice::catalog
