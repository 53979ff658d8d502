#include "tests/server/wire/openai_chat/chat_fixtures.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

#include "server/wire/openai_chat/codec.h"
#include "server/wire/sse.h"

namespace sluice::wire::openai_chat::testing {

namespace {

std::string fixturesDir() {
  if (const char* dir = std::getenv("SLUICE_FIXTURES_DIR"); dir != nullptr && *dir != '\0') return dir;
  return SLUICE_FIXTURES_DEFAULT;
}

}  // namespace

std::string readFixture(const std::string& relative) {
  const std::string path = fixturesDir() + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read fixture " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

YAML::Node loadCassette(const std::string& relative) { return YAML::Load(readFixture(relative))["interactions"]; }

Json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& item : node) out.push_back(yamlToJson(item));
      return out;
    }
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& item : node) out[item.first.as<std::string>()] = yamlToJson(item.second);
      return out;
    }
    case YAML::NodeType::Scalar: break;
  }
  const std::string text = node.Scalar();
  if (node.Tag() != "?") return text;  // quoted: a string whatever it looks like
  if (text == "null" || text == "~") return nullptr;
  if (text == "true") return true;
  if (text == "false") return false;
  const Json number = Json::parse(text, nullptr, false);
  if (!number.is_discarded() && number.is_number()) return number;
  return text;
}

std::string sseFromChunkLines(const std::string& lines) {
  std::string body;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    body += "data: " + line + "\n\n";
  }
  return body + "data: [DONE]\n\n";
}

std::vector<StreamEvent> decodeWhole(const std::string& body) {
  auto decoder = makeStreamDecoder();
  auto events = decoder->feed(body);
  for (auto& event : decoder->finish()) events.push_back(std::move(event));
  return events;
}

std::vector<StreamEvent> decodeInPieces(const std::string& body, unsigned seed, size_t max_piece) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<size_t> size(1, max_piece);
  auto decoder = makeStreamDecoder();
  std::vector<StreamEvent> events;
  for (size_t at = 0; at < body.size();) {
    const size_t piece = std::min(size(random), body.size() - at);
    for (auto& event : decoder->feed(std::string_view(body).substr(at, piece))) events.push_back(std::move(event));
    at += piece;
  }
  for (auto& event : decoder->finish()) events.push_back(std::move(event));
  return events;
}

Folded fold(const std::vector<StreamEvent>& events) {
  Folded folded;
  std::optional<int> open;
  int next_index = 0;
  std::map<int, size_t> tool_at;  // block index -> folded.tools position
  std::map<int, ContentBlock::Type> types;
  auto problem = [&](const std::string& text) { folded.order_problems.push_back(text); };
  for (const auto& event : events) {
    switch (event.type) {
      case StreamEvent::Type::MessageStart:
        ++folded.message_starts;
        folded.id = event.id;
        folded.model = event.model;
        break;
      case StreamEvent::Type::BlockStart:
        if (open) problem("block " + std::to_string(event.index) + " starts while " + std::to_string(*open) + " is open");
        if (event.index != next_index) problem("block index " + std::to_string(event.index) + " out of sequence");
        next_index = event.index + 1;
        open = event.index;
        types[event.index] = event.block.type;
        if (event.block.type == ContentBlock::Type::ToolUse) {
          tool_at[event.index] = folded.tools.size();
          folded.tools.push_back({event.block.tool_id, event.block.tool_name, ""});
        }
        break;
      case StreamEvent::Type::BlockDelta:
        if (open != event.index) problem("delta for block " + std::to_string(event.index) + " which is not open");
        switch (event.delta_kind) {
          case StreamEvent::DeltaKind::Text: folded.text += event.delta; break;
          case StreamEvent::DeltaKind::Thinking: folded.thinking += event.delta; break;
          case StreamEvent::DeltaKind::ToolInputJson:
            if (tool_at.count(event.index)) folded.tools[tool_at[event.index]].arguments += event.delta;
            break;
          case StreamEvent::DeltaKind::Signature: break;
        }
        break;
      case StreamEvent::Type::BlockStop:
        if (open != event.index) problem("stop for block " + std::to_string(event.index) + " which is not open");
        open.reset();
        break;
      case StreamEvent::Type::MessageDelta:
        if (open) problem("message delta while block " + std::to_string(*open) + " is open");
        folded.stop_reason = event.stop_reason;
        folded.usage = event.usage;
        folded.usage_reported = event.usage_reported;
        break;
      case StreamEvent::Type::MessageStop: ++folded.message_stops; break;
      case StreamEvent::Type::Ping: break;
      case StreamEvent::Type::Error: folded.error = event.error; break;
    }
  }
  return folded;
}

std::string describe(const std::vector<StreamEvent>& events) {
  std::ostringstream out;
  for (const auto& event : events) {
    out << static_cast<int>(event.type) << '/' << event.index << '/' << static_cast<int>(event.block.type) << '/'
        << event.block.tool_id << '/' << event.block.tool_name << '/' << static_cast<int>(event.delta_kind) << '/'
        << event.delta << '/' << event.id << '/' << event.model << '/' << event.usage.input_tokens << ','
        << event.usage.output_tokens << ',' << event.usage.cache_read_tokens << ',' << event.usage.reasoning_tokens
        << '/' << (event.stop_reason ? static_cast<int>(*event.stop_reason) : -1) << '/' << event.error.key << '\n';
  }
  return out.str();
}

std::vector<std::string> dataPayloads(const std::string& sse) {
  SseParser parser;
  std::vector<std::string> payloads;
  for (auto& event : parser.feed(sse)) payloads.push_back(event.data);
  for (auto& event : parser.finish()) payloads.push_back(event.data);
  return payloads;
}

}  // namespace sluice::wire::openai_chat::testing
