#include "tools/mock-provider/fixture_replay.h"

#include <cctype>
#include <sstream>

#include <Poco/Exception.h>
#include <Poco/InflatingStream.h>
#include <Poco/StreamCopier.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "tools/mock-provider/sse_event.h"
#include "tools/mock-provider/yaml_json.h"

namespace sluice::mock {
namespace {

bool isHopByHop(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name == "content-length" || name == "transfer-encoding" || name == "connection" ||
         name == "content-encoding" || name == "keep-alive" || name == "content-type" || name == "date" ||
         name == "set-cookie";
}

std::string inflateGzip(const std::string& compressed) {
  std::istringstream in(compressed);
  Poco::InflatingInputStream inflater(in, Poco::InflatingStreamBuf::STREAM_GZIP);
  std::string out;
  Poco::StreamCopier::copyToString(inflater, out);
  return out;
}

}  // namespace

std::expected<Replay, std::string> replayChunks(Wire wire, std::string_view jsonl) {
  std::vector<SseEvent> events;
  std::size_t line_number = 0;
  while (!jsonl.empty()) {
    const auto newline = jsonl.find('\n');
    std::string_view line = jsonl.substr(0, newline);
    jsonl.remove_prefix(newline == std::string_view::npos ? jsonl.size() : newline + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return std::unexpected("line " + std::to_string(line_number) + " is not JSON");
    std::string name;
    if (json.is_object() && json.contains("type") && json["type"].is_string()) name = json["type"].get<std::string>();
    events.push_back({name, std::string(line)});
  }
  Replay replay;
  replay.stream = true;
  Framing framing = Framing::DataOnly;
  switch (wire) {
    case Wire::Anthropic:
    case Wire::OpenAiResponses: framing = Framing::NamedEvents; break;
    case Wire::OpenAiChat:
      framing = Framing::DataOnly;
      events.push_back({"", "[DONE]"});
      break;
    case Wire::Gemini: framing = Framing::DataCrlf; break;
  }
  replay.content_type = wire == Wire::Gemini ? "text/event-stream" : "text/event-stream; charset=utf-8";
  replay.frames = frameEvents(framing, events);
  return replay;
}

Replay replayJsonBody(std::string body) {
  Replay replay;
  replay.body = std::move(body);
  return replay;
}

std::vector<std::string> splitSseFrames(std::string_view raw) {
  std::vector<std::string> frames;
  std::size_t start = 0;
  while (start < raw.size()) {
    const auto lf = raw.find("\n\n", start);
    const auto crlf = raw.find("\r\n\r\n", start);
    std::size_t end = std::string_view::npos;
    if (crlf != std::string_view::npos && (lf == std::string_view::npos || crlf < lf)) end = crlf + 4;
    else if (lf != std::string_view::npos) end = lf + 2;
    if (end == std::string_view::npos) {
      const std::string_view rest = raw.substr(start);
      if (rest.find_first_not_of("\r\n \t") == std::string_view::npos && !frames.empty()) frames.back() += rest;
      else frames.emplace_back(rest);
      break;
    }
    const std::string_view frame = raw.substr(start, end - start);
    if (frame.find_first_not_of("\r\n") == std::string_view::npos && !frames.empty()) frames.back() += frame;
    else frames.emplace_back(frame);
    start = end;
  }
  return frames;
}

std::expected<Replay, std::string> replayCassette(std::string_view yaml_text, int index) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& error) {
    return std::unexpected(std::string("invalid YAML: ") + error.what());
  }
  const YAML::Node interactions = root["interactions"];
  if (!interactions.IsSequence() || index < 0 || static_cast<std::size_t>(index) >= interactions.size())
    return std::unexpected("cassette has no interaction " + std::to_string(index));
  const YAML::Node response = interactions[static_cast<std::size_t>(index)]["response"];
  if (!response.IsMap()) return std::unexpected("interaction " + std::to_string(index) + " has no response");

  Replay replay;
  try {
    if (response["status"]["code"]) replay.status = response["status"]["code"].as<int>();
    if (const YAML::Node headers = response["headers"]; headers.IsMap()) {
      for (const auto& pair : headers) {
        const auto name = pair.first.as<std::string>();
        const YAML::Node values = pair.second;
        const std::string first = values.IsSequence() && values.size() > 0 ? values[0].as<std::string>()
                                  : values.IsScalar()                      ? values.as<std::string>()
                                                                           : std::string();
        std::string lower = name;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower == "content-type") replay.content_type = first;
        else if (!isHopByHop(name)) replay.headers.emplace_back(name, first);
      }
    }
    const YAML::Node body = response["body"];
    if (body && body["string"]) {
      const YAML::Node string = body["string"];
      if (string.Tag() == "tag:yaml.org,2002:binary") {
        const YAML::Binary binary = string.as<YAML::Binary>();
        replay.body = inflateGzip(std::string(reinterpret_cast<const char*>(binary.data()), binary.size()));
      } else {
        replay.body = string.as<std::string>();
      }
    } else if (response["parsed_body"]) {
      replay.body = yamlToJson(response["parsed_body"]).dump();
    }
  } catch (const YAML::Exception& error) {
    return std::unexpected(std::string("unreadable response: ") + error.what());
  } catch (const Poco::Exception& error) {
    return std::unexpected("cannot inflate the body: " + error.displayText());
  }
  if (replay.content_type.find("text/event-stream") != std::string::npos) {
    replay.stream = true;
    replay.frames = splitSseFrames(replay.body);
    replay.body.clear();
  }
  return replay;
}

std::expected<Replay, std::string> replayFixture(Wire wire, std::string_view file_name, std::string_view content,
                                                 int interaction) {
  if (file_name.ends_with(".chunks.txt")) return replayChunks(wire, content);
  if (file_name.ends_with(".json")) return replayJsonBody(std::string(content));
  if (file_name.ends_with(".yaml") || file_name.ends_with(".yml")) return replayCassette(content, interaction);
  return std::unexpected("unknown fixture kind (want .chunks.txt, .json or .yaml): " + std::string(file_name));
}

}  // namespace sluice::mock
