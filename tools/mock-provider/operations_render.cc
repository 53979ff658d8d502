#include "tools/mock-provider/operations_render.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "tools/mock-provider/tokens.h"

namespace sluice::mock {

namespace {

using Json = nlohmann::ordered_json;

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i < bytes.size()) {
    auto n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

ErrorSpec invalid(std::string message, std::optional<std::string> param = std::nullopt) {
  ErrorSpec error;
  error.status = 400;
  error.type = "invalid_request_error";
  error.message = std::move(message);
  error.param = std::move(param);
  return error;
}

Rendered jsonAnswer(const Json& body) {
  return Rendered{"application/json", false, body.dump(-1, ' ', false, Json::error_handler_t::replace), {}};
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::set<std::string> words(std::string_view text) {
  std::set<std::string> out;
  std::string word;
  for (const char c : lower(text)) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += c;
    } else if (!word.empty()) {
      out.insert(word);
      word.clear();
    }
  }
  if (!word.empty()) out.insert(word);
  return out;
}

double rounded(double value, double scale) { return std::round(value * scale) / scale; }

std::expected<Json, ErrorSpec> parseObject(std::string_view body) {
  Json json = Json::parse(body, nullptr, false);
  if (!json.is_object()) return std::unexpected(invalid("We could not parse the JSON body of your request."));
  return json;
}

std::expected<Rendered, ErrorSpec> embeddings(const Json& request) {
  if (!request.contains("input")) return std::unexpected(invalid("'input' is a required property", "input"));
  std::vector<std::string> inputs;
  const Json& input = request["input"];
  if (input.is_string()) {
    inputs.push_back(input.get<std::string>());
  } else if (input.is_array() && !input.empty()) {
    for (const auto& item : input) inputs.push_back(item.is_string() ? item.get<std::string>() : item.dump());
  } else {
    return std::unexpected(invalid("'input' must be a string or a non-empty array", "input"));
  }
  int dimensions = 8;
  if (request.contains("dimensions") && request["dimensions"].is_number_integer()) {
    dimensions = std::clamp(request["dimensions"].get<int>(), 1, 4096);
  }
  const bool as_base64 = request.value("encoding_format", std::string("float")) == "base64";
  Json data = Json::array();
  std::int64_t tokens = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    tokens += countTokens(inputs[i]);
    const auto vector = mockEmbedding(inputs[i], dimensions);
    Json embedding;
    if (as_base64) {
      std::string bytes;
      for (const double value : vector) {
        const float narrow = static_cast<float>(value);
        char raw[4];
        std::memcpy(raw, &narrow, 4);  // little-endian on every platform the mock runs on
        bytes.append(raw, 4);
      }
      embedding = base64(bytes);
    } else {
      embedding = vector;
    }
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", embedding}});
  }
  return jsonAnswer({{"object", "list"},
                     {"data", data},
                     {"model", request.value("model", std::string())},
                     {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}});
}

std::expected<Rendered, ErrorSpec> images(const Json& request, std::uint64_t seq, std::int64_t created) {
  if (!request.contains("prompt") || !request["prompt"].is_string()) {
    return std::unexpected(invalid("'prompt' is a required property", "prompt"));
  }
  const std::string prompt = request["prompt"].get<std::string>();
  int n = 1;
  if (request.contains("n") && request["n"].is_number_integer()) n = request["n"].get<int>();
  if (n < 1 || n > 10) return std::unexpected(invalid("'n' must be between 1 and 10", "n"));
  const bool url = request.value("response_format", std::string("b64_json")) == "url";
  Json data = Json::array();
  for (int i = 0; i < n; ++i) {
    if (url) {
      data.push_back({{"url", "https://mock-provider.invalid/images/" + std::to_string(seq) + "-" + std::to_string(i) + ".png"}});
    } else {
      data.push_back({{"b64_json", base64("mock image " + std::to_string(i) + " for: " + prompt)}});
    }
  }
  return jsonAnswer({{"created", created}, {"data", data}});
}

std::expected<Rendered, ErrorSpec> speech(const Json& request) {
  if (!request.contains("input") || !request["input"].is_string()) {
    return std::unexpected(invalid("'input' is a required property", "input"));
  }
  const std::string format = request.value("response_format", std::string("mp3"));
  static const std::vector<std::pair<std::string, std::string>> kTypes = {
      {"mp3", "audio/mpeg"}, {"opus", "audio/ogg"}, {"aac", "audio/aac"},
      {"flac", "audio/flac"}, {"wav", "audio/wav"}, {"pcm", "audio/pcm"}};
  const auto type = std::find_if(kTypes.begin(), kTypes.end(), [&](const auto& entry) { return entry.first == format; });
  if (type == kTypes.end()) return std::unexpected(invalid("'response_format' is not one of mp3, opus, aac, flac, wav, pcm", "response_format"));
  std::string audio = "MOCKAUDIO/" + format + "/";
  for (int byte = 0; byte < 256; ++byte) audio += static_cast<char>(byte);
  audio += request["input"].get<std::string>();
  return Rendered{type->second, false, audio, {}};
}

