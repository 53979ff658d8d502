#include "server/provisioning/scim_handler.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include <Poco/String.h>
#include <Poco/URI.h>

#include "server/http/handlers.h"
#include "server/http/request.h"
#include "server/identity/provisioning.h"
#include "server/log/json_log.h"
#include "server/provisioning/admin_groups.h"
#include "server/provisioning/token_throttle.h"
#include "server/scim/bounds.h"
#include "server/scim/scim_error.h"
#include "server/store/database_failure.h"
#include "server/store/pg_admin_events.h"
#include "server/store/pg_directory.h"
#include "server/store/pg_member_roster.h"

namespace sluice::provisioning {

namespace {

using Clock = std::chrono::system_clock;

constexpr std::string_view kRoot = "/scim/v2";

struct ScimContext {
  explicit ScimContext(http::Gateway& g) : gateway(g) {}
  http::Gateway& gateway;
  std::optional<std::string> token;
  std::shared_ptr<store::PgDirectory> directory;
  std::shared_ptr<store::PgMemberRoster> members;
  std::shared_ptr<store::PgAdminEvents> events;
  TokenThrottle throttle;
};

std::string baseUrl(const Poco::Net::HTTPServerRequest& request) {
  const bool https = request.secure() || Poco::icompare(request.get("X-Forwarded-Proto", ""), "https") == 0;
  return std::string(https ? "https://" : "http://") + request.getHost() + std::string(kRoot);
}

class ScimHandler : public http::Handler {
 public:
  explicit ScimHandler(std::shared_ptr<ScimContext> context) : context_(std::move(context)) {}

  void handle(http::Request& routed, http::ServerResponse& response) override {
    Poco::Net::HTTPServerRequest& request = routed.head();
    const std::string method = request.getMethod();
    identity::ScimAnswer answer;
    try {
      answer = serve(routed);
    } catch (const std::exception& error) {
      const auto failure = store::databaseFailureOf(error);
      if (failure) {
        answer = failed({503, "", failure == store::DatabaseFailure::Busy ? "the database is busy: retry"
                                                                          : "PostgreSQL is unreachable: retry"});
      } else {
        log::error("scim request failed", {{"method", method}, {"error", error.what()}});
        answer = failed({500, "", "internal error"});
      }
    }
    for (const auto& warning : answer.warnings) log::warn("scim", {{"warning", warning}});
    context_->gateway.metrics()
        .scim_requests.with({answer.resource, method.size() <= 8 ? method : "other", std::to_string(answer.status)})
        .inc();
    send(response, answer);
  }

 private:
  static identity::ScimAnswer failed(const scim::ScimError& error) {
    identity::ScimAnswer answer;
    answer.status = error.status;
    answer.body = scim::errorBody(error);
    return answer;
  }

  void send(http::ServerResponse& response, const identity::ScimAnswer& answer) const {
    response.set("Cache-Control", "no-store");
    response.set("X-Content-Type-Options", "nosniff");
    for (const auto& [name, value] : extra_headers_) response.set(name, value);
    if (!answer.location.empty()) response.set("Location", answer.location);
    response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(answer.status));
    if (answer.status == 204 || answer.body.is_null()) {
      response.setContentLength(0);
      response.send();
      return;
    }
    const std::string body = answer.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    response.setContentType("application/scim+json");
    response.setContentLength(static_cast<std::streamsize>(body.size()));
    response.sendBuffer(body.data(), body.size());
  }

