#include "server/responses/conversation.h"

#include <algorithm>

#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::responses {

namespace {

using wire::ApiError;

// An inlined item keeps only what a provider of any wire can read: its id goes unless it is a
// reasoning item (the envelope of a translated signature names it).
Json inlined(Json item) {
  if (item.is_object() && item.value("type", "") != "reasoning") item.erase("id");
  return item;
}

// The input as a list of items: a string input is one user message.
std::expected<std::vector<Json>, ApiError> inputItems(const Json& body) {
  std::vector<Json> items;
  const auto input = body.find("input");
  if (input == body.end() || input->is_null()) return items;
  if (input->is_string()) {
    items.push_back(Json{{"role", "user"}, {"content", *input}});
    return items;
  }
  if (!input->is_array()) return std::unexpected(ApiError::invalidRequest("input must be a string or an array", "input"));
  items.assign(input->begin(), input->end());
  return items;
}

}  // namespace

bool mayUseStore(std::string_view body) {
  // A body is kept unless it says "store": false; one that says so may still not point at state.
  const bool refers = body.find("previous_response_id") != std::string_view::npos ||
                      body.find("item_reference") != std::string_view::npos;
  if (refers) return true;
  const size_t at = body.find("\"store\"");
  if (at == std::string_view::npos) return true;
  size_t value = body.find(':', at);
  if (value == std::string_view::npos) return true;
  ++value;
  while (value < body.size() && (body[value] == ' ' || body[value] == '\t' || body[value] == '\n' || body[value] == '\r')) {
    ++value;
  }
  return body.substr(value, 5) != "false";
}

std::expected<Expansion, ApiError> expand(std::string_view text, ItemLookup& lookup) {
  Json body = wire::parseBounded(text);
  if (body.is_discarded()) return std::unexpected(ApiError::invalidJson());
  if (!body.is_object()) return std::unexpected(ApiError::invalidRequest("the request body must be a JSON object"));
  Expansion out;
  if (const auto store = body.find("store"); store != body.end() && !store->is_null()) {
    if (!store->is_boolean()) return std::unexpected(ApiError::invalidRequest("store must be a boolean", "store"));
    out.store = store->get<bool>();
  }
  auto input = inputItems(body);
  if (!input) return std::unexpected(input.error());

  // item_reference items: resolved in one lookup.
  std::vector<std::string> wanted;
  for (size_t i = 0; i < input->size(); ++i) {
    const Json& item = (*input)[i];
    if (!item.is_object() || item.value("type", "") != "item_reference") continue;
    const std::string param = "input[" + std::to_string(i) + "]";
    const auto id = item.find("id");
    if (id == item.end() || !id->is_string() || id->get_ref<const std::string&>().empty()) {
      return std::unexpected(ApiError::invalidRequest("an item_reference needs the id of a stored item", param + ".id"));
    }
    if (id->get_ref<const std::string&>().size() > kMaxIdBytes) {
      return std::unexpected(ApiError::invalidRequest("item ids are at most 256 bytes", param + ".id"));
    }
    wanted.push_back(*id);
  }
  if (wanted.size() > kMaxReferences) {
    return std::unexpected(ApiError::invalidRequest("at most 1000 item_reference items per request", "input"));
  }
  std::map<std::string, Json> found;
  if (!wanted.empty()) found = lookup.items(wanted);
  for (size_t i = 0; i < input->size(); ++i) {
    Json& item = (*input)[i];
    if (!item.is_object() || item.value("type", "") != "item_reference") continue;
    const std::string id = item["id"];
    const auto it = found.find(id);
    if (it == found.end()) {
      return std::unexpected(ApiError::make(404, wire::error_keys::kNotFound,
                                            "Item with id '" + id + "' not found among this member's stored responses.",
                                            "input[" + std::to_string(i) + "]"));
    }
    item = inlined(it->second);
  }
  out.input = *input;

  // previous_response_id: the stored conversation goes before this turn's input.
  std::vector<Json> sent;
  if (const auto previous = body.find("previous_response_id"); previous != body.end() && !previous->is_null()) {
    if (!previous->is_string() || previous->get_ref<const std::string&>().empty() ||
        previous->get_ref<const std::string&>().size() > kMaxIdBytes) {
      return std::unexpected(ApiError::invalidRequest("previous_response_id must be the id of a stored response",
                                                      "previous_response_id"));
    }
    const std::string id = *previous;
    auto history = lookup.history(id);
    if (!history) {
      return std::unexpected(ApiError::make(400, wire::error_keys::kPreviousResponseNotFound,
                                            "Previous response with id '" + id + "' not found.",
                                            "previous_response_id"));
    }
    sent.reserve(history->size() + input->size());
    for (Json& item : *history) sent.push_back(inlined(std::move(item)));
    out.previous_response_id = id;
    body.erase("previous_response_id");
  }
  for (const Json& item : *input) sent.push_back(item);
  body["input"] = Json(std::move(sent));

  // The provider keeps nothing the conversation needs: the gateway does.
  body["store"] = false;
  Json include = Json::array();
  if (const auto asked = body.find("include"); asked != body.end() && asked->is_array()) include = *asked;
  if (std::find(include.begin(), include.end(), Json("reasoning.encrypted_content")) == include.end()) {
    include.push_back("reasoning.encrypted_content");
  }
  body["include"] = std::move(include);
  out.body = wire::dumpJsonText(body);
  return out;
}

void ResponseCapture::bytes(std::string_view data) {
  if (too_large_ || data.empty()) return;
  seen_ += data.size();
  if (seen_ > max_bytes_) {
    too_large_ = true;
    body_.clear();
    body_.shrink_to_fit();
    completed_.reset();
    return;
  }
  if (!streaming_) {
    body_.append(data);
    return;
  }
  for (wire::SseEvent& event : parser_.feed(data)) {
    if (event.event != "response.completed" && event.data.find("\"response.completed\"") == std::string::npos) continue;
    Json parsed = wire::parseBounded(event.data);
    if (parsed.is_object() && parsed.value("type", "") == "response.completed") {
      if (const auto response = parsed.find("response"); response != parsed.end() && response->is_object()) {
        completed_ = std::move(*response);
      }
    }
  }
}

std::optional<Json> ResponseCapture::response() {
  if (too_large_) return std::nullopt;
  if (streaming_) return completed_;
  Json parsed = wire::parseBounded(body_);
  if (!parsed.is_object() || parsed.value("object", "") != "response" || !parsed.contains("id")) return std::nullopt;
  return parsed;
}

std::vector<Json> outputItems(const Json& response) {
  std::vector<Json> items;
  if (const auto output = response.find("output"); output != response.end() && output->is_array()) {
    items.assign(output->begin(), output->end());
  }
  return items;
}

std::string itemId(const Json& item) {
  if (!item.is_object()) return "";
  const auto id = item.find("id");
  return id != item.end() && id->is_string() ? id->get<std::string>() : "";
}

}  // namespace sluice::responses
