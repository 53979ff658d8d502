#include "cli/table.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "server/text/csv_cell.h"

namespace sluice::cli {

Table::Table(std::vector<std::string> headers, std::vector<bool> right_aligned)
    : headers_(std::move(headers)), right_(std::move(right_aligned)) {
  right_.resize(headers_.size(), false);
}

void Table::addRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void Table::setTotals(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  totals_ = std::move(cells);
}

void Table::print(std::ostream& out) const {
  std::vector<size_t> widths(headers_.size());
  const auto measure = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) widths[i] = std::max(widths[i], cells[i].size());
  };
  measure(headers_);
  for (const auto& row : rows_) measure(row);
  if (!totals_.empty()) measure(totals_);
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(widths[i] - cells[i].size(), ' ');
      if (i > 0) text += "  ";
      text += right_[i] ? pad + cells[i] : cells[i] + (i + 1 < cells.size() ? pad : "");
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  };
  line(headers_);
  for (const auto& row : rows_) line(row);
  if (!totals_.empty()) {
    size_t total_width = 0;
    for (size_t width : widths) total_width += width;
    out << std::string(total_width + 2 * (widths.size() - 1), '-') << "\n";
    line(totals_);
  }
}

std::string csvField(const std::string& value) { return text::csvCell(value); }

void Table::printCsv(std::ostream& out) const {
  const auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << csvField(cells[i]);
    out << "\r\n";
  };
  line(headers_);
  for (const auto& row : rows_) line(row);
}

std::string groupThousands(long long value) {
  const bool negative = value < 0;
  std::string digits = std::to_string(negative ? -value : value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return negative ? "-" + digits : digits;
}

std::string formatDollars(long long microdollars) {
  const bool negative = microdollars < 0;
  const long long magnitude = negative ? -microdollars : microdollars;
  char text[64];
  if (magnitude >= 1'000'000 || magnitude == 0) {
    const long long cents = (magnitude + 5'000) / 10'000;
    std::snprintf(text, sizeof text, "$%s.%02lld", groupThousands(cents / 100).c_str(), cents % 100);
  } else {
    std::snprintf(text, sizeof text, "$0.%06lld", magnitude);
    std::string trimmed = text;
    while (trimmed.size() > 5 && trimmed.back() == '0') trimmed.pop_back();  // keep "$0.xx" at least
    return (negative ? "-" : "") + trimmed;
  }
  return (negative ? "-" : "") + std::string(text);
}

}  // namespace sluice::cli
