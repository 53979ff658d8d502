#pragma once
// Plain-text tables for people: a header row, columns padded to their widest cell, numbers
// right-aligned, an optional totals row under a rule. Also RFC 4180 CSV of the same cells.

#include <iosfwd>
#include <string>
#include <vector>

namespace sluice::cli {

class Table {
 public:
  // `right_aligned[i]` aligns column i to the right (numbers); missing entries mean left.
  explicit Table(std::vector<std::string> headers, std::vector<bool> right_aligned = {});

  void addRow(std::vector<std::string> cells);
  void setTotals(std::vector<std::string> cells);

  void print(std::ostream& out) const;
  void printCsv(std::ostream& out) const;  // headers and rows; not the totals

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::string> totals_;
};

// "1,234,567".
std::string groupThousands(long long value);
// Microdollars as dollars: "$12.35" from a dollar up, else up to six decimals ("$0.000123").
std::string formatDollars(long long microdollars);
// One CSV field, quoted when it needs to be, formula cells neutralised (server/text/csv_cell.h).
std::string csvField(const std::string& value);

}  // namespace sluice::cli
