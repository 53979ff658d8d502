#pragma once
// The searches one scan of a text shares across its candidates, so that each byte is searched a
// bounded number of times however many candidates the text holds: the scanners ask "where is the
// next END line / delimiter / non-space at or after p" and "where is the last URL stop before p"
// with p moving forward, and an answer is remembered until p passes it. Without this, text made of
// one trigger repeated ("-----BEGIN PRIVATE KEY-----!" over and over) made every candidate search
// the same window again: quadratic time. Internal to server/protection; one per Detector::collect.

#include <cstddef>
#include <string_view>

namespace sluice::protection::scan {

inline constexpr size_t kNone = std::string_view::npos;

// The first position at or after `from` that a forward search finds, remembered: asked again with
// a `from` between the last start and the position found, it answers without searching. Asked
// with a `from` before the last start (a scanner going back), it searches again (correct, only
// not shared).
class ForwardMemo {
 public:
  // `search(from)` returns the position found at or after `from`, or kNone.
  template <class Search>
  size_t next(size_t from, Search search) {
    if (asked_ != kNone && from >= asked_ && (found_ == kNone || from <= found_)) return found_;
    asked_ = from;
    found_ = search(from);
    return found_;
  }

 private:
  size_t asked_ = kNone;
  size_t found_ = kNone;
};

// The last position in [floor, p) whose byte `stop` accepts, for `p` that only grow: the bytes
// between the last `p` and this one are looked at once. A smaller `p` than before searches back
// from it to `floor` (correct, only not shared).
class BackwardMemo {
 public:
  template <class Stop>
  size_t lastBefore(std::string_view t, size_t p, size_t floor, Stop stop) {
    if (p < scanned_) {
      for (size_t i = p; i > floor; --i) {
        if (stop(t[i - 1])) return i - 1;
      }
      return kNone;
    }
    for (size_t i = scanned_; i < p && i < t.size(); ++i) {
      if (stop(t[i])) last_ = i;
    }
    scanned_ = p;
    return last_ != kNone && last_ >= floor ? last_ : kNone;
  }

 private:
  size_t scanned_ = 0;
  size_t last_ = kNone;
};

// How many brackets ('(', '[', '{') are open at `p` since the line's start (closing ones without
// an opening one are ignored), for `p` that only grow; a smaller `p` counts again from at most
// kMaxLineBytes back.
class LineDepthMemo {
 public:
  static constexpr size_t kMaxLineBytes = 4096;
  int depthAt(std::string_view t, size_t p) {
    if (p < scanned_) {
      size_t start = p;
      while (start > 0 && p - start < kMaxLineBytes && t[start - 1] != '\n') --start;
      int depth = 0;
      for (size_t i = start; i < p; ++i) depth = step(depth, t[i]);
      return depth;
    }
    for (size_t i = scanned_; i < p && i < t.size(); ++i) depth_ = step(depth_, t[i]);
    scanned_ = p;
    return depth_;
  }

 private:
  static int step(int depth, char c) {
    if (c == '\n') return 0;
    if (c == '(' || c == '[' || c == '{') return depth + 1;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) return depth - 1;
    return depth;
  }
  size_t scanned_ = 0;
  int depth_ = 0;
};

// The memos of one scan (see scanners.h for who asks what).
struct Memos {
  ForwardMemo pem_end;       // "-----END "
  ForwardMemo value_colon;   // the end of an unquoted password value after ':'
  ForwardMemo value_equals;  // the same after '=' ('&' ends it too)
  ForwardMemo non_space;     // the next byte that is not a space or a tab
  BackwardMemo url_stop;     // the last byte that ends a URL's authority going back
  LineDepthMemo brackets;    // brackets open on the line (code, not prose)
};

}  // namespace sluice::protection::scan
