#include "server/admin/line_diff.h"

#include <cstdint>

namespace sluice::admin {

namespace {

std::vector<std::string> splitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::vector<DiffLine> lineDiff(std::string_view before, std::string_view after) {
  const auto a = splitLines(before);
  const auto b = splitLines(after);
  std::vector<DiffLine> out;
  constexpr size_t kMaxLines = 2000;
  if (a.size() > kMaxLines || b.size() > kMaxLines) {
    for (const auto& line : a) out.push_back({'-', line});
    for (const auto& line : b) out.push_back({'+', line});
    return out;
  }
  // lcs[i][j]: length of the LCS of a[i..] and b[j..].
  const size_t n = a.size();
  const size_t m = b.size();
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  const auto at = [m](size_t i, size_t j) { return i * (m + 1) + j; };
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[at(i, j)] = a[i] == b[j] ? lcs[at(i + 1, j + 1)] + 1 : std::max(lcs[at(i + 1, j)], lcs[at(i, j + 1)]);
    }
  }
  size_t i = 0;
  size_t j = 0;
  while (i < n && j < m) {
    if (a[i] == b[j]) {
      out.push_back({' ', a[i]});
      ++i;
      ++j;
    } else if (lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
      out.push_back({'-', a[i++]});
    } else {
      out.push_back({'+', b[j++]});
    }
  }
  while (i < n) out.push_back({'-', a[i++]});
  while (j < m) out.push_back({'+', b[j++]});
  return out;
}

}  // namespace sluice::admin
