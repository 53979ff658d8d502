#include "server/protection/restorer.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "server/protection/placeholder.h"

namespace sluice::protection {
namespace {

using DeltaKind = wire::StreamEvent::DeltaKind;
constexpr char kLead = '\xE2';  // the first byte of ⟦ (and of many other characters)

// The original of a complete placeholder, or nullptr (unknown, or not complete).
const std::string* knownOriginal(const PlaceholderRead& read, const Mapping& mapping) {
  if (read.state != PlaceholderRead::State::Complete) return nullptr;
  return mapping.original(read.kind, read.number);
}

void restoreJson(wire::Json& value, const Mapping& mapping, bool keys, int depth) {
  if (depth > 256) return;
  if (value.is_string()) {
    auto& text = value.get_ref<wire::Json::string_t&>();
    if (text.find(kOpenBracket) != std::string::npos) text = restoreText(text, mapping);
    return;
  }
  if (value.is_array()) {
    for (wire::Json& element : value) restoreJson(element, mapping, keys, depth + 1);
    return;
  }
  if (!value.is_object()) return;
  bool rename = false;
  for (auto it = value.begin(); it != value.end(); ++it) {
    restoreJson(*it, mapping, keys, depth + 1);
    rename = rename || (keys && it.key().find(kOpenBracket) != std::string::npos);
  }
  if (!rename) return;
  // A placeholder the model used as a key: rebuild the object with the keys restored, in order.
  wire::Json renamed = wire::Json::object();
  for (auto it = value.begin(); it != value.end(); ++it) renamed[restoreText(it.key(), mapping)] = std::move(*it);
  value = std::move(renamed);
}

}  // namespace

std::string restoreText(std::string_view text, const Mapping& mapping) {
  std::string out;
  size_t from = 0;
  size_t copied = 0;
  while (true) {
    const size_t at = text.find(kOpenBracket, from);
    if (at == std::string_view::npos) break;
    const PlaceholderRead read = readPlaceholder(text.substr(at, kMaxPlaceholderBytes), false);
    if (const std::string* original = knownOriginal(read, mapping)) {
      if (out.empty()) out.reserve(text.size() + 64);
      out.append(text.substr(copied, at - copied));
      out.append(*original);
      copied = at + read.length;
      from = copied;
    } else {
      from = at + kOpenBracket.size();
    }
  }
  if (copied == 0) return std::string(text);
  out.append(text.substr(copied));
  return out;
}

void restoreBlock(wire::ContentBlock& block, const Mapping& mapping) {
  using Type = wire::ContentBlock::Type;
  if (mapping.empty()) return;
  switch (block.type) {
    case Type::Text:
    case Type::Thinking:
      if (block.text.find(kOpenBracket) != std::string::npos) block.text = restoreText(block.text, mapping);
      return;
    case Type::ToolUse:
      restoreJson(block.tool_input, mapping, true, 0);
      return;
    case Type::Opaque:
      restoreJson(block.raw, mapping, false, 0);
      return;
    case Type::ToolResult:
      for (wire::ContentBlock& part : block.result) restoreBlock(part, mapping);
      return;
    case Type::Image:
    case Type::RedactedThinking:
      return;
  }
}

void restoreResponse(wire::Response& response, const Mapping& mapping) {
  for (wire::ContentBlock& block : response.content) restoreBlock(block, mapping);
}

StreamRestorer::Block& StreamRestorer::block(int index) {
  auto [it, fresh] = blocks_.try_emplace(index);
  if (fresh) it->second.index = index;
  return it->second;
}

size_t StreamRestorer::heldBytes() const {
  size_t total = 0;
  for (const auto& [index, b] : blocks_) total += b.held.size();
  return total;
}

void StreamRestorer::flush(Block& b, std::vector<wire::StreamEvent>& out) {
  if (b.held.empty()) return;
  wire::StreamEvent event;
  event.type = wire::StreamEvent::Type::BlockDelta;
  event.index = b.index;
  event.delta_kind = b.kind;
  event.delta = std::move(b.held);
  b.held.clear();
  out.push_back(std::move(event));
}

void StreamRestorer::flushAll(std::vector<wire::StreamEvent>& out) {
  for (auto& [index, b] : blocks_) flush(b, out);
}

std::string StreamRestorer::restoreDelta(Block& b, std::string_view delta) {
  std::string joined;
  std::string_view text = delta;
  if (!b.held.empty()) {
    joined = std::move(b.held);
    b.held.clear();
    joined.append(delta);
    text = joined;
  }
  const bool json = b.kind == DeltaKind::ToolInputJson;
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  // Text and thinking: only a ⟦ can start a placeholder, so the bytes up to the next 0xE2 go out as
  // they are.
  if (!json) {
    while (i < text.size()) {
      const void* found = std::memchr(text.data() + i, kLead, text.size() - i);
      const size_t at = found ? static_cast<const char*>(found) - text.data() : text.size();
      out.append(text.substr(i, at - i));
      if (at == text.size()) break;
      const PlaceholderRead read = readPlaceholder(text.substr(at, kMaxPlaceholderBytes), false);
      if (read.state == PlaceholderRead::State::Partial) {
        b.held.assign(text.substr(at));
        return out;
      }
      if (const std::string* original = knownOriginal(read, mapping_)) {
        out.append(*original);
        i = at + read.length;
      } else {
        out.push_back(text[at]);
        i = at + 1;
      }
    }
    return out;
  }
  // Partial JSON: a lexer follows strings and escapes, so that "\\u27e6" (an escaped backslash) is
  // not taken for an escaped bracket, and a placeholder becomes its original escaped for a string.
  bool in_string = b.in_string;
  bool escaped = b.escaped;
  while (i < text.size()) {
    const char c = text[i];
    const bool candidate = c == kLead || (c == '\\' && in_string && !escaped);
    if (candidate) {
      const PlaceholderRead read = readPlaceholder(text.substr(i, kMaxEscapedPlaceholderBytes), true);
      if (read.state == PlaceholderRead::State::Partial) {
        b.held.assign(text.substr(i));
        b.in_string = in_string;
        b.escaped = escaped;
        return out;
      }
      if (const std::string* original = knownOriginal(read, mapping_)) {
        out.append(jsonEscape(*original));
        i += read.length;
        escaped = false;
        continue;
      }
    }
    out.push_back(c);
    ++i;
    if (!in_string) {
      in_string = c == '"';
    } else if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      in_string = false;
    }
  }
  b.in_string = in_string;
  b.escaped = escaped;
  return out;
}

