#include "server/net/http1.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace sluice::net::h1 {

namespace {

// RFC 9110 §5.6.2 tchar.
bool isTokenChar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != 0;
}

bool isToken(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!isTokenChar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Field values: visible characters, blanks and obs-text; no other control characters.
bool isFieldValue(std::string_view text) {
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

bool isTarget(std::string_view text) {
  if (text.empty()) return false;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::string_view trimBlanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

HeadResult result(HeadStatus status, std::string reason = {}, size_t consumed = 0) {
  HeadResult out;
  out.status = status;
  out.reason = std::move(reason);
  out.consumed = consumed;
  return out;
}

}  // namespace

namespace {

// Walks a head: `first_line` takes the start line and returns an error reason ("" when fine);
// each field line after it is checked and appended to `fields`.
// `bare_lf`: whether a line may end in LF alone (a response's head; never a request's).
template <typename FirstLine>
HeadResult parseHead(std::string_view buffer, const HeadLimits& limits,
                     std::vector<std::pair<std::string_view, std::string_view>>& fields, bool bare_lf,
                     FirstLine first_line) {
  size_t pos = 0;
  // Blank lines before the start line: skipped (RFC 9112 §2.2).
  while (pos < buffer.size() && (buffer[pos] == '\r' || buffer[pos] == '\n')) ++pos;
  const size_t start = pos;
  bool start_line = true;
  for (;;) {
    const void* found = std::memchr(buffer.data() + pos, '\n', buffer.size() - pos);
    if (!found) {
      if (buffer.size() - start > limits.max_head_bytes) {
        return result(HeadStatus::TooLarge, "headers exceed " + std::to_string(limits.max_head_bytes) + " bytes");
      }
      return result(HeadStatus::Incomplete);
    }
    const size_t eol = static_cast<size_t>(static_cast<const char*>(found) - buffer.data());
    if (eol + 1 - start > limits.max_head_bytes) {
      return result(HeadStatus::TooLarge, "headers exceed " + std::to_string(limits.max_head_bytes) + " bytes");
    }
    std::string_view line = buffer.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    else if (!bare_lf) return result(HeadStatus::Malformed, "line not ended by CRLF");
    pos = eol + 1;
    if (start_line) {
      start_line = false;
      std::string why = first_line(line);
      if (!why.empty()) return result(HeadStatus::Malformed, std::move(why));
      continue;
    }
    if (line.empty()) return result(HeadStatus::Complete, {}, pos);
    if (line.front() == ' ' || line.front() == '\t') return result(HeadStatus::Malformed, "obsolete header line folding");
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return result(HeadStatus::Malformed, "header field without a colon");
    const std::string_view name = line.substr(0, colon);
    if (!isToken(name)) return result(HeadStatus::Malformed, "malformed header field name");
    const std::string_view value = trimBlanks(line.substr(colon + 1));
    if (!isFieldValue(value)) return result(HeadStatus::Malformed, "control character in a header field value");
    if (fields.size() >= limits.max_fields) {
      return result(HeadStatus::TooLarge, "more than " + std::to_string(limits.max_fields) + " header fields");
    }
    fields.emplace_back(name, value);
  }
}

}  // namespace

HeadResult parseRequestHead(std::string_view buffer, const HeadLimits& limits, RequestHead& out) {
  out = RequestHead{};
  HeadResult parsed = parseHead(buffer, limits, out.fields, false, [&out](std::string_view line) -> std::string {
    const size_t first = line.find(' ');
    const size_t last = line.rfind(' ');
    if (first == std::string_view::npos || first == last) return "malformed request line";
    out.method = line.substr(0, first);
    out.target = line.substr(first + 1, last - first - 1);
    out.version = line.substr(last + 1);
    if (!isToken(out.method)) return "malformed request method";
    if (!isTarget(out.target)) return "malformed request target";
    if (out.version != "HTTP/1.1" && out.version != "HTTP/1.0") return "unsupported HTTP version";
    return {};
  });
  if (parsed.status == HeadStatus::TooLarge && parsed.reason.starts_with("headers")) {
    parsed.reason = "request " + parsed.reason;
  }
  if (parsed.status == HeadStatus::Complete) {
    // RFC 9112 §3.2: a request with more than one Host line is answered 400; two front ends
    // reading different ones would route the same request to different places.
    const auto hosts =
        std::ranges::count_if(out.fields, [](const auto& field) { return equalsNoCase(field.first, "host"); });
    if (hosts > 1) return result(HeadStatus::Malformed, "more than one Host header field");
  }
  return parsed;
}

HeadResult parseResponseHead(std::string_view buffer, const HeadLimits& limits, ResponseHead& out) {
  out = ResponseHead{};
  return parseHead(buffer, limits, out.fields, true, [&out](std::string_view line) -> std::string {
    // HTTP-version SP 3DIGIT SP [reason]; a missing reason (and its space) is tolerated.
    if (line.size() < 12 || !line.starts_with("HTTP/1.") || line[8] != ' ') return "malformed status line";
    out.version = line.substr(0, 8);
    int status = 0;
    for (size_t i = 9; i < 12; ++i) {
      if (line[i] < '0' || line[i] > '9') return "malformed status code";
      status = status * 10 + (line[i] - '0');
    }
    if (status < 100) return "malformed status code";
    if (line.size() > 12 && line[12] != ' ') return "malformed status line";
    out.status = status;
    out.reason = line.size() > 13 ? line.substr(13) : std::string_view{};
    return {};
  });
}

bool equalsNoCase(std::string_view a, std::string_view b) {
  constexpr auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; };
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

namespace {

// Calls `each` with every non-empty element of a comma-separated field value, blanks trimmed
// (RFC 9110 §5.6.1: a recipient accepts and ignores empty elements); stops when it returns false.
template <typename Each>
bool forEachElement(std::string_view list, Each each) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = trimBlanks(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (!item.empty() && !each(item)) return false;
  }
  return true;
}

}  // namespace

std::expected<BodyFraming, std::string> bodyFraming(
    Message message, std::span<const std::pair<std::string_view, std::string_view>> fields) {
  // Transfer-Encoding, every field as one list.
  bool has_codings_field = false;
  size_t codings_fields = 0;
  size_t codings = 0;
  size_t chunked_count = 0;
  bool chunked_last = false;
  bool other_coding = false;
  std::string coding_error;
  // Content-Length, every field and element: one value or an error (kept until it matters: a
  // response's Transfer-Encoding makes it irrelevant).
  bool has_length = false;
  std::optional<uint64_t> length;
  std::string length_error;

  for (const auto& [name, value] : fields) {
    if (equalsNoCase(name, "transfer-encoding")) {
      has_codings_field = true;
      ++codings_fields;
      forEachElement(value, [&](std::string_view item) {
        // transfer-coding = token *( OWS ";" OWS transfer-parameter ): the name decides.
        const std::string_view coding = trimBlanks(item.substr(0, item.find(';')));
        if (!isToken(coding)) {
          coding_error = "malformed Transfer-Encoding: " + std::string(value);
          return false;
        }
        ++codings;
        chunked_last = equalsNoCase(coding, "chunked");
        if (chunked_last) ++chunked_count;
        else other_coding = true;
        return true;
      });
    } else if (equalsNoCase(name, "content-length")) {
      has_length = true;
      if (trimBlanks(value).empty() && length_error.empty()) length_error = "empty Content-Length";
      forEachElement(value, [&](std::string_view item) {
        if (item.size() > 18 || item.find_first_not_of("0123456789") != std::string_view::npos) {
          length_error = "malformed Content-Length: " + std::string(value);
          return false;
        }
        uint64_t number = 0;
        for (const char c : item) number = number * 10 + static_cast<uint64_t>(c - '0');
        if (length && *length != number) {
          length_error = "differing Content-Length values";
          return false;
        }
        length = number;
        return true;
      });
    }
  }

  BodyFraming framing;
  if (has_codings_field) {
    if (!coding_error.empty()) return std::unexpected(coding_error);
    if (codings == 0) return std::unexpected("empty Transfer-Encoding");
    // RFC 9112 §6.1: chunked is never applied twice.
    if (chunked_count > 1) return std::unexpected("chunked applied more than once");
    framing.coded = other_coding;
    if (message == Message::Request) {
      // Two Transfer-Encoding lines are one list to RFC 9110 §5.3, but a front proxy that reads
      // only the first or the last line frames the body differently (request smuggling).
      if (codings_fields > 1) return std::unexpected("Transfer-Encoding given more than once");
      // §6.3 rule 3 allows processing such a request by its Transfer-Encoding alone, but a
      // disagreement between the two fields is what request smuggling is made of.
      if (has_length) return std::unexpected("both Content-Length and Transfer-Encoding given");
      // §6.3 rule 4: a request whose final coding is not chunked has no knowable length.
      if (!chunked_last) return std::unexpected("chunked is not the final transfer coding");
      framing.kind = BodyFraming::Kind::Chunked;
      return framing;
    }
    // A response: Transfer-Encoding overrides Content-Length (§6.3 rule 3), and the connection is
    // not trusted with another message after one that carried both.
    framing.close = has_length;
    if (chunked_last) {
      framing.kind = BodyFraming::Kind::Chunked;
    } else {
      framing.kind = BodyFraming::Kind::Close;
      framing.close = true;
    }
    return framing;
  }
  if (has_length) {
    if (!length_error.empty()) return std::unexpected(length_error);
    if (!length) return std::unexpected("empty Content-Length");
    framing.kind = *length == 0 ? BodyFraming::Kind::None : BodyFraming::Kind::Length;
    framing.length = *length;
    return framing;
  }
  if (message == Message::Response) {
    // §6.3 rule 8: the body runs until the server closes.
    framing.kind = BodyFraming::Kind::Close;
    framing.close = true;
  }
  // NOTE: the version is not an input: an HTTP/1.0 message with Transfer-Encoding (§6.1: framing
  // to be treated as faulty) is framed like any other.
  return framing;
}

size_t ChunkedDecoder::fail(std::string why, size_t used) {
  state_ = State::Failed;
  error_ = std::move(why);
  return used;
}

size_t ChunkedDecoder::feed(std::string_view in, std::string_view& data) {
  constexpr size_t kMaxDigits = 15;  // 2^60 bytes: no overflow, and no body is that large anyway
  constexpr size_t kMaxExtension = 4096;
  constexpr size_t kMaxTrailer = 16384;
  data = {};
  size_t i = 0;
  while (i < in.size()) {
    const char c = in[i];
    switch (state_) {
      case State::Size: {
        int digit = -1;
        if (c >= '0' && c <= '9') digit = c - '0';
        else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
        if (digit >= 0) {
          if (++digits_ > kMaxDigits) return fail("chunk size too large", i);
          remaining_ = remaining_ * 16 + static_cast<uint64_t>(digit);
          ++i;
          break;
        }
        if (digits_ == 0) return fail("malformed chunk size", i);
        if (c == ';' || c == ' ' || c == '\t') {
          state_ = State::Extension;
          extension_bytes_ = 0;
        } else if (c == '\r') {
          state_ = State::SizeLf;
        } else if (c == '\n' && bare_lf_) {
          state_ = remaining_ == 0 ? State::Trailer : State::Data;
          trailer_line_ = 0;
        } else {
          return fail(c == '\n' ? "chunk size line not ended by CRLF" : "malformed chunk size", i);
        }
        ++i;
        break;
      }
      case State::Extension:
        if (c == '\r') state_ = State::SizeLf;
        else if (c == '\n' && !bare_lf_) return fail("chunk size line not ended by CRLF", i);
        else if (c == '\n') state_ = remaining_ == 0 ? State::Trailer : State::Data, trailer_line_ = 0;
        else if (++extension_bytes_ > kMaxExtension) return fail("chunk extension too long", i);
        ++i;
        break;
      case State::SizeLf:
        if (c != '\n') return fail("malformed chunk size line", i);
        state_ = remaining_ == 0 ? State::Trailer : State::Data;
        trailer_line_ = 0;
        ++i;
        break;
      case State::Data: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size() - i));
        data = in.substr(i, take);
        remaining_ -= take;
        i += take;
        if (remaining_ == 0) state_ = State::DataCr;
        return i;
      }
      case State::DataCr:
        if (c == '\r') state_ = State::DataLf;
        else if (c == '\n' && bare_lf_) state_ = State::Size, digits_ = 0;
        else if (c == '\n') return fail("chunk data not ended by CRLF", i);
        else return fail("chunk data longer than its size", i);
        ++i;
        break;
      case State::DataLf:
        if (c != '\n') return fail("chunk data longer than its size", i);
        state_ = State::Size;
        digits_ = 0;
        ++i;
        break;
      case State::Trailer:
        // Each trailer line ends at LF; an empty one ends the body.
        if (++trailer_bytes_ > kMaxTrailer) return fail("chunked trailer too long", i);
        if (c == '\r') {
          state_ = State::TrailerLf;
        } else if (c == '\n') {
          if (!bare_lf_) return fail("chunked trailer line not ended by CRLF", i);
          if (trailer_line_ == 0) {
            state_ = State::Done;
            return i + 1;
          }
          trailer_line_ = 0;
        } else {
          ++trailer_line_;
        }
        ++i;
        break;
      case State::TrailerLf:
        if (c != '\n') return fail("malformed chunked trailer", i);
        if (trailer_line_ == 0) {
          state_ = State::Done;
          return i + 1;
        }
        trailer_line_ = 0;
        state_ = State::Trailer;
        ++i;
        break;
      case State::Done:
      case State::Failed:
        return i;
    }
  }
  return i;
}

}  // namespace sluice::net::h1
