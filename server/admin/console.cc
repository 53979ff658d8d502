#include "server/admin/console.h"
#include "server/wire/json_parse.h"

#include <chrono>
#include <exception>

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/NameValueCollection.h>
#include <Poco/String.h>
#include <Poco/URI.h>

#include "server/admin/api.h"
#include "server/admin/assets.h"
#include "server/admin/console_http.h"
#include "server/admin/context.h"
#include "server/admin/session_store.h"
#include "server/config/catalog_loader.h"
#include "server/http/handlers.h"
#include "server/http/request.h"
#include "server/identity/api_keys.h"
#include "server/identity/key_store.h"
#include "server/identity/member_store.h"
#include "server/identity/vault.h"
#include "server/log/json_log.h"
#include "server/store/database_failure.h"
#include "server/store/pg_admin_events.h"
#include "server/store/pg_console_sessions.h"
#include "server/store/pg_credential_locker.h"
#include "server/store/pg_database_check.h"
#include "server/store/pg_key_directory.h"
#include "server/store/pg_key_registry.h"
#include "server/store/pg_member_roster.h"
#include "server/store/pg_quota_counters.h"
#include "server/store/pg_request_log.h"
#include "server/store/pg_traffic_stats.h"

namespace sluice::admin {

namespace {

using Clock = std::chrono::system_clock;

constexpr size_t kMaxBody = 1 << 20;
// A session's key is checked again (not revoked or expired, its member enabled and an admin) at
// most this often: the Authenticator's cache TTL, so a console session ends as soon as an API
// call with the same key would be refused.
constexpr std::chrono::seconds kReverify{2};

// NOTE: 'unsafe-inline' is absent from every directive: the pages carry no inline script or
// style, and charts are SVG built with DOM calls.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// The console's pages, with their titles, in the order of the header; `everyone`: a member who is
// not an admin may open it too (it then shows their own rows only).
struct Page {
  const char* path;
  const char* name;
  const char* title;
  const char* nav;
  bool everyone = false;
};
constexpr Page kPages[] = {
    {"/admin/gateway", "gateway", "Gateway", "Gateway"},
    {"/admin/requests", "requests", "Requests", "Requests", true},
    {"/admin/analytics", "analytics", "Analytics", "Analytics"},
    {"/admin/members", "members", "Members", "Members"},
    {"/admin/access-control", "access", "Access control", "Access control"},
    {"/admin/mcp", "mcp", "MCP servers", "MCP"},
    {"/admin/account", "account", "Your account", "Account", true},
    {"/admin/connect", "connect", "Connect a client", "Connect", true},
};

// The Origin of a state-changing call must be this gateway as the browser reached it.
bool sameOrigin(const Poco::Net::HTTPServerRequest& request) {
  const std::string origin = request.get("Origin", "");
  if (origin.empty() || origin == "null") return false;
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string::npos) return false;
  return origin.substr(scheme_end + 3) == request.getHost();
}

std::string shellPage(const Page& page, const std::string& user, bool admin) {
  const Asset* shell = findAsset("console.html");
  std::string html = shell ? shell->body : std::string("<!doctype html><title>console</title>");
  const auto replace = [&html](const std::string& from, const std::string& to) {
    for (size_t at = html.find(from); at != std::string::npos; at = html.find(from, at + to.size())) {
      html.replace(at, from.size(), to);
    }
  };
  replace("%TITLE%", htmlEscape(page.title));
  replace("%PAGE%", page.name);
  replace("%USER%", htmlEscape(user));
  std::string nav;
  for (const Page& item : kPages) {
    if (!admin && !item.everyone) continue;
    nav += std::string("<a href=\"") + item.path + "\" data-nav=\"" + item.name + "\">" + item.nav + "</a>";
  }
  replace("%NAV%", nav);
  replace("%HOME%", homeOf(admin));
  replace("%ROLE%", admin ? "admin" : "member");
  replace("%V%", std::string(assetsVersion()));
  return html;
}

// A console request that threw: 503 when the database is the cause, else 500 (logged).
Reply failureReply(const std::exception& error, const std::string& uri) {
  const auto failure = store::databaseFailureOf(error);
  if (failure == store::DatabaseFailure::Unreachable) {
    return Reply::error(503, "database_unavailable", std::string("PostgreSQL is unreachable: ") + error.what());
  }
  if (failure == store::DatabaseFailure::Busy) return Reply::error(503, "database_busy", error.what());
  log::error("console request failed", {{"path", uri}, {"error", error.what()}});
  return Reply::error(500, "internal_error", error.what());
}

class ConsoleHandler : public http::Handler {
 public:
  explicit ConsoleHandler(std::shared_ptr<ConsoleContext> context) : context_(std::move(context)) {}

