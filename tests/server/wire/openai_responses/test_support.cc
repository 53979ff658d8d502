#include "tests/server/wire/openai_responses/test_support.h"

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "server/wire/openai_responses/codec.h"
#include "server/wire/sse.h"

namespace sluice::wire::openai_responses::test {

std::string fixturePath(std::string_view relative) {
  std::string dir;
  if (const char* env = std::getenv("SLUICE_FIXTURES_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    dir = SLUICE_DEFAULT_FIXTURES_DIR;
  }
  return dir + "/" + std::string(relative);
}

std::string readFixture(std::string_view relative) {
  std::ifstream in(fixturePath(relative), std::ios::binary);
  if (!in) throw std::runtime_error("cannot open fixture " + fixturePath(relative));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> fixtureLines(std::string_view relative) {
  std::vector<std::string> lines;
  std::istringstream in(readFixture(relative));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

YAML::Node loadCassette(std::string_view relative) { return YAML::LoadFile(fixturePath(relative))["interactions"]; }

Json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& entry : node) out[entry.first.as<std::string>()] = yamlToJson(entry.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& entry : node) out.push_back(yamlToJson(entry));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string text = node.Scalar();
      if (node.Tag() == "!") return text;  // quoted: a string whatever it looks like
      if (text == "true") return true;
      if (text == "false") return false;
      if (text == "null" || text == "~") return nullptr;
      Json number = Json::parse(text, nullptr, false);
      if (!number.is_discarded() && number.is_number()) return number;
      return text;
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
  }
  return nullptr;
}

std::string chunksToSse(const std::vector<std::string>& lines) {
  std::string body;
  for (const auto& line : lines) {
    const Json data = Json::parse(line);
    body += sseFrame(data.at("type").get<std::string>(), line);
  }
  return body;
}

std::vector<std::vector<std::string>> splitResponses(const std::vector<std::string>& lines) {
  std::vector<std::vector<std::string>> responses;
  for (const auto& line : lines) {
    if (Json::parse(line).at("type") == "response.created" || responses.empty()) responses.emplace_back();
    responses.back().push_back(line);
  }
  return responses;
}

std::vector<StreamEvent> decodeWhole(std::string_view body) {
  auto decoder = makeStreamDecoder();
  auto events = decoder->feed(body);
  for (auto& event : decoder->finish()) events.push_back(std::move(event));
  return events;
}

std::vector<StreamEvent> decodeInPieces(std::string_view body, uint32_t seed, size_t max_piece) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<size_t> size(1, max_piece);
  auto decoder = makeStreamDecoder();
  std::vector<StreamEvent> events;
  size_t at = 0;
  while (at < body.size()) {
    const size_t take = std::min(size(generator), body.size() - at);
    for (auto& event : decoder->feed(body.substr(at, take))) events.push_back(std::move(event));
    at += take;
  }
  for (auto& event : decoder->finish()) events.push_back(std::move(event));
  return events;
}

Assembled assemble(const std::vector<StreamEvent>& events) {
  Assembled out;
  for (const auto& event : events) {
    switch (event.type) {
      case StreamEvent::Type::MessageStart:
        ++out.message_starts;
        out.id = event.id;
        out.model = event.model;
        break;
      case StreamEvent::Type::BlockStart: {
        if (static_cast<size_t>(event.index) != out.blocks.size()) {
          throw std::runtime_error("block indexes must start at 0 and grow by one");
        }
        Assembled::Block block;
        block.type = event.block.type;
        block.tool_id = event.block.tool_id;
        block.tool_name = event.block.tool_name;
        block.reasoning_id = event.block.reasoning_id;
        block.text = event.block.type == ContentBlock::Type::ToolUse ? "" : event.block.text;
        out.blocks.push_back(block);
        break;
      }
      case StreamEvent::Type::BlockDelta: {
        auto& block = out.blocks.at(static_cast<size_t>(event.index));
        if (block.stopped) throw std::runtime_error("delta after block stop");
        if (event.delta_kind == StreamEvent::DeltaKind::Signature) {
          block.signature += event.delta;
        } else {
          block.text += event.delta;
        }
        break;
      }
      case StreamEvent::Type::BlockStop: out.blocks.at(static_cast<size_t>(event.index)).stopped = true; break;
      case StreamEvent::Type::MessageDelta:
        out.stop_reason = event.stop_reason;
        if (event.usage_reported) {
          out.usage = event.usage;
          out.usage_reported = true;
        }
        break;
      case StreamEvent::Type::MessageStop: ++out.message_stops; break;
      case StreamEvent::Type::Ping: break;
      case StreamEvent::Type::Error: out.errors.push_back(event.error); break;
    }
  }
  return out;
}

std::string encodeStream(const std::vector<StreamEvent>& events, const ResponseContext& context) {
  auto encoder = makeStreamEncoder(context);
  std::string body;
  for (const auto& event : events) body += encoder->encode(event);
  body += encoder->finish();
  return body;
}

std::vector<SentEvent> parseSent(std::string_view body) {
  SseParser parser;
  std::vector<SentEvent> out;
  auto events = parser.feed(body);
  for (auto& event : parser.finish()) events.push_back(std::move(event));
  for (const auto& event : events) out.push_back({event.event, Json::parse(event.data)});
  return out;
}

}  // namespace sluice::wire::openai_responses::test