std::expected<Rendered, ErrorSpec> transcription(std::string_view content_type, std::string_view body, bool translate) {
  const auto fields = parseMultipart(content_type, body);
  if (!fields) return std::unexpected(invalid("the body must be multipart/form-data with a boundary"));
  const FormField* file = nullptr;
  std::string model;
  std::string format = "json";
  for (const auto& field : *fields) {
    if (field.name == "file" && !file) file = &field;
    if (field.name == "model") model = field.value;
    if (field.name == "response_format") format = field.value;
  }
  if (!file) return std::unexpected(invalid("you must provide a 'file'", "file"));
  if (model.empty()) return std::unexpected(invalid("you must provide a 'model'", "model"));
  const std::string name = file->filename.value_or("upload");
  char checksum[24];
  std::snprintf(checksum, sizeof checksum, "%016llx", static_cast<unsigned long long>(fnv1a(file->value)));
  const std::string text = std::string(translate ? "Mock translation" : "Mock transcription") + " of " + name +
                           ": " + std::to_string(file->value.size()) + " bytes, fnv " + checksum + ".";
  const double duration = rounded(static_cast<double>(file->value.size()) / 16000.0, 1000.0);
  if (format == "text") return Rendered{"text/plain; charset=utf-8", false, text + "\n", {}};
  if (format == "srt") return Rendered{"text/plain; charset=utf-8", false, "1\n00:00:00,000 --> 00:00:01,000\n" + text + "\n\n", {}};
  if (format == "vtt") return Rendered{"text/plain; charset=utf-8", false, "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n" + text + "\n\n", {}};
  if (format == "verbose_json") {
    return jsonAnswer({{"task", translate ? "translate" : "transcribe"},
                       {"language", "english"},
                       {"duration", duration},
                       {"text", text},
                       {"segments", Json::array()}});
  }
  if (format != "json") return std::unexpected(invalid("'response_format' is not one of json, text, srt, verbose_json, vtt", "response_format"));
  return jsonAnswer({{"text", text}, {"usage", {{"type", "duration"}, {"seconds", static_cast<std::int64_t>(std::ceil(duration))}}}});
}

std::expected<Rendered, ErrorSpec> moderations(const Json& request, std::uint64_t seq) {
  if (!request.contains("input")) return std::unexpected(invalid("'input' is a required property", "input"));
  std::vector<std::string> inputs;
  const Json& input = request["input"];
  if (input.is_string()) {
    inputs.push_back(input.get<std::string>());
  } else if (input.is_array()) {
    for (const auto& item : input) {
      if (item.is_string()) inputs.push_back(item.get<std::string>());
      else if (item.is_object() && item.value("type", "") == "text") inputs.push_back(item.value("text", ""));
      else inputs.emplace_back();
    }
  } else {
    return std::unexpected(invalid("'input' must be a string or an array", "input"));
  }
  Json results = Json::array();
  for (const auto& text : inputs) {
    const std::string low = lower(text);
    const bool violent = low.find("violence") != std::string::npos || low.find("kill") != std::string::npos;
    const bool hateful = low.find("hate") != std::string::npos;
    Json categories = {{"harassment", false}, {"hate", hateful}, {"self-harm", false}, {"sexual", false}, {"violence", violent}};
    Json scores = {{"harassment", 0.0001}, {"hate", hateful ? 0.91 : 0.0001}, {"self-harm", 0.0001},
                   {"sexual", 0.0001}, {"violence", violent ? 0.93 : 0.0001}};
    results.push_back({{"flagged", violent || hateful}, {"categories", categories}, {"category_scores", scores}});
  }
  return jsonAnswer({{"id", "modr-mock-" + std::to_string(seq)}, {"model", request.value("model", std::string())}, {"results", results}});
}

std::expected<Rendered, ErrorSpec> rerank(const Json& request, std::uint64_t seq) {
  if (!request.contains("query") || !request["query"].is_string()) {
    return std::unexpected(invalid("'query' is a required property", "query"));
  }
  if (!request.contains("documents") || !request["documents"].is_array()) {
    return std::unexpected(invalid("'documents' is a required property", "documents"));
  }
  const std::string query = request["query"].get<std::string>();
  const auto query_words = words(query);
  std::vector<std::string> documents;
  for (const auto& item : request["documents"]) {
    documents.push_back(item.is_string() ? item.get<std::string>() : item.is_object() ? item.value("text", "") : item.dump());
  }
  std::vector<std::pair<double, size_t>> scored;
  std::int64_t tokens = countTokens(query);
  for (size_t i = 0; i < documents.size(); ++i) {
    tokens += countTokens(documents[i]);
    const auto doc_words = words(documents[i]);
    size_t shared = 0;
    for (const auto& word : query_words) shared += doc_words.count(word);
    const double score = query_words.empty() ? 0.0 : rounded(static_cast<double>(shared) / static_cast<double>(query_words.size()), 10000.0);
    scored.emplace_back(score, i);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  size_t top = scored.size();
  if (request.contains("top_n") && request["top_n"].is_number_integer() && request["top_n"].get<std::int64_t>() >= 0) {
    top = std::min(top, static_cast<size_t>(request["top_n"].get<std::int64_t>()));
  }
  const bool with_documents = request.value("return_documents", false);
  Json results = Json::array();
  for (size_t k = 0; k < top; ++k) {
    Json result = {{"index", scored[k].second}, {"relevance_score", scored[k].first}};
    if (with_documents) result["document"] = {{"text", documents[scored[k].second]}};
    results.push_back(result);
  }
  return jsonAnswer({{"id", "rerank-mock-" + std::to_string(seq)},
                     {"model", request.value("model", std::string())},
                     {"results", results},
                     {"usage", {{"total_tokens", tokens}}}});
}

}  // namespace

