#include "server/audit/copy_text.h"

#include "server/text/plain_run.h"
#include "server/text/utf8.h"

namespace sluice::audit {

// Copies runs of plain bytes at once: this runs for every field of every row, on the request's
// thread.
void appendCopyEscaped(std::string& out, std::string_view value) {
  size_t run = 0;
  size_t i = 0;
  const auto flush = [&](size_t end) { out.append(value.data() + run, end - run); };
  while (i < value.size()) {
    i = text::plainCopyRun(value, i);
    if (i == value.size()) break;
    const auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80) {
      if (const size_t n = text::utf8SequenceLength(value, i); n > 0) {
        i += n;
        continue;
      }
      flush(i);
      out += "\xEF\xBF\xBD";
      run = ++i;
      continue;
    }
    if (c != '\\' && c != '\t' && c != '\n' && c != '\r' && c != 0) {
      ++i;
      continue;
    }
    flush(i);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: break;  // NUL: removed
    }
    run = ++i;
  }
  flush(i);
}

std::string unescapeCopyField(std::string_view field) {
  std::string value;
  value.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\' || i + 1 == field.size()) {
      value += field[i];
      continue;
    }
    switch (field[++i]) {
      case 't': value += '\t'; break;
      case 'n': value += '\n'; break;
      case 'r': value += '\r'; break;
      case 'b': value += '\b'; break;
      case 'f': value += '\f'; break;
      case 'v': value += '\v'; break;
      default: value += field[i]; break;
    }
  }
  return value;
}

std::vector<std::string_view> splitCopyLine(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return fields;
}

}  // namespace sluice::audit
