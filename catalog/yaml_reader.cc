#include "catalog/yaml_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "catalog/suggest.h"

namespace sluice::catalog {

namespace {

// Microdollars must stay far from int64 overflow once multiplied by token counts.
constexpr double kMaxUsd = 1'000'000'000.0;

std::string integerExpectation(int64_t min, int64_t max) {
  // Bounds that only guard against overflow are not worth stating.
  if (max >= std::numeric_limits<int32_t>::max()) {
    if (min == 1) return "a positive integer";
    if (min == 0) return "a non-negative integer";
    return "an integer of at least " + std::to_string(min);
  }
  return "an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace

std::string describeNode(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
    default: return "nothing";
  }
}

const Entry* Fields::find(std::string_view key) const {
  auto it = std::ranges::find_if(entries_, [&](const Entry& e) { return e.key == key; });
  return it == entries_.end() ? nullptr : &*it;
}

std::optional<int> yamlNestsDeeperThan(std::string_view text, int limit) {
  std::vector<size_t> indents;  // the block levels open, by indentation
  int flow = 0;                 // open [ and { (they span lines)
  char quote = 0;               // inside '...' or "..." (they may span lines in flow context)
  int line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    ++line_number;
    start = end + 1;
    size_t i = 0;
    if (quote == 0 && flow == 0) {
      while (i < line.size() && line[i] == ' ') ++i;
      if (i == line.size() || line[i] == '#' || line[i] == '\r') continue;  // blank or comment only
      while (!indents.empty() && indents.back() > i) indents.pop_back();
      if (indents.empty() || indents.back() < i) indents.push_back(i);
      // "- - - x" opens a sequence per dash on one line; so does "? " (a complex key).
      int inline_levels = 0;
      while (i + 1 < line.size() && (line[i] == '-' || line[i] == '?') && line[i + 1] == ' ') {
        ++inline_levels;
        i += 2;
        while (i < line.size() && line[i] == ' ') ++i;
      }
      if (static_cast<int>(indents.size()) + inline_levels > limit) return line_number;
    }
    const int base = static_cast<int>(indents.size());
    for (; i < line.size(); ++i) {
      const char c = line[i];
      if (quote == '\'') {
        if (c == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'') ++i;  // '' is a quote inside
          else quote = 0;
        }
        continue;
      }
      if (quote == '"') {
        if (c == '\\') ++i;
        else if (c == '"') quote = 0;
        continue;
      }
      if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) break;  // a comment
      if (c == '\'' || c == '"') {
        // A quote opens a string only where a scalar starts (not "it's" inside a plain one).
        if (i == 0 || std::string_view(" \t[{,:-?").find(line[i - 1]) != std::string_view::npos) quote = c;
        continue;
      }
      if (c == '[' || c == '{') {
        if (base + ++flow > limit) return line_number;
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
    }
    if (end == text.size()) break;
  }
  return std::nullopt;
}

std::optional<YAML::Node> YamlReader::parse(std::string_view text) {
  if (const auto line = yamlNestsDeeperThan(text, kMaxYamlDepth)) {
    error(Location{path_, *line, 1},
          "YAML nests lists and mappings deeper than " + std::to_string(kMaxYamlDepth) + " levels; it is not read");
    return std::nullopt;
  }
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    Location where{path_, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                   e.mark.column >= 0 ? e.mark.column + 1 : 0};
    error(where, "YAML syntax error: " + e.msg);
    return std::nullopt;
  }
}

Location YamlReader::at(const YAML::Node& node, const Location& fallback) const {
  if (!node.IsDefined() || node.IsNull()) return fallback;
  YAML::Mark mark = node.Mark();
  if (mark.line < 0 || mark.column < 0) return fallback;
  return {path_, mark.line + 1, mark.column + 1};
}

Fields YamlReader::fields(const YAML::Node& node, const Location& where, std::string_view what,
                          std::initializer_list<std::string_view> allowed) {
  Fields result;
  if (!node.IsDefined() || node.IsNull()) {
    result.ok_ = true;
    return result;
  }
  if (!node.IsMap()) {
    wrongType(node, where, what, "a mapping");
    return result;
  }
  result.ok_ = true;
  for (const auto& pair : node) {
    Location key_at = at(pair.first, where);
    if (!pair.first.IsScalar()) {
      error(key_at, "keys of " + std::string(what) + " must be strings, got " +
                        describeNode(pair.first));
      continue;
    }
    std::string key = pair.first.Scalar();
    if (const Entry* first = result.find(key)) {
      error(key_at, "duplicate key '" + key + "' in " + std::string(what) +
                        "; first defined at line " + std::to_string(first->key_at.line));
      continue;
    }
    if (allowed.size() > 0 && std::ranges::find(allowed, key) == allowed.end()) {
      std::string message = "unknown key '" + key + "' in " + std::string(what) + "; expected one of: ";
      bool first_name = true;
      for (std::string_view name : allowed) {
        message += (first_name ? "" : ", ") + std::string(name);
        first_name = false;
      }
      // Suggest only near misses.
      const std::string_view closest = closestName(key, std::span(allowed.begin(), allowed.size()), 3);
      if (!closest.empty()) message += " (did you mean '" + std::string(closest) + "'?)";
      error(key_at, std::move(message));
      continue;
    }
    result.entries_.push_back({key, pair.second, key_at, at(pair.second, key_at)});
  }
  return result;
}