std::vector<double> mockEmbedding(std::string_view text, int dimensions) {
  std::vector<double> vector;
  vector.reserve(static_cast<size_t>(dimensions));
  for (int k = 0; k < dimensions; ++k) {
    const std::uint64_t hash = fnv1a(std::string(text) + "#" + std::to_string(k));
    vector.push_back(static_cast<double>(static_cast<std::int64_t>(hash % 2000001) - 1000000) / 1e6);
  }
  return vector;
}

std::optional<std::vector<FormField>> parseMultipart(std::string_view content_type, std::string_view body) {
  const auto at = lower(content_type).find("boundary=");
  if (lower(content_type).find("multipart/form-data") == std::string::npos || at == std::string::npos) return std::nullopt;
  std::string boundary(content_type.substr(at + 9));
  if (const auto end = boundary.find(';'); end != std::string::npos) boundary.resize(end);
  if (boundary.size() >= 2 && boundary.front() == '"' && boundary.back() == '"') boundary = boundary.substr(1, boundary.size() - 2);
  if (boundary.empty()) return std::nullopt;
  const std::string delimiter = "--" + boundary;
  size_t position = body.find(delimiter);
  if (position == std::string_view::npos) return std::nullopt;
  std::vector<FormField> fields;
  for (;;) {
    position += delimiter.size();
    if (body.substr(position, 2) == "--") return fields;
    if (body.substr(position, 2) != "\r\n") return std::nullopt;
    position += 2;
    const size_t head_end = body.find("\r\n\r\n", position);
    if (head_end == std::string_view::npos) return std::nullopt;
    const std::string_view head = body.substr(position, head_end - position);
    const size_t next = body.find("\r\n" + delimiter, head_end + 4);
    if (next == std::string_view::npos) return std::nullopt;
    FormField field;
    field.value = std::string(body.substr(head_end + 4, next - head_end - 4));
    size_t line_start = 0;
    while (line_start <= head.size()) {
      size_t line_end = head.find("\r\n", line_start);
      if (line_end == std::string_view::npos) line_end = head.size();
      const std::string_view line = head.substr(line_start, line_end - line_start);
      const std::string low = lower(line);
      if (low.starts_with("content-disposition:")) {
        const auto quoted = [&](std::string_view key) -> std::optional<std::string> {
          const std::string needle = std::string(key) + "=\"";
          size_t from = 0;
          while ((from = low.find(needle, from)) != std::string::npos) {
            if (from == 0 || low[from - 1] == ' ' || low[from - 1] == ';') {
              const size_t begin = from + needle.size();
              const size_t end = line.find('"', begin);
              if (end == std::string_view::npos) return std::nullopt;
              return std::string(line.substr(begin, end - begin));
            }
            from += needle.size();
          }
          return std::nullopt;
        };
        field.name = quoted("name").value_or("");
        field.filename = quoted("filename");
      } else if (low.starts_with("content-type:")) {
        field.content_type = std::string(line.substr(13));
        while (!field.content_type.empty() && field.content_type.front() == ' ') field.content_type.erase(0, 1);
      }
      line_start = line_end + 2;
    }
    fields.push_back(std::move(field));
    position = next + 2;
  }
}

std::expected<Rendered, ErrorSpec> renderOperation(Endpoint endpoint, std::string_view content_type,
                                                   std::string_view body, std::uint64_t seq, std::int64_t created) {
  if (endpoint == Endpoint::AudioTranscriptions || endpoint == Endpoint::AudioTranslations) {
    return transcription(content_type, body, endpoint == Endpoint::AudioTranslations);
  }
  auto request = parseObject(body);
  if (!request) return std::unexpected(request.error());
  if (!request->contains("model") || !(*request)["model"].is_string()) {
    return std::unexpected(invalid("you must provide a model parameter", "model"));
  }
  switch (endpoint) {
    case Endpoint::Embeddings: return embeddings(*request);
    case Endpoint::ImageGenerations: return images(*request, seq, created);
    case Endpoint::AudioSpeech: return speech(*request);
    case Endpoint::Moderations: return moderations(*request, seq);
    case Endpoint::Rerank: return rerank(*request, seq);
    default: break;
  }
  return std::unexpected(invalid("not an operation endpoint"));
}

}  // namespace sluice::mock
