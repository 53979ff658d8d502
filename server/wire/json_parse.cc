#include "server/wire/json_parse.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "server/text/utf8.h"

namespace sluice::wire {

bool nestsDeeperThan(std::string_view text, int limit) {
  int depth = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char c = *p++;
    if (c == '"') {
      // Skip the string: to the next quote not escaped by a backslash.
      for (;;) {
        const auto* quote = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
        if (quote == nullptr) return false;  // unterminated: malformed, the parse says so
        size_t backslashes = 0;
        for (const char* q = quote; q > p && q[-1] == '\\'; --q) ++backslashes;
        p = quote + 1;
        if (backslashes % 2 == 0) break;
      }
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

namespace {

// A recursive-descent reader that builds the same value Json::parse builds from the same text, and
// fails where it fails. nlohmann's lexer reads a byte at a time through an input adapter and keeps
// a copy of every token's bytes for its error messages; on the gateway's hot path (every answer and
// stream event of a translated request) that was most of the cost of a parse. Here strings are
// copied a run at a time and numbers converted in place.
//
// What nlohmann does, kept exactly:
//  - whitespace is space, tab, CR and LF; a UTF-8 byte order mark at the start is skipped (EF not
//    followed by BB BF is an error);
//  - a NUL byte where a token may start ends the input (so "{}\0junk" parses as {});
//  - strings: control characters must be escaped; the escapes are JSON's; \u escapes pair
//    surrogates or fail; the UTF-8 must be well formed (no overlongs, no encoded surrogates, nothing
//    past U+10FFFF);
//  - numbers: an integer without fraction or exponent is unsigned when it has no minus sign and fits
//    64 bits, signed when it has one and fits, otherwise a double; a double that overflows is an
//    error, one that underflows is what strtod gives;
//  - duplicate keys: the first one's position, the last one's value (ordered_map's operator[]).
class Reader {
 public:
  Reader(const char* begin, const char* end) : p_(begin), end_(end) {}

  bool document(Json& out) {
    if (p_ < end_ && static_cast<unsigned char>(*p_) == 0xEF) {
      if (end_ - p_ < 3 || static_cast<unsigned char>(p_[1]) != 0xBB || static_cast<unsigned char>(p_[2]) != 0xBF) {
        return false;
      }
      p_ += 3;
    }
    skipWhitespace();
    if (!value(out, 0)) return false;
    skipWhitespace();
    return p_ == end_ || *p_ == '\0';
  }

 private:
  void skipWhitespace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  bool value(Json& out, int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': return object(out, depth + 1);
      case '[': return array(out, depth + 1);
      case '"': {
        std::string text;
        if (!string(text)) return false;
        out = std::move(text);
        return true;
      }
      case 't': return literal("true", 4) && (out = true, true);
      case 'f': return literal("false", 5) && (out = false, true);
      case 'n': return literal("null", 4) && (out = nullptr, true);
      default: return number(out);
    }
  }

  bool literal(const char* word, size_t size) {
    if (static_cast<size_t>(end_ - p_) < size || std::memcmp(p_, word, size) != 0) return false;
    p_ += size;
    return true;
  }

  bool object(Json& out, int depth) {
    if (depth > kMaxJsonDepth) return false;
    ++p_;  // {
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    members.reserve(8);  // answers have 8 members at the top, most others fewer: no regrowth (a third quicker)
    skipWhitespace();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    std::string key;
    for (;;) {
      if (p_ == end_ || *p_ != '"') return false;
      key.clear();
      if (!string(key)) return false;
      skipWhitespace();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      skipWhitespace();
      if (!value(members[key], depth)) return false;
      if (const After next = after('}'); next != After::More) return next == After::End;
    }
  }

  bool array(Json& out, int depth) {
    if (depth > kMaxJsonDepth) return false;
    ++p_;  // [
    out = Json::array();
    auto& elements = out.get_ref<Json::array_t&>();
    skipWhitespace();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      elements.emplace_back();
      if (!value(elements.back(), depth)) return false;
      if (const After next = after(']'); next != After::More) return next == After::End;
    }
  }

  // After a member or an element: ',' (More; the space after it skipped too), the container's
  // `close` (End; consumed), or anything else (Bad).
  enum class After { More, End, Bad };
  After after(char close) {
    skipWhitespace();
    if (p_ == end_) return After::Bad;
    if (*p_ == ',') {
      ++p_;
      skipWhitespace();
      return After::More;
    }
    if (*p_ != close) return After::Bad;
    ++p_;
    return After::End;
  }

  // After the opening quote; leaves p_ after the closing one.
  bool string(std::string& out) {
    ++p_;
    const char* run = p_;
    while (p_ < end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out.append(run, p_);
        ++p_;
        return true;
      }
      if (c == '\\') {
        out.append(run, p_);
        ++p_;
        if (!escape(out)) return false;
        run = p_;
        continue;
      }
      if (c < 0x20) return false;
      if (c < 0x80) {
        ++p_;
        continue;
      }
      if (!multibyte()) return false;
    }
    return false;  // no closing quote
  }

  // One UTF-8 sequence of two to four bytes, as nlohmann's lexer accepts them (RFC 3629, text/utf8.h).
  bool multibyte() {
    const size_t size = text::utf8SequenceLength(std::string_view(p_, static_cast<size_t>(end_ - p_)), 0);
    if (size == 0) return false;
    p_ += size;
    return true;
  }

  bool hex4(unsigned& out) {
    if (end_ - p_ < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      out <<= 4;
      if (digit(c)) out |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') out |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') out |= static_cast<unsigned>(c - 'A' + 10);
      else return false;
    }
    return true;
  }

