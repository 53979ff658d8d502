#include "bench/loadgen/response_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace sluice::bench {

namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool containsIgnoreCase(std::string_view haystack, std::string_view needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         }) != haystack.end();
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

}  // namespace

void ResponseParser::reset() {
  state_ = State::Head;
  head_.clear();
  line_.clear();
  status_ = 0;
  keep_alive_ = true;
  remaining_ = 0;
  body_bytes_ = 0;
}

bool ResponseParser::parseHead() {
  std::string_view head = head_;
  const size_t first_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, first_end);
  if (!status_line.starts_with("HTTP/1.")) return false;
  if (status_line.size() < 12) return false;
  if (status_line.substr(0, 8) == "HTTP/1.0") keep_alive_ = false;
  std::from_chars(status_line.data() + 9, status_line.data() + 12, status_);
  bool chunked = false;
  bool has_length = false;
  size_t length = 0;
  size_t at = first_end + 2;
  while (at < head.size()) {
    size_t end = head.find("\r\n", at);
    if (end == std::string_view::npos) end = head.size();
    const std::string_view line = head.substr(at, end - at);
    at = end + 2;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trim(line.substr(colon + 1));
    if (equalsIgnoreCase(name, "content-length")) {
      has_length = std::from_chars(value.data(), value.data() + value.size(), length).ec == std::errc{};
    } else if (equalsIgnoreCase(name, "transfer-encoding")) {
      chunked = containsIgnoreCase(value, "chunked");
    } else if (equalsIgnoreCase(name, "connection")) {
      if (containsIgnoreCase(value, "close")) keep_alive_ = false;
      if (containsIgnoreCase(value, "keep-alive")) keep_alive_ = true;
    }
  }
  if (status_ == 204 || status_ == 304 || (status_ >= 100 && status_ < 200)) {
    state_ = State::Done;
  } else if (chunked) {
    state_ = State::ChunkSize;
  } else if (has_length) {
    remaining_ = length;
    state_ = length == 0 ? State::Done : State::Body;
  } else {
    keep_alive_ = false;
    state_ = State::UntilClose;
  }
  return true;
}

ResponseParser::Result ResponseParser::feed(std::string_view bytes, size_t& used) {
  size_t at = 0;
  while (state_ != State::Done) {
    if (at >= bytes.size() && state_ != State::Head) break;
    switch (state_) {
      case State::Head: {
        if (at >= bytes.size()) {
          used = at;
          return Result::NeedMore;
        }
        // Search only the new bytes plus the three before them for the blank line.
        const size_t old = head_.size();
        head_.append(bytes.substr(at));
        const size_t from = old >= 3 ? old - 3 : 0;
        const size_t end = head_.find("\r\n\r\n", from);
        if (end == std::string::npos) {
          if (head_.size() > 1 << 20) return Result::Malformed;
          used = bytes.size();
          return Result::NeedMore;
        }
        at += end + 4 - old;
        head_.resize(end + 2);
        if (!parseHead()) return Result::Malformed;
        break;
      }
      case State::Body: {
        const size_t take = std::min(remaining_, bytes.size() - at);
        on_body_(bytes.substr(at, take));
        body_bytes_ += take;
        at += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::Done;
        break;
      }
      case State::UntilClose: {
        on_body_(bytes.substr(at));
        body_bytes_ += bytes.size() - at;
        at = bytes.size();
        break;
      }
      case State::ChunkSize:
      case State::ChunkDataEnd:
      case State::Trailers: {
        const size_t end = bytes.find('\n', at);
        line_.append(bytes.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
        if (end == std::string_view::npos) {
          at = bytes.size();
          break;
        }
        at = end + 1;
        std::string_view line = trim(line_);
        if (state_ == State::ChunkSize) {
          size_t size = 0;
          const auto parsed = std::from_chars(line.data(), line.data() + line.size(), size, 16);
          if (parsed.ec != std::errc{}) return Result::Malformed;
          remaining_ = size;
          state_ = size == 0 ? State::Trailers : State::ChunkData;
        } else if (state_ == State::ChunkDataEnd) {
          if (!line.empty()) return Result::Malformed;
          state_ = State::ChunkSize;
        } else if (line.empty()) {
          state_ = State::Done;
        }
        line_.clear();
        break;
      }
      case State::ChunkData: {
        const size_t take = std::min(remaining_, bytes.size() - at);
        on_body_(bytes.substr(at, take));
        body_bytes_ += take;
        at += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::ChunkDataEnd;
        break;
      }
      case State::Done:
        break;
    }
  }
  used = at;
  return state_ == State::Done ? Result::Complete : Result::NeedMore;
}

ResponseParser::Result ResponseParser::finishOnClose() {
  if (state_ == State::UntilClose) {
    state_ = State::Done;
    return Result::Complete;
  }
  return state_ == State::Done ? Result::Complete : Result::Malformed;
}

}  // namespace sluice::bench
