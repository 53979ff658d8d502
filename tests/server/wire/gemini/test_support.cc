#include "tests/server/wire/gemini/test_support.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include "server/wire/gemini/codec.h"

#ifndef SLUICE_DEFAULT_FIXTURES_DIR
#define SLUICE_DEFAULT_FIXTURES_DIR "tests/fixtures"
#endif

namespace sluice::wire::gemini::test {
namespace {

std::string fixturesDir() {
  const char* dir = std::getenv("SLUICE_FIXTURES_DIR");
  return dir != nullptr && *dir != '\0' ? dir : SLUICE_DEFAULT_FIXTURES_DIR;
}

Json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& entry : node) object[entry.first.as<std::string>()] = yamlToJson(entry.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const auto& item : node) array.push_back(yamlToJson(item));
      return array;
    }
    case YAML::NodeType::Scalar: {
      const std::string text = node.Scalar();
      if (node.Tag() == "!") return text;  // quoted: always a string
      if (text == "true") return true;
      if (text == "false") return false;
      if (text == "null" || text == "~") return nullptr;
      const Json number = Json::parse(text, nullptr, false);
      if (number.is_number()) return number;
      return text;
    }
    case YAML::NodeType::Null: return nullptr;
    case YAML::NodeType::Undefined: return nullptr;
  }
  return nullptr;
}

}  // namespace

