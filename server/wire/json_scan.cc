#include "server/wire/json_scan.h"

#include <cstring>

namespace sluice::wire {

namespace {

// Nesting deeper than this is refused (nlohmann has no limit, but the gateway never needs one this
// deep, and a bounded walk cannot be made to recurse without end).
constexpr int kMaxDepth = 512;

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
      for (size_t k = 0; k < stop; ++k) {
        if (static_cast<unsigned char>(base[k]) < 0x20) return false;
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

  // The top-level object, noting the value text of the last member named `key`.
  bool topLevel(std::string_view key, std::optional<std::string_view>& found, bool& escaped_key) {
    if (!at('{')) return false;
    ++i_;
    space();
    if (at('}')) {
      ++i_;
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
      if (!escaped && name == key) found = s_.substr(start, i_ - start);
      space();
      if (at(',')) {
        ++i_;
        continue;
      }
      if (!at('}')) return false;
      ++i_;
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
      space();
      if (at(',')) {
        ++i_;
        continue;
      }
      if (!at('}')) return false;
      ++i_;
      return true;
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
      space();
      if (at(',')) {
        ++i_;
        continue;
      }
      if (!at(']')) return false;
      ++i_;
      return true;
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

MemberScan scanTopLevelMember(std::string_view json, std::string_view key) {
  MemberScan result;
  Walker walk(json);
  walk.space();
  std::optional<std::string_view> found;
  bool escaped_key = false;
  if (!walk.topLevel(key, found, escaped_key) || escaped_key) return result;
  walk.space();
  if (!walk.done()) return result;
  result.walked = true;
  result.value = found;
  return result;
}

}  // namespace sluice::wire
