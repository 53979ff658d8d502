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
  frame += "data: ";
  frame += data;
  frame += "\n\n";
  return frame;
}

}  // namespace sluice::wire
