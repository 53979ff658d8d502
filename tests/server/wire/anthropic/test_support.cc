#include "tests/server/wire/anthropic/test_support.h"

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "server/wire/anthropic/codec.h"
#include "server/wire/sse.h"

namespace sluice::wire::anthropic::test {

namespace {

std::string fixturesDir() {
  if (const char* dir = std::getenv("SLUICE_FIXTURES_DIR"); dir != nullptr && *dir != '\0') return dir;
  return SLUICE_DEFAULT_FIXTURES_DIR;
}

Json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& entry : node) out[entry.first.as<std::string>()] = yamlToJson(entry.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& item : node) out.push_back(yamlToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string text = node.Scalar();
      if (node.Tag() == "!") return text;  // quoted or block scalar
      if (text == "null" || text == "~") return nullptr;
      if (text == "true") return true;
      if (text == "false") return false;
      const Json number = Json::parse(text, nullptr, false);
      if (!number.is_discarded() && number.is_number()) return number;
      return text;
    }
    default: return nullptr;
  }
}

std::string_view deltaKindName(StreamEvent::DeltaKind kind) {
  switch (kind) {
    case StreamEvent::DeltaKind::Text: return "text";
    case StreamEvent::DeltaKind::ToolInputJson: return "tool_input_json";
    case StreamEvent::DeltaKind::Thinking: return "thinking";
    case StreamEvent::DeltaKind::Signature: return "signature";
  }
  return "?";
}

Json wireJson(const std::optional<catalog::Wire>& wire) {
  return wire ? Json(std::string(catalog::toString(*wire))) : Json(nullptr);
}

template <typename T>
Json optionalJson(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
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

Json cassette(const std::string& relative) { return yamlToJson(YAML::Load(readFixture(relative))); }

std::string sseFromChunks(const std::string& relative) {
  std::istringstream lines(readFixture(relative));
  std::string line;
  std::string sse;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const Json data = Json::parse(line);
    sse += "event: " + data.at("type").get<std::string>() + "\ndata: " + line + "\n\n";
  }
  return sse;
}

std::vector<StreamEvent> decodeWhole(std::string_view bytes) {
  auto decoder = makeStreamDecoder();
  std::vector<StreamEvent> events = decoder->feed(bytes);
  for (auto& event : decoder->finish()) events.push_back(std::move(event));
  return events;
}

std::vector<StreamEvent> decodeInPieces(std::string_view bytes, uint32_t seed, size_t max_piece) {
  auto decoder = makeStreamDecoder();
  std::mt19937 generator(seed);
  std::uniform_int_distribution<size_t> piece(1, max_piece);
  std::vector<StreamEvent> events;
  size_t at = 0;
  while (at < bytes.size()) {
    const size_t size = std::min(piece(generator), bytes.size() - at);
    for (auto& event : decoder->feed(bytes.substr(at, size))) events.push_back(std::move(event));
    at += size;
  }
  for (auto& event : decoder->finish()) events.push_back(std::move(event));
  return events;
}

Rebuilt rebuild(const std::vector<StreamEvent>& events) {
  Rebuilt out;
  std::map<int, size_t> by_index;
  for (const StreamEvent& event : events) {
    switch (event.type) {
      case StreamEvent::Type::MessageStart:
        out.id = event.id;
        out.model = event.model;
        out.start_usage = event.usage;
        break;
      case StreamEvent::Type::BlockStart:
        by_index[event.index] = out.blocks.size();
        out.blocks.push_back(Rebuilt::Block{event.block.type, event.block, {}, {}, {}, false});
        break;
      case StreamEvent::Type::BlockDelta: {
        Rebuilt::Block& block = out.blocks.at(by_index.at(event.index));
        switch (event.delta_kind) {
          case StreamEvent::DeltaKind::Text:
          case StreamEvent::DeltaKind::Thinking: block.text += event.delta; break;
          case StreamEvent::DeltaKind::ToolInputJson: block.json += event.delta; break;
          case StreamEvent::DeltaKind::Signature: block.signature += event.delta; break;
        }
        break;
      }
      case StreamEvent::Type::BlockStop: out.blocks.at(by_index.at(event.index)).stopped = true; break;
      case StreamEvent::Type::MessageDelta:
        if (event.stop_reason) out.stop_reason = event.stop_reason;
        out.stop_sequence = event.stop_sequence;
        out.usage = event.usage;
        break;
      case StreamEvent::Type::MessageStop: out.message_stop = true; break;
      case StreamEvent::Type::Ping: ++out.pings; break;
      case StreamEvent::Type::Error: out.errors.push_back(event.error); break;
    }
  }
  return out;
}

std::vector<std::pair<std::string, Json>> sseEvents(std::string_view bytes) {
  SseParser parser;
  std::vector<std::pair<std::string, Json>> out;
  auto take = [&](const std::vector<SseEvent>& events) {
    for (const SseEvent& event : events) out.emplace_back(event.event, Json::parse(event.data));
  };
  take(parser.feed(bytes));
  take(parser.finish());
  return out;
}

