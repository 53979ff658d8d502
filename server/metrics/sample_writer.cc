#include "server/metrics/sample_writer.h"

#include "server/metrics/exposition.h"

namespace sluice::metrics {

void writeHeader(std::string& out, const Family& family) {
  out += "# HELP ";
  out += family.name();
  out += ' ';
  out += escapeHelp(family.help());
  out += "\n# TYPE ";
  out += family.name();
  out += ' ';
  out += toString(family.type());
  out += '\n';
}

void writeSample(std::string& out, std::string_view name, std::string_view suffix,
                 const std::vector<std::string>& label_names, const std::vector<std::string>& values,
                 std::string_view le, double value) {
  out += name;
  out += suffix;
  writeLabels(out, label_names, values, le);
  out += ' ';
  out += formatValue(value);
  out += '\n';
}

}  // namespace sluice::metrics
