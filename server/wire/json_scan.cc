#include "server/wire/json_scan.h"

#include "server/text/utf8.h"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

namespace sluice::wire {

namespace {

// The walk recurses once per level of nesting, on a connection thread's 256 KB stack: deeper
// text does not walk, and the caller falls back to a parse (nlohmann's is iterative). Real
// requests and answers nest a few dozen levels at most.
constexpr int kMaxDepth = 200;

class Walker {
 public:
  explicit Walker(std::string_view text) : s_(text) {}

  void space() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
      ++i_;
    }
  }

  void bom() {
    if (s_.starts_with("\xEF\xBB\xBF")) i_ += 3;
  }

  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool done() const { return i_ == s_.size(); }
  size_t position() const { return i_; }

  // A string; `raw` is its text between the quotes, escapes left as they are.
  bool string(std::string_view* raw = nullptr, bool* escaped = nullptr) {
    if (!at('"')) return false;
    const size_t start = ++i_;
    bool saw_escape = false;
    while (i_ < s_.size()) {
      // Jump to the next quote or backslash; control characters are checked over the run.
      const char* base = s_.data() + i_;
      const size_t left = s_.size() - i_;
      const void* quote = std::memchr(base, '"', left);
      const size_t run_end = quote ? static_cast<size_t>(static_cast<const char*>(quote) - base) : left;
      const void* slash = std::memchr(base, '\\', run_end);
      const size_t stop = slash ? static_cast<size_t>(static_cast<const char*>(slash) - base) : run_end;
      // Control characters are not allowed raw, and the text must be UTF-8 (as a parse requires).
      for (size_t k = 0; k < stop; ++k) {
        const unsigned char c = static_cast<unsigned char>(base[k]);
        if (c < 0x20) return false;
        if (c >= 0x80) {
          const size_t n = text::utf8SequenceLength(s_, i_ + k);
          if (n == 0 || k + n > stop) return false;
          k += n - 1;
        }
      }
      i_ += stop;
      if (i_ >= s_.size()) return false;
      if (s_[i_] == '"') {
        if (raw) *raw = s_.substr(start, i_ - start);
        if (escaped) *escaped = saw_escape;
        ++i_;
        return true;
      }
      saw_escape = true;
      if (!escape()) return false;
    }
    return false;
  }

  bool value(int depth) {
    if (i_ >= s_.size()) return false;
    switch (s_[i_]) {
      case '"': return string();
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return number();
    }
  }

  // The top-level object, noting the value text of the last member named by each key.
  bool topLevel(std::span<const std::string_view> keys, MembersScan& scan, bool& escaped_key) {
    if (!at('{')) return false;
    ++i_;
    space();
    if (at('}')) {
      scan.closing_brace = i_++;
      return true;
    }
    for (;;) {
      space();
      std::string_view name;
      bool escaped = false;
      if (!string(&name, &escaped)) return false;
      escaped_key = escaped_key || escaped;
      space();
      if (!at(':')) return false;
      ++i_;
      space();
      const size_t start = i_;
      if (!value(1)) return false;
      ++scan.members;
      if (!escaped) {
        for (size_t k = 0; k < keys.size(); ++k) {
          if (name != keys[k]) continue;
          if (scan.values[k] && !scan.repeated) scan.repeated = k;
          scan.values[k] = s_.substr(start, i_ - start);
        }
      }
      space();
      if (at(',')) {
        ++i_;
        continue;
      }
      if (!at('}')) return false;
      scan.closing_brace = i_++;
      return true;
    }
  }