  // After the backslash.
  bool escape(std::string& out) {
    if (p_ == end_) return false;
    const char c = *p_++;
    switch (c) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default: return false;
    }
    unsigned code = 0;
    if (!hex4(code)) return false;
    if (code >= 0xD800 && code <= 0xDBFF) {
      unsigned low = 0;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    } else if (code >= 0xDC00 && code <= 0xDFFF) {
      return false;
    }
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
    return true;
  }

  bool number(Json& out) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_) return false;
    if (*p_ == '0') {
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      while (p_ < end_ && digit(*p_)) ++p_;
    } else {
      return false;
    }
    bool integral = true;
    if (p_ < end_ && *p_ == '.') {
      integral = false;
      ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ < end_ && digit(*p_)) ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ < end_ && digit(*p_)) ++p_;
    }
    if (integral) {
      if (negative) {
        int64_t number = 0;
        if (std::from_chars(start, p_, number).ec == std::errc{}) {
          out = number;
          return true;
        }
      } else {
        uint64_t number = 0;
        if (std::from_chars(start, p_, number).ec == std::errc{}) {
          out = number;
          return true;
        }
      }
    }
    double number = 0;
    const auto converted = std::from_chars(start, p_, number);
    if (converted.ec == std::errc::result_out_of_range) {
      number = std::strtod(std::string(start, p_).c_str(), nullptr);  // what a parse gives an underflow
    } else if (converted.ec != std::errc{}) {
      return false;
    }
    if (!std::isfinite(number)) return false;
    out = number;
    return true;
  }

  const char* p_;
  const char* const end_;
};

}  // namespace

Json parseJsonText(std::string_view text) {
  Json out;
  Reader reader(text.data(), text.data() + text.size());
  if (!reader.document(out)) return Json(Json::value_t::discarded);
  return out;
}

namespace {

// `text` as a JSON string, as nlohmann's dump writes it (no ASCII escaping of non-ASCII), or false
// when it is not well-formed UTF-8 (the caller lets nlohmann replace what is broken).
bool appendQuoted(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const size_t start = out.size();
  out += '"';
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* const end = p + text.size();
  const auto* run = p;
  const auto flush = [&](const unsigned char* upto) { out.append(reinterpret_cast<const char*>(run), upto - run); };
  while (p < end) {
    const unsigned char c = *p;
    if (c >= 0x80) {
      const size_t size =
          text::utf8SequenceLength(std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(end - p)), 0);
      if (size == 0) {
        out.resize(start);
        return false;
      }
      p += size;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++p;
      continue;
    }
    flush(p);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
    run = ++p;
  }
  flush(p);
  out += '"';
  return true;
}

void appendNlohmann(std::string& out, const Json& value) { out += value.dump(-1, ' ', false, Json::error_handler_t::replace); }

void appendString(std::string& out, const std::string& text) {
  if (!appendQuoted(out, text)) appendNlohmann(out, Json(text));
}

void appendValue(std::string& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.get_ref<const Json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        appendString(out, key);
        out += ':';
        appendValue(out, member);
      }
      out += '}';
      return;
    }
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const Json& element : value.get_ref<const Json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        appendValue(out, element);
      }
      out += ']';
      return;
    }
    case Json::value_t::string: appendString(out, value.get_ref<const std::string&>()); return;
    case Json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case Json::value_t::null: out += "null"; return;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: {
      char digits[24];
      const auto written = value.is_number_unsigned() ? std::to_chars(digits, digits + sizeof digits, value.get<uint64_t>())
                                                       : std::to_chars(digits, digits + sizeof digits, value.get<int64_t>());
      out.append(digits, written.ptr);
      return;
    }
    default: appendNlohmann(out, value);  // floats (nlohmann's shortest form), binary, discarded
  }
}

}  // namespace

std::string dumpJsonText(const Json& value) {
  std::string out;
  out.reserve(256);
  appendValue(out, value);
  return out;
}

Json parseBounded(std::string_view text) {
  if (nestsDeeperThan(text)) return Json(Json::value_t::discarded);
  return parseJsonText(text);
}

}  // namespace sluice::wire