  void handle(http::Request& routed, http::ServerResponse& response) override {
    Poco::Net::HTTPServerRequest& request = routed.head();
    Reply reply;
    try {
      reply = route(routed, response);
    } catch (const std::exception& error) {
      reply = failureReply(error, request.getURI());
    }
    if (streamed_) return;
    send(response, reply);
  }

 private:
  static void securityHeaders(Poco::Net::HTTPServerResponse& response) {
    response.set("Content-Security-Policy", kContentSecurityPolicy);
    response.set("X-Content-Type-Options", "nosniff");
    response.set("Referrer-Policy", "no-referrer");
    response.set("X-Frame-Options", "DENY");
  }

  static void send(Poco::Net::HTTPServerResponse& response, const Reply& reply) {
    securityHeaders(response);
    bool cache_set = false;
    for (const auto& [name, value] : reply.headers) {
      if (name == "Set-Cookie") response.add(name, value);
      else response.set(name, value);
      if (name == "Cache-Control") cache_set = true;
    }
    if (!cache_set) response.set("Cache-Control", "no-store");
    response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(reply.status));
    response.setContentType(reply.content_type);
    response.setContentLength(static_cast<std::streamsize>(reply.body.size()));
    response.sendBuffer(reply.body.data(), reply.body.size());
  }

  // The live session of the request's cookie, re-checking its key now and then.
  std::optional<Session> session(const Poco::Net::HTTPServerRequest& request) {
    Poco::Net::NameValueCollection cookies;
    request.getCookies(cookies);
    const std::string id = cookies.get(kCookie, "");
    if (id.empty()) return std::nullopt;
    return liveSession(id, request.clientAddress().host().toString());
  }

  // The session `id` while its member may still sign in: for a key session, the key not revoked or
  // expired and its member not disabled or deleted; for a single sign-on session, the member not
  // disabled or deleted. The member's role is read again each time (an admin demoted, by the CLI or
  // by SCIM, sees only their own pages from the next check on). Checked against PostgreSQL every
  // kReverify (through the console's pool, off the event loop); a refused session is ended.
  std::optional<Session> liveSession(const std::string& id, const std::string& peer) {
    const auto now = Clock::now();
    auto found = context_->sessions.find(id, now);
    if (!found && context_->stored_sessions && id.size() == 64) {
      // Opened on another replica (or before a restart): the shared store has it. Cookies no
      // replica knows are looked up at most 60 times a minute per address, so guessing session
      // ids cannot buy a database lookup per request (a stale cookie costs one lookup).
      if (context_->unknown_sessions.retryAfter(peer, now).count() > 0) return std::nullopt;
      const auto idle = context_->sessions.policy().idle;
      auto stored = loadSession(*context_->stored_sessions, id, idle);
      if (!stored) {
        context_->unknown_sessions.recordFailure(peer, now);
        return std::nullopt;
      }
      context_->sessions.adopt(*stored, now);
      found = context_->sessions.find(id, now);
    }
    if (!found) return std::nullopt;
    // Either direction: a clock stepped back must not stretch the interval.
    const auto since = now > found->verified_at ? now - found->verified_at : found->verified_at - now;
    if (since >= kReverify && context_->stored_sessions) {
      const auto idle = context_->sessions.policy().idle;
      const bool stored = touchSession(*context_->stored_sessions, id, idle);  // signed out on another replica: gone
      if (!stored) {
        context_->sessions.erase(id);
        log::info("console session ended", {{"user", found->user}, {"reason", "signed out or expired"}});
        return std::nullopt;
      }
      std::optional<bool> admin;
      std::string why;
      if (!found->api_key_id.empty()) {
        const auto row = context_->keys->findKeyById(found->api_key_id);
        const auto admitted =
            identity::keyAdmits(row ? std::optional(identity::keyRecordOf(*row)) : std::nullopt, now);
        if (admitted && admitted->user == found->user) admin = admitted->role == identity::Role::Admin;
        else why = "key no longer admits the member";
      } else {
        const auto member = context_->members ? identity::findMember(*context_->members, found->user) : std::nullopt;
        if (member && !member->disabled()) admin = member->role == identity::Role::Admin;
        else why = member ? "member disabled" : "member deleted";
      }
      if (!admin) {
        deleteSession(*context_->stored_sessions, id);
        context_->sessions.erase(id);
        log::info("console session ended", {{"user", found->user}, {"api_key_id", found->api_key_id}, {"reason", why}});
        return std::nullopt;
      }
      if (*admin != found->admin) {
        log::info("console session role changed", {{"user", found->user}, {"admin", *admin}});
      }
      context_->sessions.markVerified(id, now, *admin);
      found->admin = *admin;
    }
    return found;
  }