 private:
  bool escape() {
    ++i_;  // the backslash
    if (i_ >= s_.size()) return false;
    const char c = s_[i_++];
    switch (c) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': return true;
      case 'u':
        if (s_.size() - i_ < 4) return false;
        for (int k = 0; k < 4; ++k, ++i_) {
          const char h = s_[i_];
          if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) return false;
        }
        return true;
      default: return false;
    }
  }

  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  bool digits() {
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > start;
  }

  bool number() {
    if (at('-')) ++i_;
    if (at('0')) {
      ++i_;
    } else if (i_ < s_.size() && s_[i_] >= '1' && s_[i_] <= '9') {
      digits();
    } else {
      return false;
    }
    if (at('.')) {
      ++i_;
      if (!digits()) return false;
    }
    if (at('e') || at('E')) {
      ++i_;
      if (at('+') || at('-')) ++i_;
      if (!digits()) return false;
    }
    return true;
  }

  bool object(int depth) {
    if (depth > kMaxDepth) return false;
    ++i_;  // {
    space();
    if (at('}')) {
      ++i_;
      return true;
    }
    for (;;) {
      space();
      if (!string()) return false;
      space();
      if (!at(':')) return false;
      ++i_;
      space();
      if (!value(depth)) return false;
      if (const After next = after('}'); next != After::More) return next == After::End;
    }
  }

  bool array(int depth) {
    if (depth > kMaxDepth) return false;
    ++i_;  // [
    space();
    if (at(']')) {
      ++i_;
      return true;
    }
    for (;;) {
      space();
      if (!value(depth)) return false;
      if (const After next = after(']'); next != After::More) return next == After::End;
    }
  }

  // After a member or an element: ',' (More), the container's `close` (End; both consumed), or
  // anything else (Bad).
  enum class After { More, End, Bad };
  After after(char close) {
    space();
    if (at(',')) {
      ++i_;
      return After::More;
    }
    if (!at(close)) return After::Bad;
    ++i_;
    return After::End;
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

MembersScan scanTopLevelMembers(std::string_view json, std::span<const std::string_view> keys) {
  MembersScan scan;
  scan.values.resize(keys.size());
  Walker walk(json);
  walk.bom();  // a parse skips a leading byte-order mark too
  walk.space();
  bool escaped_key = false;
  if (!walk.topLevel(keys, scan, escaped_key) || escaped_key) return MembersScan{};
  walk.space();
  if (!walk.done()) return MembersScan{};
  scan.walked = true;
  return scan;
}

MemberScan scanTopLevelMember(std::string_view json, std::string_view key) {
  const MembersScan scan = scanTopLevelMembers(json, std::span<const std::string_view>(&key, 1));
  MemberScan result;
  result.walked = scan.walked;
  if (scan.walked) result.value = scan.values[0];
  return result;
}

namespace {

// Notes the keys of the top-level object only; values are skipped, nothing is kept.
class TopLevelKeys : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit TopLevelKeys(std::span<const std::string_view> keys) : keys_(keys), seen_(keys.size(), false) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  bool key(string_t& name) override {
    if (depth_ != 1) return true;
    for (size_t k = 0; k < keys_.size(); ++k) {
      if (name != keys_[k]) continue;
      if (seen_[k]) {
        repeated_ = k;
        return false;  // the answer is known: stop parsing
      }
      seen_[k] = true;
    }
    return true;
  }

  std::optional<size_t> repeated() const { return repeated_; }

 private:
  bool open() {
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  std::span<const std::string_view> keys_;
  std::vector<bool> seen_;
  int depth_ = 0;
  std::optional<size_t> repeated_;
};

}  // namespace

std::optional<size_t> repeatedTopLevelKey(std::string_view json, std::span<const std::string_view> keys) {
  TopLevelKeys sax(keys);
  // Not strict: what follows the value (after a NUL, say) is the parse's business, not this one's.
  nlohmann::json::sax_parse(json.begin(), json.end(), &sax, nlohmann::json::input_format_t::json, false);
  return sax.repeated();
}

std::optional<std::string> editTopLevelMembers(std::string_view json, std::span<const MemberEdit> edits) {
  std::vector<std::string_view> keys;
  keys.reserve(edits.size());
  for (const MemberEdit& edit : edits) keys.push_back(edit.key);
  return editTopLevelMembers(json, scanTopLevelMembers(json, keys), keys, edits);
}

std::optional<std::string> editTopLevelMembers(std::string_view json, const MembersScan& scan,
                                               std::span<const std::string_view> scanned_keys,
                                               std::span<const MemberEdit> edits) {
  if (!scan.walked) return std::nullopt;
  // Where each edit's member is, by its key's place among the scanned keys.
  std::vector<std::optional<std::string_view>> found;
  found.reserve(edits.size());
  for (const MemberEdit& edit : edits) {
    const auto at = std::find(scanned_keys.begin(), scanned_keys.end(), edit.key);
    if (at == scanned_keys.end()) return editTopLevelMembers(json, edits);  // not scanned for: walk again
    found.push_back(scan.values[static_cast<size_t>(at - scanned_keys.begin())]);
  }

  struct Splice {
    size_t at;
    size_t length;
    std::string_view text;
  };
  std::vector<Splice> splices;
  std::string appended;
  bool has_members = scan.members > 0;
  for (size_t k = 0; k < edits.size(); ++k) {
    if (const auto& value = found[k]) {
      splices.push_back({static_cast<size_t>(value->data() - json.data()), value->size(), edits[k].value_json});
      continue;
    }
    if (has_members) appended.push_back(',');
    appended.push_back('"');
    appended.append(edits[k].key);  // keys are the gateway's own names: no escaping needed
    appended.append("\":");
    appended.append(edits[k].value_json);
    has_members = true;
  }
  if (!appended.empty()) splices.push_back({scan.closing_brace, 0, appended});
  std::sort(splices.begin(), splices.end(), [](const Splice& a, const Splice& b) { return a.at < b.at; });

  std::string out;
  size_t grow = 0;
  for (const Splice& splice : splices) grow += splice.text.size();
  out.reserve(json.size() + grow);
  size_t copied = 0;
  for (const Splice& splice : splices) {
    out.append(json.substr(copied, splice.at - copied));
    out.append(splice.text);
    copied = splice.at + splice.length;
  }
  out.append(json.substr(copied));
  return out;
}

}  // namespace sluice::wire
