#pragma once
// Line diffs for the route editor: aligned lines for the history view, and a unified diff (the
// text `git apply` and `patch -p1` read) for "Copy as diff". Pure.

#include <string>
#include <string_view>
#include <vector>

namespace sluice::admin {

struct DiffLine {
  char op = ' ';  // ' ' same, '-' only in `before`, '+' only in `after`
  std::string text;
};

// The lines of `before` and `after` aligned by a longest common subsequence. Inputs longer than
// 2000 lines each are compared as wholes (every line of one removed, every line of the other added).
std::vector<DiffLine> lineDiff(std::string_view before, std::string_view after);

// A unified diff of `before` → `after` labelled `a/<path>` and `b/<path>`, with `context` unchanged
// lines around each change (hunks closer than twice that are merged) and "\ No newline at end of
// file" where a side lacks its final newline. Empty when the texts are equal.
std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& path, size_t context = 3);

}  // namespace sluice::admin
