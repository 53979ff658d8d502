#include "tools/mock-provider/script.h"

#include <cmath>

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

std::expected<int, std::string> toInt(const Json& value, std::string_view field, int min, int max) {
  if (!value.is_number_integer() && !(value.is_number_float() && std::trunc(value.get<double>()) == value.get<double>()))
    return std::unexpected("x-mock-script: '" + std::string(field) + "' must be an integer");
  const auto number = value.get<std::int64_t>();
  if (number < min || number > max)
    return std::unexpected("x-mock-script: '" + std::string(field) + "' must be between " + std::to_string(min) +
                           " and " + std::to_string(max));
  return static_cast<int>(number);
}

std::expected<std::string, std::string> toString(const Json& value, std::string_view field) {
  if (!value.is_string()) return std::unexpected("x-mock-script: '" + std::string(field) + "' must be a string");
  return value.get<std::string>();
}

std::expected<bool, std::string> toBool(const Json& value, std::string_view field) {
  if (!value.is_boolean()) return std::unexpected("x-mock-script: '" + std::string(field) + "' must be true or false");
  return value.get<bool>();
}

std::expected<void, std::string> parseUsage(const Json& value, UsageOverride& usage) {
  if (!value.is_object()) return std::unexpected("x-mock-script: 'usage' must be an object");
  for (const auto& [key, item] : value.items()) {
    if (!item.is_number_integer() || item.get<std::int64_t>() < 0)
      return std::unexpected("x-mock-script: 'usage." + key + "' must be a non-negative integer");
    const auto number = item.get<std::int64_t>();
    if (key == "input_tokens") usage.input_tokens = number;
    else if (key == "output_tokens") usage.output_tokens = number;
    else if (key == "cache_read") usage.cache_read = number;
    else if (key == "cache_write") usage.cache_write = number;
    else if (key == "reasoning") usage.reasoning = number;
    else return std::unexpected("x-mock-script: unknown field 'usage." + key + "'");
  }
  return {};
}

// Assigns an expected value to an optional/plain target, or returns the error.
template <typename T, typename Target>
std::expected<void, std::string> assign(std::expected<T, std::string> parsed, Target& target) {
  if (!parsed) return std::unexpected(parsed.error());
  target = *parsed;
  return {};
}

std::expected<void, std::string> parseField(const std::string& key, const Json& value, Script& script) {
  constexpr int kMaxMs = 600'000;
  constexpr int kMaxEvents = 1'000'000;
  if (key == "status") return assign(toInt(value, key, 100, 599), script.status);
  if (key == "error_type") return assign(toString(value, key), script.error_type);
  if (key == "error_message") return assign(toString(value, key), script.error_message);
  if (key == "error_code") return assign(toString(value, key), script.error_code);
  if (key == "retry_after") {
    if (value.is_number_integer()) {
      script.retry_after = std::to_string(value.get<std::int64_t>());
      return {};
    }
    if (value.is_number_float()) {
      script.retry_after = value.dump();
      return {};
    }
    return assign(toString(value, key), script.retry_after);
  }
  if (key == "delay_ms") return assign(toInt(value, key, 0, kMaxMs), script.delay_ms);
  if (key == "chunk_delay_ms") return assign(toInt(value, key, 0, kMaxMs), script.chunk_delay_ms);
  if (key == "stall_after_events") return assign(toInt(value, key, 0, kMaxEvents), script.stall_after_events);
  if (key == "reset_after_events") return assign(toInt(value, key, 0, kMaxEvents), script.reset_after_events);
  if (key == "in_stream_error") {
    if (value.is_boolean()) {
      if (value.get<bool>()) script.in_stream_error = 1;
      return {};
    }
    return assign(toInt(value, key, 0, kMaxEvents), script.in_stream_error);
  }
  if (key == "bad_frame_after") return assign(toInt(value, key, 0, kMaxEvents), script.bad_frame_after);
  if (key == "echo") return assign(toBool(value, key), script.echo);
  if (key == "prefix_cache") return assign(toBool(value, key), script.prefix_cache);
  if (key == "fixture") return assign(toString(value, key), script.fixture);
  if (key == "interaction") return assign(toInt(value, key, 0, 10'000), script.interaction);
  if (key == "text") return assign(toString(value, key), script.text);
  if (key == "echo_text") return assign(toBool(value, key), script.echo_text);
  if (key == "text_chunk_bytes") return assign(toInt(value, key, 0, 1'000'000), script.text_chunk_bytes);
  if (key == "tool_call") return assign(toBool(value, key), script.tool_call);
  if (key == "tool_name") return assign(toString(value, key), script.tool_name);
  if (key == "tool_namespace") return assign(toString(value, key), script.tool_namespace);
  if (key == "tool_arguments") {
    if (!value.is_object()) return std::unexpected("x-mock-script: 'tool_arguments' must be an object");
    script.tool_arguments = value;
    return {};
  }
  if (key == "thinking") return assign(toBool(value, key), script.thinking);
  if (key == "reject_fields") {
    if (!value.is_array()) return std::unexpected("x-mock-script: 'reject_fields' must be an array of strings");
    for (const auto& item : value) {
      if (!item.is_string()) return std::unexpected("x-mock-script: 'reject_fields' must be an array of strings");
      script.reject_fields.push_back(item.get<std::string>());
    }
    return {};
  }
  if (key == "finish") {
    auto name = toString(value, key);
    if (!name) return std::unexpected(name.error());
    if (*name == "stop") script.finish = Finish::Stop;
    else if (*name == "length") script.finish = Finish::Length;
    else if (*name == "content_filter") script.finish = Finish::ContentFilter;
    else return std::unexpected("x-mock-script: 'finish' must be \"stop\", \"length\" or \"content_filter\"");
    return {};
  }
  if (key == "usage") return parseUsage(value, script.usage);
  if (key == "headers") {
    if (!value.is_object()) return std::unexpected("x-mock-script: 'headers' must be an object of strings");
    for (const auto& [name, header] : value.items()) {
      if (!header.is_string()) return std::unexpected("x-mock-script: 'headers." + name + "' must be a string");
      script.headers.emplace_back(name, header.get<std::string>());
    }
    return {};
  }
  return std::unexpected("x-mock-script: unknown field '" + key + "'");
}

}  // namespace

std::expected<Script, std::string> parseScript(std::string_view json_text) {
  Script script;
  if (json_text.find_first_not_of(" \t\r\n") == std::string_view::npos) return script;
  const Json root = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return std::unexpected("x-mock-script: not valid JSON");
  if (!root.is_object()) return std::unexpected("x-mock-script: must be a JSON object");
  for (const auto& [key, value] : root.items()) {
    if (auto done = parseField(key, value, script); !done) return std::unexpected(done.error());
  }
  return script;
}

}  // namespace sluice::mock
