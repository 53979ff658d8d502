#include "server/wire/mcp/jsonrpc.h"

#include <algorithm>
#include <optional>

#include "server/wire/error_keys.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::mcp {

namespace {

ApiError invalidMessage(std::string message) {
  return ApiError::make(400, error_keys::kInvalidJsonRpc, std::move(message));
}

ApiError invalidParams(std::string message) { return ApiError::make(400, error_keys::kInvalidParams, std::move(message)); }

void rewriteAt(Json& value, const std::function<void(std::string&)>& rewrite, int depth) {
  if (depth > kMaxJsonDepth) return;
  if (value.is_string()) {
    rewrite(value.get_ref<std::string&>());
  } else if (value.is_array()) {
    for (Json& item : value) rewriteAt(item, rewrite, depth + 1);
  } else if (value.is_object()) {
    for (auto& [key, item] : value.items()) rewriteAt(item, rewrite, depth + 1);
  }
}

}  // namespace

bool Message::audited() const {
  return kind == Kind::Request && (method == "tools/call" || method == "resources/read" || method == "prompts/get");
}

std::expected<Message, ApiError> readMessage(const Json& document) {
  if (document.is_array()) {
    return std::unexpected(invalidMessage("JSON-RPC batches are not accepted: send one message per request"));
  }
  if (!document.is_object()) return std::unexpected(invalidMessage("the body is not a JSON-RPC message (an object)"));
  const auto version = document.find("jsonrpc");
  if (version == document.end() || !version->is_string() || version->get_ref<const std::string&>() != "2.0") {
    return std::unexpected(invalidMessage("the message needs \"jsonrpc\": \"2.0\""));
  }
  Message message;
  const auto id = document.find("id");
  const bool has_id = id != document.end();
  if (has_id && !id->is_string() && !id->is_number_integer()) {
    return std::unexpected(invalidMessage("the message's id must be a string or an integer"));
  }
  if (has_id && id->is_string() && id->get_ref<const std::string&>().size() > kMaxNameBytes) {
    return std::unexpected(invalidMessage("the message's id is longer than " + std::to_string(kMaxNameBytes) + " bytes"));
  }
  if (has_id) message.id = *id;
  const auto method = document.find("method");
  if (method == document.end()) {
    if (!has_id || (!document.contains("result") && !document.contains("error"))) {
      return std::unexpected(invalidMessage("the message has no method and is not a response"));
    }
    message.kind = Kind::Response;
    return message;
  }
  if (!method->is_string() || method->get_ref<const std::string&>().empty() ||
      method->get_ref<const std::string&>().size() > kMaxNameBytes) {
    return std::unexpected(invalidMessage("the message's method must be a non-empty string"));
  }
  message.method = method->get<std::string>();
  message.kind = has_id ? Kind::Request : Kind::Notification;
  if (!message.audited()) return message;
  const auto params = document.find("params");
  if (params == document.end() || !params->is_object()) {
    return std::unexpected(invalidParams(message.method + " needs params (an object)"));
  }
  const bool by_uri = message.method == "resources/read";
  const char* field = by_uri ? "uri" : "name";
  const auto target = params->find(field);
  if (target == params->end() || !target->is_string() || target->get_ref<const std::string&>().empty()) {
    return std::unexpected(invalidParams(message.method + " needs params." + field + " (a non-empty string)"));
  }
  const size_t bound = by_uri ? kMaxUriBytes : kMaxNameBytes;
  if (target->get_ref<const std::string&>().size() > bound) {
    return std::unexpected(invalidParams("params." + std::string(field) + " is longer than " + std::to_string(bound) +
                                         " bytes"));
  }
  message.target = target->get<std::string>();
  return message;
}

Json errorMessage(const Json& id, const ApiError& error, std::string_view request_id) {
  Json data = {{"status", error.status}};
  if (!error.key.empty()) data["error_key"] = error.key;
  if (!request_id.empty()) data["request_id"] = std::string(request_id);
  if (error.retry_after_seconds) data["retry_after_seconds"] = *error.retry_after_seconds;
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"error", {{"code", jsonRpcCodeFor(error)}, {"message", error.message}, {"data", std::move(data)}}}};
}

size_t keepTools(Json& result, const std::function<bool(std::string_view)>& allowed) {
  if (!result.is_object()) return 0;
  const auto tools = result.find("tools");
  if (tools == result.end() || !tools->is_array()) return 0;
  const size_t before = tools->size();
  Json kept = Json::array();
  for (Json& tool : *tools) {
    const auto name = tool.is_object() ? tool.find("name") : tool.end();
    // A tool without a name cannot be called, nor allowed by name: it is not shown.
    if (name == tool.end() || !name->is_string() || !allowed(name->get_ref<const std::string&>())) continue;
    kept.push_back(std::move(tool));
  }
  const size_t removed = before - kept.size();
  *tools = std::move(kept);
  return removed;
}

void rewriteStrings(Json& value, const std::function<void(std::string&)>& rewrite) { rewriteAt(value, rewrite, 0); }

size_t eventEnd(std::string_view buffer, size_t& separator, size_t from) {
  const size_t lf = buffer.find("\n\n", from);
  const size_t crlf = buffer.find("\r\n\r\n", from);
  if (crlf != std::string_view::npos && (lf == std::string_view::npos || crlf < lf)) {
    separator = 4;
    return crlf;
  }
  separator = 2;
  return lf;
}

std::string rewriteEvent(std::string_view block, const std::function<void(Json&)>& rewrite) {
  // The event rebuilt from its lines: fields kept in order, the data where its first line stood.
  std::string kept;
  std::string data;
  std::optional<size_t> data_at;
  size_t start = 0;
  while (start <= block.size()) {
    // A line ends at "\r\n", "\n" or a lone "\r", as SSE has it.
    size_t stop = block.find_first_of("\r\n", start);
    if (stop == std::string_view::npos) stop = block.size();
    const std::string_view line = block.substr(start, stop - start);
    start = stop + (stop + 1 < block.size() && block[stop] == '\r' && block[stop + 1] == '\n' ? 2 : 1);
    if (line.starts_with("data:")) {
      std::string_view value = line.substr(5);
      if (value.starts_with(' ')) value.remove_prefix(1);
      if (data_at) {
        data += '\n';
      } else {
        data_at = kept.size();
      }
      data += value;
    } else if (!line.empty()) {
      kept.append(line).append("\n");
    }
  }
  if (data_at) {
    std::string lines;
    Json message = data.empty() ? Json(Json::value_t::discarded) : parseBounded(data);
    if (!message.is_discarded()) {
      rewrite(message);
      lines = "data: " + dumpJsonText(message) + "\n";
    } else {
      size_t from = 0;  // not JSON: the data lines as they came
      for (;;) {
        const size_t to = data.find('\n', from);
        lines += "data: " + data.substr(from, to == std::string::npos ? std::string::npos : to - from) + "\n";
        if (to == std::string::npos) break;
        from = to + 1;
      }
    }
    kept.insert(*data_at, lines);
  }
  return kept.empty() ? std::string() : kept + "\n";
}

bool validSessionId(std::string_view id) {
  return !id.empty() && id.size() <= kMaxSessionIdBytes &&
         std::ranges::all_of(id, [](char c) { return c >= 0x21 && c <= 0x7e; });
}

}  // namespace sluice::wire::mcp
