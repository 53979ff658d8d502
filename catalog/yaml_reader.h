#pragma once
// Reads one catalog YAML file. Syntax errors, wrong shapes, unknown or duplicate keys and badly
// typed scalars all become diagnostics with the file's 1-based line and column; reads never throw.
// Every scalar is passed through interpolate() before it is interpreted; the values it reads from
// the environment are handed to the sink, so no diagnostic shows them.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/diagnostic_sink.h"
#include "catalog/interpolate.h"

namespace sluice::catalog {

template <typename T>
struct Located {
  T value;
  Location where;
};

// One key/value pair of a YAML mapping. A null value (`key:` with nothing after it) is placed at
// its key, since yaml-cpp gives it the position of the next token.
struct Entry {
  std::string key;
  YAML::Node value;
  Location key_at;
  Location value_at;
};

// The entries of one mapping, in file order, with unknown and duplicate keys already reported
// (a duplicate is reported and dropped; the first occurrence wins).
class Fields {
 public:
  bool ok() const { return ok_; }  // false when the node was not a mapping (already reported)
  const Entry* find(std::string_view key) const;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  friend class YamlReader;
  bool ok_ = false;
  std::vector<Entry> entries_;
};

// yaml-cpp parses nested collections recursively, a few stack frames per level, so a file nested
// thousands deep would overflow the stack of whatever thread or fiber reads it (the console's route
// editor reads on a connection's 256 KiB fiber). No catalog needs more than a handful of levels.
constexpr int kMaxYamlDepth = 64;

// The 1-based line where `text` first nests collections deeper than `limit` levels, counting
// indentation steps, `- ` entries begun on one line and open flow brackets (outside quotes and
// comments); nullopt when it never does. It may count more levels than yaml-cpp would (a block
// scalar's extra indentation), never fewer.
std::optional<int> yamlNestsDeeperThan(std::string_view text, int limit);

class YamlReader {
 public:
  // `policy` (which ${NAME} may be read) is kept by reference and must outlive the reader;
  // without one, any name but the master key's may be read.
  YamlReader(std::string path, const Environment& env, DiagnosticSink& sink,
             const VariablePolicy* policy = nullptr)
      : path_(std::move(path)), env_(env), sink_(sink), policy_(policy ? *policy : kAnyVariable) {}

  const std::string& path() const { return path_; }
  DiagnosticSink& sink() { return sink_; }

  // Parses the first document of `text`; on a syntax error reports it and returns nullopt.
  std::optional<YAML::Node> parse(std::string_view text);

  // The node's position, or `fallback` when yaml-cpp has none.
  Location at(const YAML::Node& node, const Location& fallback) const;
  Location fileLocation() const { return {path_, 0, 0}; }

  // A mapping's entries. With `allowed` empty every key is accepted (maps keyed by id); otherwise
  // other keys are reported as "unknown key 'k' in <what>; expected one of: ...". A null node is
  // an empty mapping.
  Fields fields(const YAML::Node& node, const Location& where, std::string_view what,
                std::initializer_list<std::string_view> allowed = {});
  Fields fields(const Entry& entry, std::string_view what,
                std::initializer_list<std::string_view> allowed = {}) {
    return fields(entry.value, entry.value_at, what, allowed);
  }

  // Scalar reads. `what` names the value in messages ("weight of route 'fast-pool'"); each
  // returns nullopt after reporting "<what> must be <expectation>, got <what was there>".
  std::optional<std::string> string(const Entry& entry, std::string_view what);
  std::optional<std::string> string(const YAML::Node& node, const Location& where,
                                    std::string_view what);
  std::optional<int64_t> integer(const Entry& entry, std::string_view what, int64_t min = 0,
                                 int64_t max = std::numeric_limits<int64_t>::max());
  std::optional<bool> boolean(const Entry& entry, std::string_view what);
  // A non-negative number of US dollars, returned as integer microdollars, rounded to nearest.
  std::optional<int64_t> usdMicros(const Entry& entry, std::string_view what);

  // A list of strings. A null node is an empty list; a single scalar is accepted as a one-element
  // list when `single_ok`.
  std::optional<std::vector<Located<std::string>>> stringList(const Entry& entry,
                                                              std::string_view what,
                                                              bool single_ok = false);

  // A string that must be one of `options`; otherwise reports "<what> must be one of: a, b, c".
  template <typename T>
  std::optional<T> choice(const Entry& entry, std::string_view what,
                          std::initializer_list<std::pair<std::string_view, T>> options) {
    std::optional<std::string> text = string(entry, what);
    if (!text) return std::nullopt;
    for (const auto& [name, value] : options) {
      if (name == *text) return value;
    }
    std::string names;
    for (const auto& option : options) {
      if (!names.empty()) names += ", ";
      names += option.first;
    }
    error(entry.value_at, std::string(what) + " must be one of: " + names + "; got '" + *text + "'");
    return std::nullopt;
  }

  void error(const Location& where, std::string message) { sink_.error(where, std::move(message)); }
  void warning(const Location& where, std::string message) {
    sink_.warning(where, std::move(message));
  }

 private:
  // The interpolated text of a scalar, or nullopt after reporting a type or interpolation error.
  std::optional<std::string> scalar(const YAML::Node& node, const Location& where,
                                    std::string_view what, std::string_view expectation);
  void wrongType(const YAML::Node& node, const Location& where, std::string_view what,
                 std::string_view expectation);

  std::string path_;
  static inline const VariablePolicy kAnyVariable{};

  const Environment& env_;
  DiagnosticSink& sink_;
  const VariablePolicy& policy_;
};

// "a list", "a mapping", "nothing" or the scalar quoted: what a diagnostic says was found.
std::string describeNode(const YAML::Node& node);

}  // namespace sluice::catalog