Json toJson(const Usage& usage) {
  return Json{{"input", usage.input_tokens},
              {"output", usage.output_tokens},
              {"cache_read", usage.cache_read_tokens},
              {"cache_write", usage.cache_write_tokens},
              {"reasoning", usage.reasoning_tokens}};
}

Json toJson(const ContentBlock& block) {
  Json result = Json::array();
  for (const ContentBlock& inner : block.result) result.push_back(toJson(inner));
  return Json{{"type", static_cast<int>(block.type)},
              {"text", block.text},
              {"image",
               {{"kind", static_cast<int>(block.image.kind)},
                {"media_type", block.image.media_type},
                {"data", block.image.data},
                {"url", block.image.url}}},
              {"tool_id", block.tool_id},
              {"tool_name", block.tool_name},
              {"tool_input", block.tool_input},
              {"tool_use_id", block.tool_use_id},
              {"result", result},
              {"is_error", block.is_error},
              {"signature", block.signature},
              {"signature_wire", wireJson(block.signature_wire)},
              {"data", block.data},
              {"reasoning_id", block.reasoning_id},
              {"cache_control", block.cache_control},
              {"raw", block.raw},
              {"raw_wire", wireJson(block.raw_wire)}};
}

Json toJson(const Request& request) {
  Json system = Json::array();
  for (const ContentBlock& block : request.system) system.push_back(toJson(block));
  Json messages = Json::array();
  for (const Message& message : request.messages) {
    Json content = Json::array();
    for (const ContentBlock& block : message.content) content.push_back(toJson(block));
    messages.push_back(Json{{"role", message.role == Role::User ? "user" : "assistant"}, {"content", content}});
  }
  Json tools = Json::array();
  for (const Tool& tool : request.tools) {
    tools.push_back(Json{{"name", tool.name},
                         {"description", tool.description},
                         {"input_schema", tool.input_schema},
                         {"strict", optionalJson(tool.strict)},
                         {"cache_control", tool.cache_control},
                         {"raw", tool.raw},
                         {"raw_wire", wireJson(tool.raw_wire)}});
  }
  Json tool_choice = nullptr;
  if (request.tool_choice) {
    tool_choice = Json{{"mode", static_cast<int>(request.tool_choice->mode)},
                       {"name", request.tool_choice->name},
                       {"disable_parallel", request.tool_choice->disable_parallel}};
  }
  Json response_format = nullptr;
  if (request.response_format) {
    response_format = Json{{"kind", static_cast<int>(request.response_format->kind)},
                           {"name", request.response_format->name},
                           {"schema", request.response_format->schema},
                           {"strict", optionalJson(request.response_format->strict)}};
  }
  Json reasoning = nullptr;
  if (request.reasoning) {
    reasoning = Json{{"enabled", request.reasoning->enabled},
                     {"budget_tokens", optionalJson(request.reasoning->budget_tokens)},
                     {"effort", request.reasoning->effort},
                     {"summary", request.reasoning->summary}};
  }
  return Json{{"model", request.model},
              {"system", system},
              {"messages", messages},
              {"tools", tools},
              {"tool_choice", tool_choice},
              {"parallel_tool_calls", optionalJson(request.parallel_tool_calls)},
              {"max_tokens", optionalJson(request.max_tokens)},
              {"temperature", optionalJson(request.temperature)},
              {"top_p", optionalJson(request.top_p)},
              {"top_k", optionalJson(request.top_k)},
              {"stop_sequences", request.stop_sequences},
              {"stream", request.stream},
              {"response_format", response_format},
              {"reasoning", reasoning},
              {"user", optionalJson(request.user)}};
}

Json toJson(const Response& response) {
  Json content = Json::array();
  for (const ContentBlock& block : response.content) content.push_back(toJson(block));
  return Json{{"id", response.id},
              {"model", response.model},
              {"content", content},
              {"stop_reason", static_cast<int>(response.stop_reason)},
              {"stop_sequence", response.stop_sequence},
              {"usage", toJson(response.usage)},
              {"usage_reported", response.usage_reported}};
}

Json toJson(const StreamEvent& event) {
  return Json{{"type", static_cast<int>(event.type)},
              {"index", event.index},
              {"block", toJson(event.block)},
              {"delta_kind", deltaKindName(event.delta_kind)},
              {"delta", event.delta},
              {"id", event.id},
              {"model", event.model},
              {"usage", toJson(event.usage)},
              {"usage_reported", event.usage_reported},
              {"stop_reason", event.stop_reason ? Json(static_cast<int>(*event.stop_reason)) : Json(nullptr)},
              {"stop_sequence", event.stop_sequence},
              {"error",
               {{"status", event.error.status},
                {"key", event.error.key},
                {"message", event.error.message},
                {"param", optionalJson(event.error.param)},
                {"retry_after_seconds", optionalJson(event.error.retry_after_seconds)}}}};
}

Json toJson(const std::vector<StreamEvent>& events) {
  Json out = Json::array();
  for (const StreamEvent& event : events) out.push_back(toJson(event));
  return out;
}

}  // namespace sluice::wire::anthropic::test
