#pragma once
// The lines of a family in the text exposition format: the HELP and TYPE header, and one sample.

#include <string>
#include <string_view>
#include <vector>

#include "server/metrics/family.h"

namespace sluice::metrics {

// "# HELP name help\n# TYPE name type\n", the help escaped.
void writeHeader(std::string& out, const Family& family);

// "name+suffix{labels} value\n"; `le`, when not empty, is added as the last label.
void writeSample(std::string& out, std::string_view name, std::string_view suffix,
                 const std::vector<std::string>& label_names, const std::vector<std::string>& values,
                 std::string_view le, double value);

}  // namespace sluice::metrics
