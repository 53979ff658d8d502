#include "server/wire/multipart.h"

#include <cctype>
#include <cstring>

namespace sluice::wire {

namespace {

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// RFC 2046 bchars: DIGIT / ALPHA / "'()+_,-./:=?" and space (never last).
bool boundaryChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("'()+_,-./:=? ", c) != nullptr;
}

// The parameters of a header value after its first `;`, as (name, value) pairs; values unquoted
// (a backslash escapes the next character inside quotes). Calls `each` per parameter until it
// returns true.
template <typename Each>
void forEachParameter(std::string_view value, Each each) {
  size_t i = value.find(';');
  while (i != std::string_view::npos && i < value.size()) {
    ++i;
    const size_t equals = value.find('=', i);
    const size_t semicolon = value.find(';', i);
    if (equals == std::string_view::npos || (semicolon != std::string_view::npos && semicolon < equals)) {
      i = semicolon;
      continue;
    }
    const std::string_view name = trim(value.substr(i, equals - i));
    size_t j = equals + 1;
    while (j < value.size() && (value[j] == ' ' || value[j] == '\t')) ++j;
    std::string text;
    if (j < value.size() && value[j] == '"') {
      ++j;
      while (j < value.size() && value[j] != '"') {
        if (value[j] == '\\' && j + 1 < value.size()) ++j;
        text += value[j++];
      }
      i = value.find(';', j);
    } else {
      const size_t end = value.find(';', j);
      text = std::string(trim(value.substr(j, end == std::string_view::npos ? value.size() - j : end - j)));
      i = end;
    }
    if (each(name, text)) return;
  }
}

}  // namespace

std::optional<std::string> multipartBoundary(std::string_view content_type) {
  const size_t semicolon = content_type.find(';');
  const std::string_view type = trim(content_type.substr(0, semicolon));
  if (!equalsNoCase(type, "multipart/form-data") || semicolon == std::string_view::npos) return std::nullopt;
  std::optional<std::string> boundary;
  forEachParameter(content_type, [&](std::string_view name, const std::string& value) {
    if (!equalsNoCase(name, "boundary")) return false;
    boundary = value;
    return true;
  });
  if (!boundary || boundary->empty() || boundary->size() > 70 || boundary->back() == ' ') return std::nullopt;
  for (const char c : *boundary) {
    if (!boundaryChar(c)) return std::nullopt;
  }
  return boundary;
}

namespace {

// How many parameters named `name` (or `name*`) a Content-Disposition value might hold to any
// reader: every `;` followed by blanks, `name`, blanks and `=` or `*`, counted even inside quotes.
// A parser that splits quoted strings differently from ours still finds no more than this.
size_t nameParameterShapes(std::string_view value) {
  size_t count = 0;
  for (size_t i = value.find(';'); i != std::string_view::npos; i = value.find(';', i + 1)) {
    size_t j = i + 1;
    while (j < value.size() && (value[j] == ' ' || value[j] == '\t')) ++j;
    if (value.size() - j < 4 || !equalsNoCase(value.substr(j, 4), "name")) continue;
    j += 4;
    while (j < value.size() && (value[j] == ' ' || value[j] == '\t')) ++j;
    if (j < value.size() && (value[j] == '=' || value[j] == '*')) ++count;
  }
  return count;
}

}  // namespace

std::expected<std::optional<std::string>, std::string> dispositionName(std::string_view block) {
  std::optional<std::string> name;
  bool disposition = false;
  while (!block.empty()) {
    const size_t end = block.find("\r\n");
    const std::string_view line = block.substr(0, end);
    block = end == std::string_view::npos ? std::string_view() : block.substr(end + 2);
    if (line.empty()) continue;
    if (line.front() == ' ' || line.front() == '\t') {
      return std::unexpected(std::string("a multipart part's header continues on a folded line"));
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !equalsNoCase(trim(line.substr(0, colon)), "content-disposition")) continue;
    if (disposition) return std::unexpected(std::string("a multipart part has more than one Content-Disposition"));
    disposition = true;
    const std::string_view value = line.substr(colon + 1);
    size_t names = 0;
    bool encoded = false;
    forEachParameter(value, [&](std::string_view key, const std::string& text) {
      if (key.size() > 4 && equalsNoCase(key.substr(0, 4), "name") && trim(key.substr(4)).starts_with('*')) {
        encoded = true;  // name*=, or a continuation name*0= (RFC 2231)
      }
      if (!equalsNoCase(key, "name")) return false;
      if (++names == 1) name = text;
      return false;
    });
    if (encoded) {
      return std::unexpected(std::string("a multipart part's Content-Disposition has name*= (an encoded name); "
                                         "send name=\"...\""));
    }
    if (names > 1 || nameParameterShapes(value) > 1) {
      return std::unexpected(std::string("a multipart part's Content-Disposition has more than one name"));
    }
  }
  return name;
}

bool isModelField(std::string_view name) { return equalsNoCase(trim(name), "model"); }

