#include "server/endpoints/stored_responses.h"

#include <charconv>

#include <Poco/URI.h>

#include "server/http/gateway.h"
#include "server/http/respond.h"
#include "server/pipeline/exchange.h"
#include "server/responses/store.h"
#include "server/wire/json_parse.h"

namespace sluice::endpoints {

namespace {

using responses::Json;

// "/v1/responses/ID" or "/v1/responses/ID/input_items" (also without /v1): the id and whether the
// input items are asked for; nullopt for anything else.
struct Target {
  std::string id;
  bool input_items = false;
};

std::optional<Target> parseTarget(const std::string& path) {
  std::string_view rest = path;
  if (rest.starts_with("/v1")) rest.remove_prefix(3);
  if (!rest.starts_with("/responses/")) return std::nullopt;
  rest.remove_prefix(11);
  Target target;
  if (const size_t slash = rest.find('/'); slash != std::string_view::npos) {
    if (rest.substr(slash) != "/input_items") return std::nullopt;
    target.input_items = true;
    rest = rest.substr(0, slash);
  }
  if (rest.empty() || rest.size() > responses::kMaxIdBytes) return std::nullopt;
  target.id = std::string(rest);
  return target;
}

struct ListQuery {
  bool ascending = false;  // OpenAI's default order is desc
  size_t limit = 20;
  std::optional<std::string> after;
};

std::expected<ListQuery, wire::ApiError> listQuery(const Poco::URI& uri) {
  ListQuery query;
  for (const auto& [name, value] : uri.getQueryParameters()) {
    if (name == "order") {
      if (value != "asc" && value != "desc") {
        return std::unexpected(wire::ApiError::invalidRequest("order must be asc or desc", "order"));
      }
      query.ascending = value == "asc";
    } else if (name == "limit") {
      int limit = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), limit);
      if (error != std::errc() || end != value.data() + value.size() || limit < 1 || limit > 100) {
        return std::unexpected(wire::ApiError::invalidRequest("limit must be between 1 and 100", "limit"));
      }
      query.limit = static_cast<size_t>(limit);
    } else if (name == "after") {
      if (value.size() > responses::kMaxIdBytes) {
        return std::unexpected(wire::ApiError::invalidRequest("after must be an item id", "after"));
      }
      query.after = value;
    }
  }
  return query;
}

}  // namespace

wire::ApiError StoredResponses::failureAnswer() const {
  return wire::ApiError::make(503, wire::error_keys::kIdentityUnavailable,
                              "the response store could not be read; retry shortly");
}

std::expected<pipeline::Inspected, wire::ApiError> StoredResponses::read(pipeline::Exchange& exchange) {
  http::Request& request = exchange.request();
  const Poco::URI uri(request.target());
  const auto target = parseTarget(uri.getPath());
  const std::string& method = request.method();
  const char* endpoint = !target               ? "responses"
                         : target->input_items ? "responses_input_items"
                         : method == "DELETE"  ? "responses_delete"
                                               : "responses_get";
  exchange.ledger().row().route_match = std::string("endpoint:") + endpoint;
  if (!target) return std::unexpected(wire::ApiError::make(404, wire::error_keys::kNotFound, "no such response path"));
  const bool get = method == "GET" || method == "HEAD";
  if (!(get || (method == "DELETE" && !target->input_items))) {
    return std::unexpected(wire::ApiError::make(405, wire::error_keys::kMethodNotAllowed,
                                                method + " is not allowed on " + uri.getPath()));
  }
  responses::Store* store = exchange.gateway().responseStore();
  if (store == nullptr) {
    return std::unexpected(wire::ApiError::make(
        404, wire::error_keys::kNotFound,
        "Response with id '" + target->id + "' not found: this gateway keeps no responses (it runs without a database)"));
  }
  const std::string owner = exchange.member();
  const auto notFound = [&] {
    return std::unexpected(
        wire::ApiError::make(404, wire::error_keys::kNotFound, "Response with id '" + target->id + "' not found."));
  };
  const auto answer = [&](const Json& body) -> std::expected<pipeline::Inspected, wire::ApiError> {
    http::sendJson(exchange.response(), 200, wire::dumpJsonText(body));
    exchange.ledger().answeredLocally(200);
    pipeline::Inspected done;
    done.answered = true;
    return done;
  };
  if (target->input_items) {
    auto query = listQuery(uri);
    if (!query) return std::unexpected(query.error());
    const auto page = store->inputItems(owner, target->id, query->ascending, query->limit, query->after);
    if (!page) return notFound();
    Json list{{"object", "list"}, {"data", Json::array()}};
    for (const Json& item : page->items) list["data"].push_back(item);
    list["first_id"] = page->items.empty() ? Json(nullptr) : Json(responses::itemId(page->items.front()));
    list["last_id"] = page->items.empty() ? Json(nullptr) : Json(responses::itemId(page->items.back()));
    list["has_more"] = page->has_more;
    return answer(list);
  }
  if (method == "DELETE") {
    if (!store->remove(owner, target->id)) return notFound();
    return answer(Json{{"id", target->id}, {"object", "response.deleted"}, {"deleted", true}});
  }
  auto kept = store->get(owner, target->id);
  if (!kept) return notFound();
  return answer(*kept);
}

}  // namespace sluice::endpoints