void YamlReader::wrongType(const YAML::Node& node, const Location& where, std::string_view what,
                           std::string_view expectation) {
  error(where, std::string(what) + " must be " + std::string(expectation) + ", got " +
                   describeNode(node));
}

std::optional<std::string> YamlReader::scalar(const YAML::Node& node, const Location& where,
                                              std::string_view what,
                                              std::string_view expectation) {
  if (!node.IsScalar()) {
    wrongType(node, where, what, expectation);
    return std::nullopt;
  }
  std::vector<Substitution> substituted;
  auto text = interpolate(node.Scalar(), env_, policy_, &substituted);
  if (!text) {
    error(where, std::string(what) + ": " + text.error());
    return std::nullopt;
  }
  if (!substituted.empty()) {
    // The whole text (longest, so replaced first) as written, then each variable as ${NAME}: a
    // message may quote a part of the value. A text that is one variable's value is shown as
    // ${NAME} alone, not as the way this scalar wrote it ("${NAME:-default}"), which another file
    // may not share.
    const bool one_value = substituted.size() == 1 && substituted.front().value == *text;
    if (!one_value) sink_.hide(*text, node.Scalar());
    for (auto& substitution : substituted) sink_.hide(std::move(substitution.value), "${" + substitution.name + "}");
  }
  return std::move(*text);
}

std::optional<std::string> YamlReader::string(const YAML::Node& node, const Location& where,
                                              std::string_view what) {
  return scalar(node, where, what, "a string");
}

std::optional<std::string> YamlReader::string(const Entry& entry, std::string_view what) {
  return string(entry.value, entry.value_at, what);
}

std::optional<int64_t> YamlReader::integer(const Entry& entry, std::string_view what, int64_t min,
                                           int64_t max) {
  std::string expectation = integerExpectation(min, max);
  std::optional<std::string> text = scalar(entry.value, entry.value_at, what, expectation);
  if (!text) return std::nullopt;
  int64_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end || text->empty() || value < min || value > max) {
    error(entry.value_at, std::string(what) + " must be " + expectation + ", got '" + *text + "'");
    return std::nullopt;
  }
  return value;
}

std::optional<bool> YamlReader::boolean(const Entry& entry, std::string_view what) {
  std::optional<std::string> text = scalar(entry.value, entry.value_at, what, "true or false");
  if (!text) return std::nullopt;
  if (*text == "true" || *text == "True" || *text == "TRUE") return true;
  if (*text == "false" || *text == "False" || *text == "FALSE") return false;
  error(entry.value_at, std::string(what) + " must be true or false, got '" + *text + "'");
  return std::nullopt;
}

std::optional<int64_t> YamlReader::usdMicros(const Entry& entry, std::string_view what) {
  constexpr std::string_view kExpectation = "a non-negative number of US dollars";
  std::optional<std::string> text = scalar(entry.value, entry.value_at, what, kExpectation);
  if (!text) return std::nullopt;
  double value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value, std::chars_format::general);
  if (ec != std::errc() || ptr != end || text->empty() || !std::isfinite(value) || value < 0 ||
      value > kMaxUsd) {
    error(entry.value_at,
          std::string(what) + " must be " + std::string(kExpectation) + ", got '" + *text + "'");
    return std::nullopt;
  }
  return std::llround(value * 1'000'000.0);
}

std::optional<std::vector<Located<std::string>>> YamlReader::stringList(const Entry& entry,
                                                                        std::string_view what,
                                                                        bool single_ok) {
  std::vector<Located<std::string>> items;
  const YAML::Node& node = entry.value;
  if (!node.IsDefined() || node.IsNull()) return items;
  if (node.IsScalar() && single_ok) {
    std::optional<std::string> text = string(node, entry.value_at, what);
    if (!text) return std::nullopt;
    items.push_back({std::move(*text), entry.value_at});
    return items;
  }
  if (!node.IsSequence()) {
    wrongType(node, entry.value_at, what, single_ok ? "a string or a list of strings" : "a list of strings");
    return std::nullopt;
  }
  // A bad item is reported and left out; the others are kept so later checks still see them.
  for (const YAML::Node& item : node) {
    Location item_at = at(item, entry.value_at);
    if (!item.IsScalar()) {
      error(item_at, "each item of " + std::string(what) + " must be a string, got " +
                         describeNode(item));
      continue;
    }
    std::optional<std::string> text = string(item, item_at, what);
    if (text) items.push_back({std::move(*text), item_at});
  }
  return items;
}

}  // namespace sluice::catalog