  Reply login(Poco::Net::HTTPServerRequest& request, const Exchange& exchange) {
    if (!sameOrigin(request)) return Reply::error(403, "bad_origin", "the request's Origin is not this console");
    if (!context_->gateway.catalog()->console.key_sign_in) {
      return Reply::error(403, "key_sign_in_off",
                          "signing in with an API key is turned off (gateway.console.key_sign_in: false); sign in with "
                          "your company account");
    }
    std::string key;
    if (Poco::icompare(request.getContentType().substr(0, 16), "application/json") == 0) {
      const auto body = wire::nestsDeeperThan(exchange.body) ? nlohmann::json(nlohmann::json::value_t::discarded)
                                                             : nlohmann::json::parse(exchange.body, nullptr, false);
      if (body.is_object() && body.contains("key") && body["key"].is_string()) key = body["key"].get<std::string>();
    } else {
      key = parseQuery(exchange.body)["key"];
    }
    const std::string peer = request.clientAddress().host().toString();
    if (const auto wait = context_->sign_ins.retryAfter(peer, Clock::now()); wait.count() > 0) {
      context_->gateway.metrics().console_sign_ins_refused.inc();
      log::warn("console sign-in throttled", {{"peer", peer}, {"retry_after_s", wait.count()},
                                              {"refused_total", context_->sign_ins.refused()}});
      Reply reply = Reply::error(429, "too_many_sign_ins",
                                 "too many failed sign-ins from this address: try again in " +
                                     std::to_string(wait.count()) + " s");
      reply.headers.emplace_back("Retry-After", std::to_string(wait.count()));
      return reply;
    }
    auto& authenticator = *context_->gateway.identity().authenticator;
    auto caller = authenticator.authenticate(identity::presentedKey("", key), Clock::now());
    if (!caller) {
      context_->sign_ins.recordFailure(peer, Clock::now());
      return Reply::error(401, std::string(identity::toString(caller.error().reason)), caller.error().message);
    }
    const bool admin = caller->role == identity::Role::Admin;
    const Session created = context_->sessions.create(caller->user, caller->api_key_id, Clock::now(), admin);
    if (context_->stored_sessions) {
      storeSession(*context_->stored_sessions, created, context_->sessions.policy().lifetime);
    }
    log::info("console sign-in", {{"user", caller->user}, {"api_key_id", caller->api_key_id}, {"admin", admin}});
    Reply reply = Reply::json({{"user", created.user}, {"csrf", created.csrf}, {"admin", admin}, {"home", homeOf(admin)}});
    reply.headers.emplace_back(
        "Set-Cookie", sessionCookie(request, created.id, static_cast<long>(context_->sessions.policy().lifetime.count())));
    return reply;
  }