std::vector<wire::StreamEvent> StreamRestorer::feed(wire::StreamEvent event) {
  std::vector<wire::StreamEvent> out;
  feed(std::move(event), out);
  return out;
}

void StreamRestorer::feed(wire::StreamEvent event, std::vector<wire::StreamEvent>& out) {
  using Type = wire::StreamEvent::Type;
  switch (event.type) {
    case Type::BlockDelta: {
      if (mapping_.empty()) break;
      Block& b = block(event.index);
      if (event.delta_kind == DeltaKind::Signature) {
        flush(b, out);
        break;
      }
      if (b.kind != event.delta_kind) {
        flush(b, out);
        b.kind = event.delta_kind;
        b.in_string = false;
        b.escaped = false;
      }
      event.delta = restoreDelta(b, event.delta);
      if (event.delta.empty()) return;
      break;
    }
    case Type::BlockStart:
      if (mapping_.empty()) break;
      flush(block(event.index), out);
      restoreBlock(event.block, mapping_);
      break;
    case Type::BlockStop:
      if (const auto it = blocks_.find(event.index); it != blocks_.end()) {
        flush(it->second, out);
        blocks_.erase(it);
      }
      break;
    case Type::MessageDelta:
    case Type::MessageStop:
    case Type::Error:
      flushAll(out);
      break;
    case Type::MessageStart:
    case Type::Ping:
      break;
  }
  out.push_back(std::move(event));
}

}  // namespace sluice::protection
