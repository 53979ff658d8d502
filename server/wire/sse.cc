#include "server/wire/sse.h"

namespace sluice::wire {

std::vector<SseEvent> SseParser::feed(std::string_view bytes) {
  std::vector<SseEvent> out;
  for (char c : bytes) {
    if (c == '\n') {
      if (last_was_cr_) {  // the \n of a \r\n pair: the line was already taken at \r
        last_was_cr_ = false;
        continue;
      }
      takeLine(line_, out);
      line_.clear();
    } else if (c == '\r') {
      takeLine(line_, out);
      line_.clear();
      last_was_cr_ = true;
      continue;
    } else {
      line_.push_back(c);
    }
    last_was_cr_ = false;
  }
  return out;
}

std::vector<SseEvent> SseParser::finish() {
  std::vector<SseEvent> out;
  if (!line_.empty()) {
    takeLine(line_, out);
    line_.clear();
  }
  if (has_data_) out.push_back(std::move(pending_));
  pending_ = {};
  has_data_ = has_event_ = false;
  return out;
}

void SseParser::takeLine(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    if (has_data_) out.push_back(std::move(pending_));
    pending_ = {};
    has_data_ = has_event_ = false;
    return;
  }
  if (line.front() == ':') return;  // comment
  const auto colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) pending_.data.push_back('\n');
    pending_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    pending_.event.assign(value);
    has_event_ = true;
  }
}

std::string sseFrame(std::string_view event, std::string_view data) {
  std::string frame;
  frame.reserve(event.size() + data.size() + 16);
  if (!event.empty()) {
    frame += "event: ";
    frame += event;
    frame += '\n';
  }
  // One data line per line of `data` (\n, \r\n or \r), so a multi-line value parses back whole.
  size_t start = 0;
  for (;;) {
    const size_t end = data.find_first_of("\r\n", start);
    frame += "data: ";
    frame += data.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    frame += '\n';
    if (end == std::string_view::npos) break;
    start = end + (data[end] == '\r' && end + 1 < data.size() && data[end + 1] == '\n' ? 2 : 1);
  }
  frame += '\n';
  return frame;
}

}  // namespace sluice::wire