std::string readFixture(const std::string& relative) {
  const std::string path = fixturesDir() + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in.good(), "cannot read fixture " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> chunkLines(const std::string& relative) {
  std::vector<std::string> lines;
  std::istringstream in(readFixture(relative));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string sseBody(const std::vector<std::string>& lines) {
  std::string body;
  for (const std::string& line : lines) body += "data: " + line + "\r\n\r\n";
  return body;
}

std::vector<Interaction> loadCassette(const std::string& relative) {
  const YAML::Node root = YAML::Load(readFixture(relative));
  std::vector<Interaction> interactions;
  for (const auto& item : root["interactions"]) {
    Interaction interaction;
    const YAML::Node request = item["request"];
    if (request["parsed_body"]) {
      interaction.request = yamlToJson(request["parsed_body"]);
    } else if (request["body"] && request["body"].IsScalar()) {
      interaction.request = Json::parse(request["body"].Scalar(), nullptr, false);
    }
    const YAML::Node response = item["response"];
    interaction.status = response["status"]["code"].as<int>();
    if (response["body"] && response["body"]["string"]) {
      interaction.response_body = response["body"]["string"].as<std::string>();
      interaction.response_is_raw = true;
    } else if (response["parsed_body"]) {
      interaction.response_body = yamlToJson(response["parsed_body"]).dump();
    }
    interactions.push_back(std::move(interaction));
  }
  return interactions;
}

std::vector<StreamEvent> decodeWhole(const std::string& body) {
  auto decoder = makeStreamDecoder();
  std::vector<StreamEvent> events = decoder->feed(body);
  for (StreamEvent& event : decoder->finish()) events.push_back(std::move(event));
  return events;
}

std::vector<StreamEvent> decodeInPieces(const std::string& body, uint32_t seed, size_t max_piece) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<size_t> size(1, max_piece);
  auto decoder = makeStreamDecoder();
  std::vector<StreamEvent> events;
  for (size_t at = 0; at < body.size();) {
    const size_t piece = std::min(size(random), body.size() - at);
    for (StreamEvent& event : decoder->feed(std::string_view(body).substr(at, piece))) events.push_back(std::move(event));
    at += piece;
  }
  for (StreamEvent& event : decoder->finish()) events.push_back(std::move(event));
  return events;
}

std::string describe(const std::vector<StreamEvent>& events) {
  std::ostringstream out;
  for (const StreamEvent& event : events) {
    out << static_cast<int>(event.type) << '|' << event.index << '|';
    switch (event.type) {
      case StreamEvent::Type::MessageStart:
        out << event.id << '|' << event.model << '|' << event.usage_reported << '|' << event.usage.input_tokens;
        break;
      case StreamEvent::Type::BlockStart:
        out << static_cast<int>(event.block.type) << '|' << event.block.tool_id << '|' << event.block.tool_name << '|'
            << event.block.raw.dump();
        break;
      case StreamEvent::Type::BlockDelta: out << static_cast<int>(event.delta_kind) << '|' << event.delta; break;
      case StreamEvent::Type::MessageDelta:
        out << (event.stop_reason ? static_cast<int>(*event.stop_reason) : -1) << '|' << event.usage.input_tokens << '|'
            << event.usage.output_tokens << '|' << event.usage.reasoning_tokens << '|' << event.usage.cache_read_tokens;
        break;
      case StreamEvent::Type::Error: out << event.error.status << '|' << event.error.key; break;
      default: break;
    }
    out << '\n';
  }
  return out.str();
}

Folded fold(const std::vector<StreamEvent>& events) {
  Folded folded;
  std::map<int, size_t> block_at;
  std::map<int, std::string> tool_json;
  std::map<int, bool> stopped;
  bool started = false;
  bool delta_seen = false;
  bool stop_seen = false;
  int last_index = -1;
  for (const StreamEvent& event : events) {
    BOOST_TEST_REQUIRE(!stop_seen, "an event after MessageStop");
    if (event.type == StreamEvent::Type::Error) {
      BOOST_TEST(!folded.error.has_value(), "two Error events");
      folded.error = event.error;
      continue;
    }
    BOOST_TEST_REQUIRE(!folded.error.has_value(), "an event after Error");
    switch (event.type) {
      case StreamEvent::Type::MessageStart:
        BOOST_TEST(!started, "two MessageStart events");
        started = true;
        folded.response.id = event.id;
        folded.response.model = event.model;
        folded.start_usage_reported = event.usage_reported;
        folded.start_usage = event.usage;
        break;
      case StreamEvent::Type::BlockStart:
        BOOST_TEST_REQUIRE(started, "BlockStart before MessageStart");
        BOOST_TEST(event.index > last_index, "block indices must increase");
        last_index = event.index;
        block_at[event.index] = folded.response.content.size();
        folded.response.content.push_back(event.block);
        break;
      case StreamEvent::Type::BlockDelta: {
        BOOST_TEST_REQUIRE(block_at.count(event.index) == 1, "delta for a block never started");
        BOOST_TEST(!stopped[event.index], "delta after BlockStop");
        ContentBlock& block = folded.response.content[block_at[event.index]];
        switch (event.delta_kind) {
          case StreamEvent::DeltaKind::Text:
            BOOST_TEST((block.type == ContentBlock::Type::Text));
            block.text += event.delta;
            break;
          case StreamEvent::DeltaKind::Thinking:
            BOOST_TEST((block.type == ContentBlock::Type::Thinking));
            block.text += event.delta;
            break;
          case StreamEvent::DeltaKind::Signature:
            BOOST_TEST((block.type == ContentBlock::Type::Thinking));
            block.signature += event.delta;
            break;
          case StreamEvent::DeltaKind::ToolInputJson:
            BOOST_TEST((block.type == ContentBlock::Type::ToolUse));
            tool_json[event.index] += event.delta;
            ++folded.tool_json_deltas;
            break;
        }
        break;
      }
      case StreamEvent::Type::BlockStop: {
        BOOST_TEST_REQUIRE(block_at.count(event.index) == 1, "stop for a block never started");
        BOOST_TEST(!stopped[event.index], "block stopped twice");
        stopped[event.index] = true;
        ContentBlock& block = folded.response.content[block_at[event.index]];
        if (block.type == ContentBlock::Type::ToolUse) {
          const Json input = Json::parse(tool_json[event.index], nullptr, false);
          BOOST_TEST_REQUIRE(input.is_object(), "tool arguments are not a JSON object: " << tool_json[event.index]);
          block.tool_input = input;
        }
        break;
      }
      case StreamEvent::Type::MessageDelta:
        BOOST_TEST_REQUIRE(started);
        BOOST_TEST(!delta_seen, "two MessageDelta events");
        delta_seen = true;
        for (const auto& [index, done] : stopped) BOOST_TEST(done, "block " << index << " still open at MessageDelta");
        BOOST_TEST(stopped.size() == block_at.size(), "a block was never stopped");
        if (event.stop_reason) folded.response.stop_reason = *event.stop_reason;
        folded.response.usage = event.usage;
        folded.response.usage_reported = event.usage_reported;
        break;
      case StreamEvent::Type::MessageStop:
        BOOST_TEST(delta_seen, "MessageStop without MessageDelta");
        stop_seen = true;
        break;
      default: break;
    }
  }
  if (!folded.error) BOOST_TEST(stop_seen, "the stream never reached MessageStop");
  return folded;
}

nlohmann::json plain(const std::string& text) { return nlohmann::json::parse(text); }
nlohmann::json plain(const Json& value) { return nlohmann::json::parse(value.dump()); }

}  // namespace sluice::wire::gemini::test
