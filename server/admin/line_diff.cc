#include "server/admin/line_diff.h"

#include <algorithm>
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

// "-3,2": where a hunk's lines start on one side and how many; an empty side names the line before.
std::string hunkRange(size_t first, size_t count) {
  const size_t start = count == 0 ? first : first + 1;
  return std::to_string(start) + (count == 1 ? "" : "," + std::to_string(count));
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

std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& path, size_t context) {
  if (before == after) return "";
  const bool old_open = !before.empty() && before.back() != '\n';
  const bool new_open = !after.empty() && after.back() != '\n';
  auto lines = lineDiff(before, after);
  // The same last line, ended by a newline on one side only: a change of that line.
  if (!lines.empty() && lines.back().op == ' ' && old_open != new_open) {
    const std::string text = lines.back().text;
    lines.back().op = '-';
    lines.push_back({'+', text});
  }
  // Where each aligned line sits on either side (0-based), to number hunks and find last lines.
  std::vector<size_t> old_at(lines.size());
  std::vector<size_t> new_at(lines.size());
  size_t old_count = 0;
  size_t new_count = 0;
  for (size_t k = 0; k < lines.size(); ++k) {
    old_at[k] = old_count;
    new_at[k] = new_count;
    if (lines[k].op != '+') ++old_count;
    if (lines[k].op != '-') ++new_count;
  }
  std::string out = "--- a/" + path + "\n+++ b/" + path + "\n";
  size_t k = 0;
  while (k < lines.size()) {
    if (lines[k].op == ' ') {
      ++k;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that follows within 2 * context unchanged lines.
    const size_t begin = k >= context ? k - context : 0;
    size_t end = k;  // one past the last changed line so far
    for (size_t scan = k; scan < lines.size(); ++scan) {
      if (lines[scan].op != ' ') end = scan + 1;
      else if (scan - end + 1 > 2 * context) break;
    }
    const size_t stop = std::min(lines.size(), end + context);
    size_t olds = 0;
    size_t news = 0;
    for (size_t i = begin; i < stop; ++i) {
      if (lines[i].op != '+') ++olds;
      if (lines[i].op != '-') ++news;
    }
    out += "@@ -" + hunkRange(old_at[begin], olds) + " +" + hunkRange(new_at[begin], news) + " @@\n";
    for (size_t i = begin; i < stop; ++i) {
      out += lines[i].op;
      out += lines[i].text;
      out += '\n';
      const bool last_old = lines[i].op != '+' && old_at[i] + 1 == old_count;
      const bool last_new = lines[i].op != '-' && new_at[i] + 1 == new_count;
      if ((last_old && old_open) || (last_new && new_open)) out += "\\ No newline at end of file\n";
    }
    k = stop;
  }
  return out;
}

}  // namespace sluice::admin