  identity::ScimAnswer serve(http::Request& routed) {
    Poco::Net::HTTPServerRequest& request = routed.head();
    const Poco::URI uri(request.getURI());
    const std::string path = uri.getPath();
    if (!context_->token) {
      return failed({404, "", "SCIM provisioning is off: start the gateway with --scim-token-file"});
    }
    if (path != kRoot && !path.starts_with(std::string(kRoot) + "/")) {
      return failed({404, "", "the SCIM root is /scim/v2"});
    }
    // The token before anything else: a guesser never reaches the body or the database.
    const std::string peer = request.clientAddress().host().toString();
    if (const auto wait = context_->throttle.retryAfter(peer, Clock::now()); wait.count() > 0) {
      extra_headers_.emplace_back("Retry-After", std::to_string(wait.count()));
      log::warn("scim token throttled", {{"peer", peer}, {"retry_after_s", wait.count()}});
      return failed({429, "", "too many wrong tokens from this address: try again in " + std::to_string(wait.count()) + " s"});
    }
    if (!http::opsTokenMatches(request.get("Authorization", ""), *context_->token)) {
      context_->throttle.recordFailure(peer, Clock::now());
      log::warn("scim token refused", {{"peer", peer}});
      extra_headers_.emplace_back("WWW-Authenticate", "Bearer realm=\"scim\"");
      return failed({401, "", "Authorization: Bearer <the SCIM token> is missing or wrong"});
    }
    identity::ScimCall call;
    call.method = request.getMethod();
    call.path = path.substr(kRoot.size());
    if (call.path.empty()) call.path = "/";
    call.base_url = baseUrl(request);
    Poco::URI::QueryParameters parameters = uri.getQueryParameters();
    for (auto& [name, value] : parameters) call.query[name] = std::move(value);
    if (call.method == "POST" || call.method == "PUT" || call.method == "PATCH") {
      if (request.hasContentLength() && request.getContentLength64() > static_cast<Poco::Int64>(scim::kMaxBodyBytes)) {
        extra_headers_.emplace_back("Connection", "close");
        return failed({413, "", "the body exceeds 1 MiB"});
      }
      auto body = routed.readBody(scim::kMaxBodyBytes);
      if (!body) return failed({413, "", "the body exceeds 1 MiB"});
      call.body = std::move(*body);
    }
    const auto admin_groups = adminGroupsOf(*context_->gateway.catalog());
    identity::ScimAnswer answer = identity::serveScim({*context_->directory, *context_->members, *context_->events}, call,
                                                      admin_groups, Clock::now());
    if (answer.status < 300 && call.method != "GET") {
      log::info("scim change", {{"method", call.method}, {"resource", answer.resource}, {"status", answer.status}});
    }
    return answer;
  }

  std::shared_ptr<ScimContext> context_;
  std::vector<std::pair<std::string, std::string>> extra_headers_;  // Retry-After, WWW-Authenticate
};

}  // namespace

std::expected<std::string, std::string> loadScimToken(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::unexpected("--scim-token-file " + path + " cannot be read");
  std::ostringstream text;
  text << file.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) {
    token.pop_back();
  }
  if (token.size() < kMinTokenBytes) {
    return std::unexpected("--scim-token-file " + path + ": the token is shorter than " +
                           std::to_string(kMinTokenBytes) + " characters (make one with: openssl rand -hex 32)");
  }
  for (const char c : token) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return std::unexpected("--scim-token-file " + path + ": the token holds a blank or control character");
    }
  }
  return token;
}

http::HandlerFactory makeScim(http::Gateway& gateway, ScimOptions options) {
  auto context = std::make_shared<ScimContext>(gateway);
  context->token = std::move(options.token);
  if (context->token && gateway.options().database_url) {
    store::PoolOptions pool_options;
    pool_options.max_connections = options.database_connections;
    const auto pool = std::make_shared<store::ConnectionPool>(*gateway.options().database_url, pool_options);
    context->directory = std::make_shared<store::PgDirectory>(pool);
    context->members = std::make_shared<store::PgMemberRoster>(pool);
    context->events = std::make_shared<store::PgAdminEvents>(pool);
  } else {
    context->token.reset();  // no database: nothing to provision into (boot refuses this; see flags)
  }
  return [context](const http::Request&) -> std::unique_ptr<http::Handler> {
    return std::make_unique<ScimHandler>(context);
  };
}

}  // namespace sluice::provisioning
