// GET /v1/responses/{id}, DELETE /v1/responses/{id} and GET /v1/responses/{id}/input_items: what the
// gateway kept of a member's Responses-API responses (responses::Store). The caller is identified
// like any API call; another member's id is not found (404), as with OpenAI. One audit row each,
// route_match led by endpoint:responses_get / responses_delete / responses_input_items.

#include <charconv>

#include <Poco/URI.h>

#include "server/http/admission.h"
#include "server/http/gateway.h"
#include "server/http/handlers.h"
#include "server/http/request.h"
#include "server/http/request_ledger.h"
#include "server/http/respond.h"
#include "server/log/json_log.h"
#include "server/responses/store.h"
#include "server/wire/client.h"
#include "server/wire/json_parse.h"

namespace sluice::http {

namespace {

using catalog::Wire;
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

class StoredResponses {
 public:
  StoredResponses(Gateway& gateway, Request& request, ServerResponse& response)
      : gateway_(gateway), request_(request), response_(response),
        ledger_(gateway, request.id(), request.target(), Wire::OpenAIResponses), admission_(gateway, request.id()) {}

  void run() {
    ledger_.noteClient(catalog::toString(wire::detectClientFamily(request_.header("x-sluice-client"),
                                                                  request_.header("User-Agent"), Wire::OpenAIResponses)),
                       "", false);
    if (auto identified = admission_.identify(request_); !identified) {
      if (identified.error().status == 401) {
        ledger_.throttleUnauthenticated(request_.head().clientAddress().host().toString());
      }
      return refuse(identified.error());
    }
    if (const auto& who = admission_.who()) ledger_.noteCaller(who->caller, who->scope);
    const Poco::URI uri(request_.target());
    const auto target = parseTarget(uri.getPath());
    const std::string& method = request_.method();
    const char* endpoint = !target                 ? "responses"
                           : target->input_items   ? "responses_input_items"
                           : method == "DELETE"    ? "responses_delete"
                                                   : "responses_get";
    ledger_.row().route_match = std::string("endpoint:") + endpoint;
    if (!target) return refuse(wire::ApiError::make(404, wire::error_keys::kNotFound, "no such response path"));
    const bool get = method == "GET" || method == "HEAD";
    if (!(get || (method == "DELETE" && !target->input_items))) {
      return refuse(wire::ApiError::make(405, wire::error_keys::kMethodNotAllowed,
                                         method + " is not allowed on " + uri.getPath()));
    }
    responses::Store* store = gateway_.responseStore();
    if (store == nullptr) {
      return refuse(wire::ApiError::make(404, wire::error_keys::kNotFound,
                                         "Response with id '" + target->id +
                                             "' not found: this gateway keeps no responses (it runs without a database)"));
    }
    const std::string owner = admission_.who() ? admission_.who()->caller.user : "";
    const auto notFound = [&] {
      return wire::ApiError::make(404, wire::error_keys::kNotFound, "Response with id '" + target->id + "' not found.");
    };
    if (target->input_items) {
      auto query = listQuery(uri);
      if (!query) return refuse(query.error());
      const auto page = store->inputItems(owner, target->id, query->ascending, query->limit, query->after);
      if (!page) return refuse(notFound());
      Json list{{"object", "list"}, {"data", Json::array()}};
      for (const Json& item : page->items) list["data"].push_back(item);
      list["first_id"] = page->items.empty() ? Json(nullptr) : Json(responses::itemId(page->items.front()));
      list["last_id"] = page->items.empty() ? Json(nullptr) : Json(responses::itemId(page->items.back()));
      list["has_more"] = page->has_more;
      return answer(200, list);
    }
    if (method == "DELETE") {
      if (!store->remove(owner, target->id)) return refuse(notFound());
      return answer(200, Json{{"id", target->id}, {"object", "response.deleted"}, {"deleted", true}});
    }
    auto kept = store->get(owner, target->id);
    if (!kept) return refuse(notFound());
    return answer(200, *kept);
  }

  void internalError(const std::exception& error) {
    log::error("stored response request failed", {{"request_id", request_.id()}, {"error", error.what()}});
    if (response_.sent() || ledger_.ended()) return;
    refuse(wire::ApiError::make(503, wire::error_keys::kIdentityUnavailable,
                                "the response store could not be read; retry shortly"));
  }

 private:
  struct ListQuery {
    bool ascending = false;  // OpenAI's default order is desc
    size_t limit = 20;
    std::optional<std::string> after;
  };

  static std::expected<ListQuery, wire::ApiError> listQuery(const Poco::URI& uri) {
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

  void answer(int status, const Json& body) {
    sendJson(response_, status, wire::dumpJsonText(body));
    ledger_.answeredLocally(status);
  }

  void refuse(const wire::ApiError& error) {
    if (error.status == 401) response_.setKeepAlive(false);
    sendError(response_, Wire::OpenAIResponses, error, request_.id());
    ledger_.refused(error);
  }

  Gateway& gateway_;
  Request& request_;
  ServerResponse& response_;
  RequestLedger ledger_;
  Admission admission_;
};

}  // namespace

void StoredResponsesHandler::handle(Request& request, ServerResponse& response) {
  StoredResponses stored(gateway_, request, response);
  try {
    stored.run();
  } catch (const std::exception& error) {
    stored.internalError(error);
  }
}

}  // namespace sluice::http