MultipartModelRewriter::MultipartModelRewriter(std::string_view boundary, std::optional<std::string> replacement,
                                               MultipartLimits limits)
    : delimiter_("\r\n--" + std::string(boundary)), replacement_(std::move(replacement)), limits_(limits) {}

std::unexpected<std::string> MultipartModelRewriter::fail(std::string message) {
  failed_ = std::move(message);
  return std::unexpected(*failed_);
}

std::expected<void, std::string> MultipartModelRewriter::startPart() {
  if (++parts_ > limits_.max_parts) {
    return fail("the multipart body has more than " + std::to_string(limits_.max_parts) + " parts");
  }
  const auto name = dispositionName(header_);
  if (!name) return fail(name.error());
  holding_ = *name && isModelField(**name);
  if (holding_) {
    if (model_named_) return fail("the multipart body names 'model' more than once");
    model_named_ = true;
  }
  header_.clear();
  state_ = State::Content;
  matched_ = 0;
  return {};
}

std::expected<void, std::string> MultipartModelRewriter::feed(std::string_view in, std::string* out) {
  if (failed_) return std::unexpected(*failed_);
  consumed_ += in.size();
  const auto emit = [&](std::string_view bytes) {
    if (out) out->append(bytes);
  };
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    switch (state_) {
      case State::Preamble:
      case State::Content: {
        if (holding_) {
          while (i < n && matched_ < delimiter_.size()) {
            const char c = in[i++];
            value_ += c;
            if (c == delimiter_[matched_]) {
              ++matched_;
            } else {
              matched_ = c == '\r' ? 1 : 0;
            }
            if (value_.size() > limits_.max_model_bytes + delimiter_.size()) {
              return fail("the multipart 'model' field is longer than " + std::to_string(limits_.max_model_bytes) +
                          " bytes");
            }
          }
          if (matched_ < delimiter_.size()) break;
          model_ = value_.substr(0, value_.size() - delimiter_.size());
          emit(replacement_ ? std::string_view(*replacement_) : std::string_view(*model_));
          emit(delimiter_);
          value_.clear();
          holding_ = false;
          matched_ = 0;
          after_.clear();
          state_ = State::AfterDelimiter;
          break;
        }
        // Everything else passes as it came; only the delimiter is looked for. A delimiter holds
        // one CR, at its start, so a mismatch restarts the match at that byte when it is a CR.
        const size_t start = i;
        bool found = false;
        while (i < n) {
          if (matched_ == 0) {
            const void* cr = std::memchr(in.data() + i, '\r', n - i);
            if (cr == nullptr) {
              i = n;
              break;
            }
            i = static_cast<size_t>(static_cast<const char*>(cr) - in.data());
          }
          const char c = in[i++];
          if (c == delimiter_[matched_]) {
            if (++matched_ == delimiter_.size()) {
              found = true;
              break;
            }
          } else {
            matched_ = c == '\r' ? 1 : 0;
          }
        }
        emit(in.substr(start, i - start));
        if (found) {
          matched_ = 0;
          after_.clear();
          state_ = State::AfterDelimiter;
        }
        break;
      }
      case State::AfterDelimiter: {
        // "--" closes the body; otherwise optional padding (spaces, tabs), then CRLF and the headers.
        const char c = in[i++];
        emit(std::string_view(&c, 1));
        const bool after_cr = !after_.empty() && after_.back() == '\r';
        after_ += c;
        if (after_ == "-") break;
        if (after_ == "--") {
          state_ = State::Epilogue;
          break;
        }
        if (after_cr) {
          if (c != '\n') return fail("malformed multipart body: a delimiter is not followed by CRLF");
          header_.clear();
          state_ = State::Headers;
          break;
        }
        if (after_.front() == '-' || after_.size() > 64 || (c != ' ' && c != '\t' && c != '\r')) {
          return fail("malformed multipart body: a delimiter is not followed by CRLF or \"--\"");
        }
        break;
      }
      case State::Headers: {
        const size_t start = i;
        bool ended = false;
        while (i < n) {
          header_ += in[i++];
          if (header_ == "\r\n" || (header_.size() >= 4 && header_.ends_with("\r\n\r\n"))) {
            ended = true;
            break;
          }
          if (header_.size() > limits_.max_header_bytes) {
            return fail("a multipart part's headers exceed " + std::to_string(limits_.max_header_bytes) + " bytes");
          }
        }
        emit(in.substr(start, i - start));
        if (ended) {
          if (auto started = startPart(); !started) return started;
        }
        break;
      }
      case State::Epilogue:
        emit(in.substr(i));
        i = n;
        break;
    }
  }
  return {};
}

std::expected<void, std::string> MultipartModelRewriter::finish() const {
  if (failed_) return std::unexpected(*failed_);
  if (state_ != State::Epilogue) return std::unexpected(std::string("the multipart body ended before its closing boundary"));
  return {};
}

}  // namespace sluice::wire
