// Golden translations of every recorded provider response: each recording under tests/fixtures/
// is decoded with its provider wire's codec and encoded for each of the three client formats; the
// result must equal the checked-in file under tests/golden/ (reviewed by hand once).
//
// To regenerate after an intended change: SLUICE_UPDATE_GOLDEN=1 build/tests/wire_tests
//   --run_test=golden, then review `git diff tests/golden`.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include "server/wire/codec.h"

namespace fs = std::filesystem;
using sluice::catalog::Wire;

namespace {

std::string sourceDir() {
  const char* dir = std::getenv("SLUICE_SOURCE_DIR");
  return dir ? dir : SLUICE_SOURCE_DIR_DEFAULT;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<Wire> wireOfDir(const std::string& name) {
  if (name == "anthropic") return Wire::Anthropic;
  if (name == "openai-chat") return Wire::OpenAIChat;
  if (name == "openai-responses") return Wire::OpenAIResponses;
  if (name == "gemini") return Wire::Gemini;
  return std::nullopt;
}

// A vercel-ai JSONL recording framed as the provider sent it.
std::string frameChunks(Wire wire, const std::string& jsonl) {
  std::string out;
  std::istringstream lines(jsonl);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const auto event = nlohmann::json::parse(line, nullptr, false);
    const std::string type = event.is_object() && event.contains("type") && event["type"].is_string()
                                 ? event["type"].get<std::string>()
                                 : "";
    if (wire == Wire::Anthropic || wire == Wire::OpenAIResponses) out += "event: " + type + "\n";
    out += "data: " + line + (wire == Wire::Gemini ? "\r\n\r\n" : "\n\n");
  }
  if (wire == Wire::OpenAIChat) out += "data: [DONE]\n\n";
  return out;
}

const std::vector<std::pair<Wire, std::string>> kClients = {
    {Wire::Anthropic, "anthropic"}, {Wire::OpenAIChat, "openai-chat"}, {Wire::OpenAIResponses, "openai-responses"}};

std::string translateStream(Wire provider, Wire client, const std::string& bytes) {
  const sluice::wire::ResponseContext context{"golden-model", "01900000-0000-7000-8000-000000000000", 1700000000};
  auto decoder = sluice::wire::makeStreamDecoder(provider);
  auto encoder = sluice::wire::makeStreamEncoder(client, context);
  std::string out;
  for (const auto& event : decoder->feed(bytes)) out += encoder->encode(event);
  for (const auto& event : decoder->finish()) out += encoder->encode(event);
  out += encoder->finish();
  return out;
}

std::string translateBody(Wire provider, Wire client, const std::string& body) {
  const sluice::wire::ResponseContext context{"golden-model", "01900000-0000-7000-8000-000000000000", 1700000000};
  auto decoded = sluice::wire::decodeResponse(provider, body);
  if (!decoded) return "error: " + sluice::wire::renderError(client, decoded.error(), context.request_id) + "\n";
  auto encoded = nlohmann::ordered_json::parse(sluice::wire::encodeResponse(client, *decoded, context), nullptr, false);
  return encoded.dump(2) + "\n";
}

// Every recorded response body worth translating: (name, provider wire, is stream, bytes).
struct Recording {
  std::string name;
  Wire wire;
  bool stream;
  std::string bytes;
};

std::vector<Recording> recordings() {
  std::vector<Recording> out;
  const fs::path root = fs::path(sourceDir()) / "tests/fixtures";
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const auto wire = wireOfDir(path.parent_path().filename().string());
    if (!wire) continue;
    const std::string file = path.filename().string();
    const std::string base = path.parent_path().filename().string() + "__" + file;
    if (file.ends_with(".chunks.txt")) {
      out.push_back({base, *wire, true, frameChunks(*wire, readFile(path))});
    } else if (file.ends_with(".json")) {
      const std::string text = readFile(path);
      const auto parsed = nlohmann::json::parse(text, nullptr, false);
      if (parsed.is_object() && !parsed.contains("error")) out.push_back({base, *wire, false, text});
    } else if (file.ends_with(".yaml")) {
      const YAML::Node cassette = YAML::LoadFile(path.string());
      int index = 0;
      for (const auto& interaction : cassette["interactions"]) {
        const YAML::Node response = interaction["response"];
        const YAML::Node body_node = response && response.IsMap() ? response["body"] : YAML::Node();
        const YAML::Node body = body_node && body_node.IsMap() ? body_node["string"] : YAML::Node();
        const YAML::Node status_node = response && response.IsMap() ? response["status"] : YAML::Node();
        const int status = status_node && status_node.IsMap() && status_node["code"] ? status_node["code"].as<int>() : 0;
        if (status == 200 && body && body.IsScalar() && body.Tag() != "tag:yaml.org,2002:binary") {
          const std::string text = body.as<std::string>();
          const bool stream = text.find("data:") != std::string::npos;
          out.push_back({base + "." + std::to_string(index), *wire, stream, text});
        }
        ++index;
      }
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(golden)

BOOST_AUTO_TEST_CASE(every_recording_translates_to_every_client_format_as_checked_in) {
  const bool update = std::getenv("SLUICE_UPDATE_GOLDEN") != nullptr;
  const fs::path golden_dir = fs::path(sourceDir()) / "tests/golden";
  if (update) fs::create_directories(golden_dir);
  const auto all = recordings();
  BOOST_TEST(all.size() >= 20u);
  for (const auto& recording : all) {
    for (const auto& [client, client_name] : kClients) {
      const std::string actual = recording.stream ? translateStream(recording.wire, client, recording.bytes)
                                                  : translateBody(recording.wire, client, recording.bytes);
      const fs::path file = golden_dir / (recording.name + ".to-" + client_name + (recording.stream ? ".sse" : ".json"));
      BOOST_TEST_CONTEXT(file.filename().string()) {
        BOOST_TEST(!actual.empty());
        if (update) {
          std::ofstream(file, std::ios::binary) << actual;
        } else {
          BOOST_REQUIRE_MESSAGE(fs::exists(file), "missing golden file; run with SLUICE_UPDATE_GOLDEN=1");
          BOOST_TEST(readFile(file) == actual);
        }
      }
    }
  }
}

// The passthrough lane reads usage by scanning for it (codec.h, scanResponseUsage): on every
// recorded whole answer it must read what decoding the answer reads.
BOOST_AUTO_TEST_CASE(usage_read_by_scan_equals_usage_decoded_on_every_recording) {
  int compared = 0;
  for (const Recording& recording : recordings()) {
    if (recording.stream || recording.wire == Wire::Gemini) continue;
    const auto decoded = sluice::wire::decodeResponse(recording.wire, recording.bytes);
    if (!decoded) continue;
    const auto scanned = sluice::wire::scanResponseUsage(recording.wire, recording.bytes);
    BOOST_TEST_REQUIRE(scanned.has_value(), recording.name);
    BOOST_TEST(scanned->reported == decoded->usage_reported, recording.name);
    BOOST_TEST(scanned->usage.input_tokens == decoded->usage.input_tokens, recording.name);
    BOOST_TEST(scanned->usage.output_tokens == decoded->usage.output_tokens, recording.name);
    BOOST_TEST(scanned->usage.cache_read_tokens == decoded->usage.cache_read_tokens, recording.name);
    BOOST_TEST(scanned->usage.cache_write_tokens == decoded->usage.cache_write_tokens, recording.name);
    BOOST_TEST(scanned->usage.reasoning_tokens == decoded->usage.reasoning_tokens, recording.name);
    ++compared;
  }
  BOOST_TEST_MESSAGE("compared " << compared << " recordings");
  BOOST_TEST(compared >= 4);  // the whole (not streamed) non-Gemini answers among the recordings
}

BOOST_AUTO_TEST_SUITE_END()
