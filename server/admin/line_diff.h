#pragma once
// A line diff for the route editor's history view. Pure.

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

}  // namespace sluice::admin