  // The member a connect request is for: their own API key, else the signed-in admin.
  std::expected<identity::Caller, Reply> connectCaller(const Poco::Net::HTTPServerRequest& request,
                                                       const std::optional<Session>& signed_in) {
    const auto presented = identity::presentedKey(request.get("Authorization", ""), request.get("x-api-key", ""));
    if (presented.empty() && signed_in) {
      identity::Caller caller;
      caller.user = signed_in->user;
      caller.role = signed_in->admin ? identity::Role::Admin : identity::Role::Member;
      caller.api_key_id = signed_in->api_key_id;
      return caller;
    }
    auto caller = context_->gateway.identity().authenticator->authenticate(presented, Clock::now());
    if (!caller) {
      return std::unexpected(
          Reply::error(401, std::string(identity::toString(caller.error().reason)), caller.error().message));
    }
    return *caller;
  }

  Reply route(http::Request& routed, http::ServerResponse& response) {
    Poco::Net::HTTPServerRequest& request = routed.head();
    const Poco::URI uri(request.getURI());
    Exchange exchange;
    exchange.method = request.getMethod();
    exchange.path = uri.getPath();
    exchange.query = parseQuery(uri.getRawQuery());
    const bool get = exchange.method == "GET" || exchange.method == "HEAD";
    const bool post = exchange.method == "POST";
    if (post) {
      auto body = http::readBody(request, kMaxBody);
      if (!body) return Reply::error(413, "request_too_large", "the body exceeds 1 MiB");
      exchange.body = std::move(*body);
    }
    const std::string& path = exchange.path;

    if (path.starts_with("/admin/assets/")) {
      const Asset* asset = get ? findAsset(path.substr(14)) : nullptr;
      if (!asset) return Reply::error(404, "not_found", "no such asset");
      Reply reply;
      reply.content_type = asset->content_type;
      reply.body = asset->body;
      reply.headers.emplace_back("Cache-Control", "public, max-age=31536000, immutable");
      return reply;
    }
    if (!context_->gateway.identity().authenticator) {
      if (path == "/admin/api/catalog/status") {
        return Reply::error(401, "unauthorized",
                            "/admin/api/catalog/status needs Authorization: Bearer <the --ops-token> "
                            "(no admin can sign in with --insecure-no-auth)");
      }
      const Asset* page = findAsset("disabled.html");
      if (path.starts_with("/admin/api/")) {
        return Reply::error(503, "console_disabled",
                            "the admin console is disabled: this gateway runs with --insecure-no-auth");
      }
      return htmlReply(503, page ? page->body : "console disabled: --insecure-no-auth");
    }

    const auto signed_in = session(request);
    if (path == "/admin" || path == "/admin/") return Reply::redirect(signed_in ? homeOf(signed_in->admin) : "/admin/login");
    if (path == "/admin/login") {
      if (post) return login(request, exchange);
      if (!get) return Reply::error(405, "method_not_allowed", "GET or POST");
      return signInPage(*context_);
    }
    if (path == "/admin/oidc/start" && get) return ssoStart(*context_, request, exchange);
    if (path == "/admin/oidc/callback" && get) return ssoCallback(*context_, request, exchange);
    if (path == "/admin/connect" && get) {
      static constexpr Page kConnect{"/admin/connect", "connect", "Connect a client", "Connect", true};
      return htmlReply(200, shellPage(kConnect, signed_in ? signed_in->user : "", signed_in && signed_in->admin));
    }
    if (path == "/admin/api/connect" && get) {
      auto caller = connectCaller(request, signed_in);
      if (!caller) return caller.error();
      return connectProfile(*context_, *caller, baseUrl(request));
    }

    // Everything below needs a signed-in member; most of it an admin.
    if (!signed_in) {
      if (path.starts_with("/admin/api/")) return Reply::error(401, "not_signed_in", "sign in at /admin/login");
      const std::string next = request.getURI();
      std::string encoded;
      Poco::URI::encode(next, "&=?#+%", encoded);
      return Reply::redirect("/admin/login?next=" + encoded);
    }
    exchange.user = signed_in->user;
    if (post) {
      if (!sameOrigin(request)) return Reply::error(403, "bad_origin", "the request's Origin is not this console");
      if (!constantTimeEquals(request.get("X-CSRF-Token", ""), signed_in->csrf)) {
        return Reply::error(403, "csrf_token_invalid", "missing or wrong X-CSRF-Token");
      }
    }

    if (path == "/admin/logout" && post) {
      context_->sessions.erase(signed_in->id);
      if (context_->stored_sessions) deleteSession(*context_->stored_sessions, signed_in->id);
      Reply reply = Reply::json({{"signed_out", true}});
      reply.headers.emplace_back("Set-Cookie", sessionCookie(request, "", 0));
      return reply;
    }
    const bool admin = signed_in->admin;
    if (get) {
      for (const auto& page : kPages) {
        if (path != page.path) continue;
        if (!admin && !page.everyone) return adminOnlyPage(signed_in->user);
        return htmlReply(200, shellPage(page, signed_in->user, admin));
      }
      if (path.starts_with("/admin/requests/") && path.size() > 16) {
        static constexpr Page kRequest{"/admin/requests/", "request", "Request", "Request", true};
        return htmlReply(200, shellPage(kRequest, signed_in->user, admin));
      }
      if (path == "/admin/api/session") {
        return Reply::json({{"user", signed_in->user}, {"csrf", signed_in->csrf}, {"admin", admin},
                            {"method", signed_in->api_key_id.empty() ? "oidc" : "key"}});
      }
      if (path == "/admin/api/me") return account(*context_, exchange);
      // A member's own rows: the filter is theirs whatever the query says.
      if (!admin && path == "/admin/api/requests") {
        exchange.query["user"] = signed_in->user;
        return requestList(*context_, exchange);
      }
      if (!admin && path.starts_with("/admin/api/requests/") && path != "/admin/api/requests/live") {
        return requestDetail(*context_, path.substr(20), signed_in->user);
      }
    }
    if (post) {
      if (path == "/admin/api/me/keys/create") return accountKeyCreate(*context_, exchange);
      if (path == "/admin/api/me/keys/revoke") return accountKeyRevoke(*context_, exchange);
      if (path == "/admin/api/me/credentials/set") return accountCredentialSet(*context_, exchange);
    }
    if (!admin) {
      if (path.starts_with("/admin/api/")) {
        return Reply::error(403, "admin_only", "this part of the console is for admins; " + signed_in->user + " is a member");
      }
      return adminOnlyPage(signed_in->user);
    }
    if (get) {
      if (path == "/admin/api/catalog/status") return Reply::json(http::catalogStatusJson(context_->gateway));
      if (path == "/admin/api/gateway/overview") return gatewayOverview(*context_, exchange);
      if (path == "/admin/api/gateway/providers") return gatewayProviders(*context_, exchange);
      if (path == "/admin/api/gateway/routes") return gatewayRoutes(*context_, exchange);
      if (path == "/admin/api/gateway/settings") return gatewaySettings(*context_, exchange);
      if (path == "/admin/api/requests") return requestList(*context_, exchange);
      if (path == "/admin/api/requests/live") {
        securityHeaders(response);
        response.setChunkedTransferEncoding(true);
        response.setContentType("text/event-stream");
        response.set("Cache-Control", "no-store");
        response.set("X-Accel-Buffering", "no");
        streamed_ = true;
        std::ostream& out = response.send();
        // A stream lasts minutes: it ends with its session, as the next call would.
        streamLiveRequests(*context_, out, [this, id = signed_in->id, peer = request.clientAddress().host().toString()] {
          return liveSession(id, peer).has_value();
        });
        return {};
      }
      if (path.starts_with("/admin/api/requests/")) return requestDetail(*context_, path.substr(20));
      if (path == "/admin/api/analytics") return analytics(*context_, exchange);
      if (path == "/admin/api/analytics.csv") return analyticsCsv(*context_, exchange);
      if (path == "/admin/api/members") return members(*context_, exchange);
      if (path == "/admin/api/members/history") return memberHistory(*context_, exchange);
      if (path == "/admin/api/routes/source") return routeSource(*context_, exchange);
      if (path == "/admin/api/routes/history") return routeHistory(*context_, "");
      if (path.starts_with("/admin/api/routes/history/")) return routeHistory(*context_, path.substr(26));
      if (path == "/admin/api/access") return accessRules(*context_, exchange);
      if (path == "/admin/api/access/check") return accessCheck(*context_, exchange);
      if (path == "/admin/api/mcp") return mcpServers(*context_, exchange);
    }
    if (post) {
      if (path == "/admin/api/routes/validate") return routeValidate(*context_, exchange);
      if (path == "/admin/api/routes/save") return routeSave(*context_, exchange);
      if (path == "/admin/api/routes/diff") return routeDiff(*context_, exchange);
      if (path == "/admin/api/probe") return probeDeployment(*context_, exchange, routed, response);
      if (path == "/admin/api/members/add") return memberAdd(*context_, exchange);
      if (path == "/admin/api/members/update") return memberUpdate(*context_, exchange);
      if (path == "/admin/api/members/disable") return memberSetDisabled(*context_, exchange, true);
      if (path == "/admin/api/members/enable") return memberSetDisabled(*context_, exchange, false);
      if (path == "/admin/api/keys/create") return keyCreate(*context_, exchange);
      if (path == "/admin/api/keys/revoke") return keyRevoke(*context_, exchange);
    }
    if (path.starts_with("/admin/api/")) return Reply::error(404, "not_found", "no such console API: " + path);
    return htmlReply(404, "<!doctype html><meta charset=utf-8><title>not found</title><p>No such page. "
                          "<a href=\"/admin/gateway\">Back to the console</a></p>");
  }

