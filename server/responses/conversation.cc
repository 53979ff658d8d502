#include "server/responses/conversation.h"

#include <algorithm>

#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_responses/mint_id.h"

namespace sluice::responses {

namespace {

using wire::ApiError;

// An inlined item keeps only what a provider of any wire can read: its id goes unless it is a
// reasoning item (the envelope of a translated signature names it).
Json inlined(Json item) {
  if (item.is_object() && item.value("type", "") != "reasoning") item.erase("id");
  return item;
}

ApiError tooLarge(size_t limit) {
  return ApiError::make(413, wire::error_keys::kRequestTooLarge,
                        "the conversation with its stored items exceeds " + std::to_string(limit) + " bytes");
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

bool mayUseStore(std::string_view body, bool store_false) {
  // One that says "store": false may still point at state.
  return !store_false || body.find("previous_response_id") != std::string_view::npos ||
         body.find("item_reference") != std::string_view::npos;
}

std::string responseIdFor(std::string_view request_id) { return wire::openai_responses::mintId("resp", request_id); }

std::expected<Expansion, ApiError> expand(std::string_view text, ItemLookup& lookup, const ExpandBounds& bounds) {
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

  // item_reference items: each id once (a copy per reference is what made a small body inline
  // gigabytes), all resolved in one lookup.
  std::vector<std::string> wanted;
  std::map<std::string, size_t> first_at;  // id -> its input index
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
    if (wanted.size() == kMaxReferences) {
      return std::unexpected(ApiError::invalidRequest("at most 1000 item_reference items per request", "input"));
    }
    if (!first_at.emplace(*id, i).second) {
      return std::unexpected(ApiError::invalidRequest(
          "Duplicate item_reference to '" + id->get<std::string>() + "': an item may be referenced once per request.",
          param + ".id"));
    }
    wanted.push_back(*id);
  }

  std::optional<std::string> previous_id;
  if (const auto previous = body.find("previous_response_id"); previous != body.end() && !previous->is_null()) {
    if (!previous->is_string() || previous->get_ref<const std::string&>().empty() ||
        previous->get_ref<const std::string&>().size() > kMaxIdBytes) {
      return std::unexpected(ApiError::invalidRequest("previous_response_id must be the id of a stored response",
                                                      "previous_response_id"));
    }
    previous_id = previous->get<std::string>();
  }

  // What the store would inline, summed there and refused before any of it is read.
  Inlined found;
  if (previous_id || !wanted.empty()) {
    const size_t room = bounds.max_body_bytes > text.size() ? bounds.max_body_bytes - text.size() : 0;
    found = lookup.inlined(previous_id, wanted, room, bounds.charge);
  }
  switch (found.outcome) {
    case store::InlineOutcome::Read: break;
    case store::InlineOutcome::PreviousMissing:
      return std::unexpected(ApiError::make(400, wire::error_keys::kPreviousResponseNotFound,
                                            "Previous response with id '" + *previous_id + "' not found.",
                                            "previous_response_id"));
    case store::InlineOutcome::ItemMissing:
      return std::unexpected(ApiError::make(
          404, wire::error_keys::kNotFound,
          "Item with id '" + found.missing_item + "' not found among this member's stored responses.",
          "input[" + std::to_string(first_at[found.missing_item]) + "]"));
    case store::InlineOutcome::TooLarge: return std::unexpected(tooLarge(bounds.max_body_bytes));
    case store::InlineOutcome::NoRoom: {
      auto error = ApiError::make(503, wire::error_keys::kOverloaded,
                                  "the gateway has no room to inline this conversation's stored items right now; "
                                  "retry shortly");
      error.retry_after_seconds = 1;
      return std::unexpected(error);
    }
  }

  for (Json& item : *input) {
    if (!item.is_object() || item.value("type", "") != "item_reference") continue;
    item = inlined(found.items.at(item["id"].get<std::string>()));
  }
  out.input = *input;

  // previous_response_id: the stored conversation goes before this turn's input.
  std::vector<Json> sent;
  sent.reserve(found.history.size() + input->size());
  for (Json& item : found.history) sent.push_back(inlined(std::move(item)));
  if (previous_id) {
    out.previous_response_id = previous_id;
    body.erase("previous_response_id");
  }
  for (Json& item : *input) sent.push_back(std::move(item));
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
  if (out.body.size() > bounds.max_body_bytes) return std::unexpected(tooLarge(bounds.max_body_bytes));
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
