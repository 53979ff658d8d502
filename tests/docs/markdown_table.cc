#include "tests/docs/markdown_table.h"

namespace sluice::docs {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// Splits "| a | b \| c |" into {"a", "b | c"}.
TableRow cellsOf(std::string_view line) {
  line = trim(line);
  if (line.starts_with('|')) line.remove_prefix(1);
  if (line.ends_with('|') && !line.ends_with("\\|")) line.remove_suffix(1);
  TableRow cells;
  std::string cell;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.emplace_back(trim(cell));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  cells.emplace_back(trim(cell));
  return cells;
}

bool isSeparator(std::string_view line) {
  return trim(line).find_first_not_of("|-: ") == std::string_view::npos;
}

}  // namespace

std::optional<std::vector<TableRow>> tableAfter(std::string_view markdown, std::string_view marker) {
  auto at = markdown.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  at = markdown.find('\n', at);
  std::vector<std::string_view> lines;
  while (at != std::string_view::npos && at + 1 < markdown.size()) {
    const size_t start = at + 1;
    at = markdown.find('\n', start);
    const std::string_view line = trim(markdown.substr(start, at == std::string_view::npos ? at : at - start));
    if (line.starts_with('|')) {
      lines.push_back(line);
    } else if (!lines.empty()) {
      break;
    } else if (line.starts_with('#')) {
      return std::nullopt;
    }
  }
  if (lines.empty()) return std::nullopt;
  std::vector<TableRow> rows;
  for (size_t i = 1; i < lines.size(); ++i) {  // lines[0] is the header
    if (i == 1 && isSeparator(lines[i])) continue;
    rows.push_back(cellsOf(lines[i]));
  }
  return rows;
}

std::vector<std::string> codeSpans(std::string_view cell) {
  std::vector<std::string> spans;
  for (size_t open = cell.find('`'); open != std::string_view::npos; open = cell.find('`', open)) {
    const size_t close = cell.find('`', open + 1);
    if (close == std::string_view::npos) break;
    spans.emplace_back(cell.substr(open + 1, close - open - 1));
    open = close + 1;
  }
  return spans;
}

std::string firstWord(std::string_view cell) {
  std::string word;
  for (char c : trim(cell)) {
    if (c == ' ' || c == ',' || c == '(' || c == ')') break;
    if (c != '`') word += c;
  }
  return word;
}

}  // namespace sluice::docs