  std::shared_ptr<ConsoleContext> context_;
  bool streamed_ = false;
};

}  // namespace

http::HandlerFactory makeConsole(http::Gateway& gateway, ConsoleOptions options) {
  auto context = std::make_shared<ConsoleContext>(gateway);
  if (gateway.options().database_url && gateway.identity().authenticator) {
    store::PoolOptions pool_options;
    pool_options.max_connections = options.database_connections;
    const auto pool = std::make_shared<store::ConnectionPool>(*gateway.options().database_url, pool_options);
    context->stored_sessions = std::make_shared<store::PgConsoleSessions>(pool);
    context->keys = std::make_shared<store::PgKeyDirectory>(pool);
    context->members = std::make_shared<store::PgMemberRoster>(pool);
    context->key_registry = std::make_shared<store::PgKeyRegistry>(pool);
    context->admin_events = std::make_shared<store::PgAdminEvents>(pool);
    context->credentials = std::make_shared<store::PgCredentialLocker>(pool);
    context->quota_counters = std::make_shared<store::PgQuotaCounters>(pool);
    context->requests = std::make_shared<store::PgRequestLog>(pool);
    context->traffic = std::make_shared<store::PgTrafficStats>(pool);
    context->fleet = std::make_shared<store::PgDatabaseCheck>(pool);
    // Members set their personal credentials on their account page: sealed as sluicectl does.
    if (auto vault = identity::vaultFromEnvironment(config::processEnvironment()); vault && *vault) {
      context->vault = std::make_shared<const identity::Vault>(std::move(**vault));
    }
  }
  return [context](const http::Request& routed) -> std::unique_ptr<http::Handler> {
    const Poco::Net::HTTPServerRequest& request = routed.head();
    const std::string path = Poco::URI(request.getURI()).getPath();
    // Live reload status: the router's own for monitoring that presents --ops-token; the
    // console answers it to a signed-in admin.
    if (path == "/admin/api/catalog/status" && http::presentsOpsToken(context->gateway, request)) return nullptr;
    return std::make_unique<ConsoleHandler>(context);
  };
}

}  // namespace sluice::admin
