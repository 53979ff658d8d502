#pragma once
// PostgreSQL's COPY text format, the part the audit trail uses: fields separated by tabs, one row
// per line, \N for NULL, and backslash escapes for backslash, tab, newline and carriage return.
// Pure; thread-safe.

#include <string>
#include <string_view>
#include <vector>

namespace sluice::audit {

// Appends `value` as one COPY field: backslash, tab, newline and carriage return escaped, NUL
// bytes removed and each broken UTF-8 sequence replaced by one U+FFFD (PostgreSQL text accepts
// neither). Never writes \N: an empty value stays empty.
void appendCopyEscaped(std::string& out, std::string_view value);

// One field with its escapes undone (\t \n \r \b \f \v, and \x for any other x). The caller has
// already told \N (NULL) apart.
std::string unescapeCopyField(std::string_view field);

// The fields of one line (a final '\n' dropped), split at every tab; views into `line`. An empty
// line is one empty field.
std::vector<std::string_view> splitCopyLine(std::string_view line);

}  // namespace sluice::audit
