#include "server/pipeline/admission.h"

#include <algorithm>
#include <cctype>

#include <sys/socket.h>

#include <Poco/String.h>

#include "server/audit/client_address.h"
#include "server/http/gateway.h"
#include "server/http/request.h"
#include "server/http/server_request.h"
#include "server/identity/access.h"
#include "server/identity/api_keys.h"
#include "server/identity/trusted_proxy.h"
#include "server/log/json_log.h"

namespace sluice::pipeline {

using namespace http;  // NOTE: the front end's request, response and helpers, as before the move

namespace {

// The Host header's name: without its port, and without the brackets of an IPv6 literal.
std::string_view hostName(std::string_view host) {
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(1, close - 1);
  }
  const size_t colon = host.find(':');
  if (colon != std::string_view::npos && host.find(':', colon + 1) == std::string_view::npos) return host.substr(0, colon);
  return host;
}

bool equalsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool hostAllowed(std::string_view host, const ServerOptions& options) {
  const std::string_view name = hostName(host);
  if (equalsNoCase(name, "localhost") || name == "::1" || name.starts_with("127.")) return true;
  const std::string_view listen = hostName(options.listen);
  if (!listen.empty() && listen != "0.0.0.0" && listen != "::" && equalsNoCase(name, listen)) return true;
  std::string_view allowed = options.allowed_hosts;
  while (!allowed.empty()) {
    const size_t comma = allowed.find(',');
    std::string_view entry = allowed.substr(0, comma);
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
    if (entry == "*" || (!entry.empty() && equalsNoCase(name, entry))) return true;
    allowed = comma == std::string_view::npos ? std::string_view() : allowed.substr(comma + 1);
  }
  return false;
}

bool jsonMediaType(std::string_view content_type) {
  const std::string_view type = content_type.substr(0, content_type.find(';'));
  std::string_view trimmed = type;
  while (!trimmed.empty() && trimmed.back() == ' ') trimmed.remove_suffix(1);
  return equalsNoCase(trimmed, "application/json");
}

namespace {

wire::ApiError withRetryAfter(wire::ApiError error, int seconds) {
  error.retry_after_seconds = seconds;
  return error;
}

}  // namespace

QuotaTicket::QuotaTicket(QuotaTicket&& other) noexcept { *this = std::move(other); }

QuotaTicket& QuotaTicket::operator=(QuotaTicket&& other) noexcept {
  if (this == &other) return *this;
  release();
  store_ = std::exchange(other.store_, nullptr);
  catalog_ = std::move(other.catalog_);
  quotas_ = std::exchange(other.quotas_, nullptr);
  subject_ = std::move(other.subject_);
  reservation_ = std::exchange(other.reservation_, std::nullopt);
  count_after_ = std::exchange(other.count_after_, false);
  unit_ = other.unit_;
  estimated_input_tokens_ = other.estimated_input_tokens_;
  request_id_ = std::move(other.request_id_);
  warning_ = std::move(other.warning_);
  return *this;
}

QuotaTicket::~QuotaTicket() { release(); }

identity::QuotaUsage QuotaTicket::usageOf(const wire::Usage& usage, int64_t cost_microdollars) {
  identity::QuotaUsage counted;
  counted.input_tokens = usage.input_tokens;  // cached prompt tokens are in it already: never added twice
  counted.output_tokens = usage.output_tokens;
  counted.cost_microdollars = cost_microdollars;
  return counted;
}

std::optional<std::string> QuotaTicket::settle(const wire::Usage& usage, int64_t cost_microdollars) {
  if (!store_) return std::nullopt;
  std::optional<std::string> breach;
  if (count_after_) {
    count_after_ = false;
    try {
      reservation_ =
          store_->reserve(*quotas_, subject_, estimated_input_tokens_, std::chrono::system_clock::now(), unit_);
      if (reservation_->breach) {
        breach = reservation_->breach->message();
        log::warn("quota exceeded (warn mode: served)", {{"request_id", request_id_},
                                                        {"user", subject_.user},
                                                        {"window", reservation_->breach->window_id},
                                                        {"message", *breach}});
      }
    } catch (const std::exception& error) {
      log::error("quota store unavailable; request not counted", {{"request_id", request_id_}, {"error", error.what()}});
      reservation_.reset();
      return breach;
    }
  }
  if (!reservation_ || !reservation_->admitted) return breach;
  try {
    store_->settle(*reservation_, usageOf(usage, cost_microdollars));
  } catch (const std::exception& error) {
    log::error("quota settle failed", {{"request_id", request_id_}, {"error", error.what()}});
  }
  reservation_.reset();
  return breach;
}

void QuotaTicket::release() {
  count_after_ = false;
  if (!store_ || !reservation_) return;
  if (reservation_->admitted) {
    try {
      store_->release(*reservation_);
    } catch (const std::exception& error) {
      log::error("quota release failed", {{"request_id", request_id_}, {"error", error.what()}});
    }
  }
  reservation_.reset();
}

Admission::Admission(Gateway& gateway, std::string request_id)
    : gateway_(gateway), request_id_(std::move(request_id)) {}

std::expected<void, wire::ApiError> Admission::identify(const Request& request) {
  if (!gateway_.identity().authenticator) {
    // Without keys the gateway trusts whoever reaches it, so it must be reached on purpose: not
    // by a web page in a developer's browser posting a form, nor through a DNS name rebound to it.
    if (!hostAllowed(request.header("Host"), gateway_.options())) {
      return std::unexpected(wire::ApiError::make(
          403, wire::error_keys::kForbiddenHost,
          "without API keys (--insecure-no-auth) the gateway answers only requests addressed to a loopback name or "
          "to a host listed in --allowed-hosts"));
    }
    if (!jsonMediaType(request.header("Content-Type"))) {
      return std::unexpected(wire::ApiError::make(415, wire::error_keys::kUnsupportedMediaType,
                                                  "send the request body as Content-Type: application/json"));
    }
    return {};
  }
  return identify(presentedBy(request.head(), *gateway_.catalog()));
}

Presented presentedBy(const Poco::Net::HTTPServerRequest& request, const catalog::Catalog& catalog) {
  Presented presented;
  presented.authorization = request.get("Authorization", "");
  presented.x_api_key = request.get("x-api-key", "");
  const std::string scope_header(identity::kScopeProjectHeader);
  if (request.has(scope_header)) presented.scope_project = request.get(scope_header);
  const auto* served = dynamic_cast<const ServerRequest*>(&request);
  if (served) presented.certificate = served->socket().certificate();
  if (const auto& proxies = catalog.identity.trusted_proxies) {
    // The peer's address only counts for a trusted proxy's header: no system call otherwise.
    if (served) {
      sockaddr_storage address{};
      socklen_t length = sizeof address;
      if (::getpeername(served->fd(), reinterpret_cast<sockaddr*>(&address), &length) == 0) {
        presented.peer = identity::ipOf(reinterpret_cast<const sockaddr*>(&address), length);
      }
    }
    // Equal names sit together in the case-insensitive collection; at most a few are kept.
    for (auto it = request.find(proxies->header);
         it != request.end() && Poco::icompare(it->first, proxies->header) == 0 && presented.proxy_header.size() < 4;
         ++it) {
      presented.proxy_header.push_back(it->second);
    }
  }
  return presented;
}

std::string clientAddressOf(const Poco::Net::HTTPServerRequest& request, const catalog::Catalog& catalog) {
  // A peer that is not an IP address (a UNIX socket in tests) is "": the row names none.
  const Poco::Net::SocketAddress& socket_address = request.clientAddress();
  const bool ip = socket_address.family() == Poco::Net::SocketAddress::IPv4 ||
                  socket_address.family() == Poco::Net::SocketAddress::IPv6;
  const std::string peer = ip ? socket_address.host().toString() : std::string();
  bool trusted = false;
  std::vector<std::string> forwarded_for;
  if (const auto& proxies = catalog.identity.trusted_proxies) {
    if (const auto address = catalog::parseIpAddress(peer)) {
      trusted = proxies->trusts(*address);
    }
    for (auto it = request.find("X-Forwarded-For");
         trusted && it != request.end() && Poco::icompare(it->first, "X-Forwarded-For") == 0; ++it) {
      forwarded_for.push_back(it->second);
    }
  }
  return audit::clientAddress(peer, trusted, forwarded_for);
}

std::expected<void, wire::ApiError> Admission::identify(const Presented& presented) {
  const Identity& identity = gateway_.identity();
  if (!identity.authenticator) return {};
  const auto catalog = gateway_.catalog();
  const catalog::IdentityMode mode = catalog->identity.mode;
  const auto now = std::chrono::system_clock::now();
  const auto unavailable = [](const std::exception& error) {
    log::error("cannot identify the caller: identity store unavailable", {{"error", error.what()}});
    return std::unexpected(withRetryAfter(
        wire::ApiError::make(503, wire::error_keys::kIdentityUnavailable,
                             "the gateway cannot check the caller's identity right now; retry shortly"),
        5));
  };
  const auto refused = [](std::string message) {
    return std::unexpected(wire::ApiError::make(401, wire::error_keys::kInvalidIdentity, std::move(message)));
  };
  const std::string_view presented_key = identity::presentedKey(presented.authorization, presented.x_api_key);
  std::optional<identity::Caller> identified;

  // 1. A verified client certificate: when the catalog takes them, it decides, and nothing the
  //    request says (a proxy header, a key) overrides it. Under `either` a certificate that stands
  //    for no member gives way to a key, when one is presented.
  if (presented.certificate && mode != catalog::IdentityMode::Key) {
    std::expected<identity::Caller, identity::AuthFailure> by_certificate =
        std::unexpected(identity::AuthFailure{});
    try {
      by_certificate = identity.authenticator->authenticateCertificate(identity::subjectsOf(*presented.certificate), now);
    } catch (const std::exception& error) {
      return unavailable(error);
    }
    if (by_certificate) {
      identified = std::move(*by_certificate);
    } else if (mode == catalog::IdentityMode::Certificate || presented_key.empty() ||
               by_certificate.error().reason != identity::AuthFailureReason::UnmappedCertificate) {
      return refused(by_certificate.error().message);
    }
  }

  // 2. A trusted proxy's header, on a connection from one of its addresses (elsewhere: ignored).
  if (!identified) {
    const identity::ProxyClaim claim =
        identity::proxyClaim(catalog->identity.trusted_proxies, presented.peer, presented.proxy_header);
    if (claim.kind == identity::ProxyClaimKind::Malformed) return refused(claim.problem);
    if (claim.kind == identity::ProxyClaimKind::Claimed) {
      std::expected<identity::Caller, identity::AuthFailure> by_proxy = std::unexpected(identity::AuthFailure{});
      try {
        by_proxy = identity.authenticator->authenticateProxy(
            claim.value, catalog->identity.trusted_proxies->match == catalog::ProxyMatch::Email, now);
      } catch (const std::exception& error) {
        return unavailable(error);
      }
      if (!by_proxy) return refused(by_proxy.error().message);
      identified = std::move(*by_proxy);
    }
  }

  // 3. The API key.
  if (!identified && mode == catalog::IdentityMode::Certificate) {
    return refused(presented.certificate
                       ? "the client certificate stands for no member"
                       : "this gateway identifies callers by TLS client certificate (identity: certificate): connect "
                         "with a certificate signed by its client CA");
  }
  if (!identified) {
    std::expected<identity::Caller, identity::AuthFailure> caller =
        std::unexpected(identity::AuthFailure{identity::AuthFailureReason::Missing, ""});
    try {
      caller = identity.authenticator->authenticate(presented_key, now);
    } catch (const std::exception& error) {
      log::error("cannot check the API key: identity store unavailable", {{"error", error.what()}});
      return std::unexpected(withRetryAfter(
          wire::ApiError::make(503, wire::error_keys::kIdentityUnavailable,
                               "the gateway cannot check API keys right now; retry shortly"),
          5));
    }
    if (!caller) {
      std::string message = caller.error().message;
      if (caller.error().reason == identity::AuthFailureReason::Missing) {
        message = "no API key: send it as 'Authorization: Bearer <key>' or 'x-api-key: <key>'";
      }
      return std::unexpected(wire::ApiError::make(401, wire::error_keys::kInvalidApiKey, message));
    }
    identified = std::move(*caller);
  }
  std::optional<std::string_view> header;
  if (presented.scope_project) header = *presented.scope_project;
  auto scope = identity::attributeScope(*identified, header);
  if (!scope) return std::unexpected(wire::ApiError::make(403, wire::error_keys::kScopeDenied, scope.error().message));
  who_ = Identified{std::move(*identified), std::move(*scope)};
  return {};
}

std::optional<wire::ApiError> Admission::decideAccess(const catalog::Catalog& catalog, const dispatch::Plan& plan) const {
  // Every route and model the plan can reach (each piece of an ad-hoc chain): a chain never reaches
  // what the caller could not name alone, and is refused with the error that piece alone gets.
  std::vector<dispatch::AccessTarget> targets = plan.access;
  if (targets.empty()) targets.push_back({plan.route, plan.model_id});
  const identity::AccessSubject subject = identity::accessSubject(who_->caller, who_->scope);
  for (const dispatch::AccessTarget& target : targets) {
    if (target.route == nullptr) continue;
    identity::AccessRequest access;
    access.route_id = target.route->id;
    access.route_kind = target.route->kind;
    access.model_id = target.model_id;
    const identity::Decision decision = identity::decideAccess(catalog.access_rules, access, subject);
    if (decision.allowed) continue;
    log::info("access denied", {{"request_id", request_id_}, {"user", who_->caller.user},
                                {"entity", decision.entity}, {"basis", decision.basis}});
    return wire::ApiError::make(403, wire::error_keys::kAccessDenied, decision.message());
  }
  return std::nullopt;
}

std::expected<QuotaTicket, wire::ApiError> Admission::admit(const std::shared_ptr<const catalog::Catalog>& catalog,
                                                            const dispatch::Plan& plan, QuotaUse use) {
  QuotaTicket ticket;
  if (!who_) return ticket;
  if (auto denied = decideAccess(*catalog, plan)) return std::unexpected(std::move(*denied));
  const auto& store = gateway_.identity().quotas;
  if (!store || catalog->quotas.windows.empty() || use == QuotaUse::None) return ticket;
  ticket.store_ = store.get();
  ticket.catalog_ = catalog;
  ticket.quotas_ = &catalog->quotas;
  ticket.subject_ = identity::quotaSubject(who_->caller, who_->scope);
  ticket.unit_ = use == QuotaUse::ToolCall ? catalog::QuotaUnit::ToolCalls : catalog::QuotaUnit::Requests;
  ticket.estimated_input_tokens_ = use == QuotaUse::ToolCall ? 0 : plan.estimated_input_tokens;
  ticket.request_id_ = request_id_;
  // Warn mode never refuses, so nothing needs counting before the call: the request is counted
  // once it has been answered, off the caller's path to the first byte. One window of its own
  // `mode: enforce` makes every request reserve first.
  const auto& quotas = catalog->quotas;
  if (std::ranges::none_of(quotas.windows, [&](const catalog::QuotaWindow& window) {
        return window.unit == ticket.unit_ && window.mode.value_or(quotas.mode) == catalog::QuotaMode::Enforce;
      })) {
    ticket.count_after_ = use == QuotaUse::Spend || use == QuotaUse::ToolCall;
    return ticket;
  }
  const auto now = std::chrono::system_clock::now();
  try {
    identity::Reservation reservation = store->reserve(
        catalog->quotas, ticket.subject_, use == QuotaUse::Spend ? plan.estimated_input_tokens : 0, now, ticket.unit_);
    if (!reservation.admitted && reservation.breach) {
      const auto& breach = *reservation.breach;
      return std::unexpected(withRetryAfter(wire::ApiError::make(429, wire::error_keys::kQuotaExceeded, breach.message()),
                                            static_cast<int>(breach.retryAfterSeconds(now))));
    }
    if (reservation.breach) {
      ticket.warning_ = reservation.breach->message();
      log::warn("quota exceeded (warn mode: served)", {{"request_id", request_id_},
                                                      {"user", who_->caller.user},
                                                      {"window", reservation.breach->window_id},
                                                      {"message", ticket.warning_}});
    }
    ticket.reservation_ = std::move(reservation);
  } catch (const std::exception& error) {
    // A quota store that cannot be reached does not stop traffic: served unchecked, and logged.
    log::error("quota store unavailable; request served without a quota check",
               {{"request_id", request_id_}, {"error", error.what()}});
  }
  if (use == QuotaUse::CheckOnly) ticket.release();
  return ticket;
}

AttemptRunner::PersonalKeys personalKeys(Gateway& gateway, const std::string& user) {
  identity::Authenticator* authenticator = gateway.identity().authenticator.get();
  if (user.empty() || !authenticator) return {};
  using Error = AttemptRunner::PersonalKeyError;
  return [authenticator, user](const catalog::Credential& credential) -> std::expected<std::string, Error> {
    try {
      auto key = authenticator->personalKey(user, credential.id, std::chrono::system_clock::now());
      if (key) return std::move(*key);
      return std::unexpected(
          Error(key.error().message, key.error().reason == identity::CredentialFailureReason::NotSet));
    } catch (const std::exception& error) {
      return std::unexpected(Error(std::string("the personal key store is unavailable: ") + error.what()));
    }
  };
}

}  // namespace sluice::pipeline
