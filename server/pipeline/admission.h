#pragma once
// Admission: who is calling and whether they may spend, decided once, the same way for every
// route that reaches a provider (inference, count_tokens, the console's Test button):
//
//   identify  the connection's verified client certificate (gateway.yaml identity: certificate |
//             either), a trusted proxy's header (trusted_proxies, only from its addresses), or the
//             API key (Authorization: Bearer / x-api-key) → member; 401 invalid_identity /
//             invalid_api_key, 503 identity_unavailable (PostgreSQL unreachable: fails closed)
//   scope     the project the request counts against (x-sluice-scope-project, the key's, the
//             member's primary); 403 scope_denied for a project the member is not in
//   access    the catalog's access rules for the plan's route and model; 403 access_denied
//   quota     a reservation in every window that applies, held by a QuotaTicket; 429 quota_exceeded
//
// With --insecure-no-auth there is no caller: every step admits.
// Not thread-safe: one per request.

#include <chrono>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Poco/Net/HTTPServerRequest.h>

#include "catalog/catalog.h"
#include "server/dispatch/planner.h"
#include "server/pipeline/attempt_runner.h"
#include "server/identity/caller.h"
#include "server/identity/certificate_subject.h"
#include "server/identity/quota_store.h"
#include "server/identity/scope.h"
#include "server/wire/api_error.h"
#include "server/wire/usage.h"
#include "server/pipeline/http_types.h"

namespace sluice::pipeline {


struct Identified {
  identity::Caller caller;
  identity::Scope scope;
};

// What identify() reads from a request and the connection it came on.
struct Presented {
  std::string authorization;
  std::string x_api_key;
  std::optional<std::string> scope_project;
  // The connection's verified client certificate; nullopt without TLS or without one.
  std::optional<identity::CertificateNames> certificate;
  // The connection's peer address (trusted proxies are matched against it).
  std::optional<catalog::IpAddress> peer;
  // Every value of the catalog's trusted-proxy header on the request (none declared: empty).
  std::vector<std::string> proxy_header;
};

// What `request` (and its connection) presents, for identify(); the proxy header named by
// `catalog`'s trusted_proxies.
Presented presentedBy(const Poco::Net::HTTPServerRequest& request, const catalog::Catalog& catalog);

// The caller's address for its audit row (audit/client_address.h): the connection's peer, or
// the address a trusted proxy (gateway.trusted_proxies) put last in X-Forwarded-For.
std::string clientAddressOf(const Poco::Net::HTTPServerRequest& request, const catalog::Catalog& catalog);

// A request's hold on its quota windows. Enforce mode: the request was counted when admitted;
// settle() corrects the count to what the provider reported, release() un-counts a request that
// never reached a provider, and the destructor releases when neither was called. Warn mode:
// nothing is counted before the call; settle() counts it and reports a breach.
// Never throws: a quota store that fails is logged and the request goes on (fail open).
class QuotaTicket {
 public:
  QuotaTicket() = default;  // nothing to count
  QuotaTicket(QuotaTicket&& other) noexcept;
  QuotaTicket& operator=(QuotaTicket&& other) noexcept;
  QuotaTicket(const QuotaTicket&) = delete;
  QuotaTicket& operator=(const QuotaTicket&) = delete;
  ~QuotaTicket();

  // The request reached a provider and used `usage`. Returns the breach message when a warn-mode
  // window is now exceeded.
  std::optional<std::string> settle(const wire::Usage& usage, int64_t cost_microdollars);
  // The request never reached a provider.
  void release();
  // Warn mode: the window found exceeded when the request was admitted ("" when none).
  const std::string& warning() const { return warning_; }

  // What a request that used `usage` counts against the windows: every prompt token once
  // (wire::Usage::input_tokens already includes cache reads and writes), output, and cost.
  static identity::QuotaUsage usageOf(const wire::Usage& usage, int64_t cost_microdollars);

 private:
  friend class Admission;
  identity::QuotaStore* store_ = nullptr;
  std::shared_ptr<const catalog::Catalog> catalog_;  // keeps quotas_ alive
  const catalog::Quotas* quotas_ = nullptr;
  identity::QuotaSubject subject_;
  std::optional<identity::Reservation> reservation_;
  bool count_after_ = false;  // warn mode
  catalog::QuotaUnit unit_ = catalog::QuotaUnit::Requests;
  int64_t estimated_input_tokens_ = 0;
  std::string request_id_;
  std::string warning_;
};

// What a request is admitted for: a call that spends (counted against the windows), or one that
// only needs room in them (count_tokens: checked, then released at once).
// Spend: the request counts against the windows; CheckOnly: the windows must have room, nothing is
// spent (count_tokens); None: the windows are not asked (MCP messages, docs/mcp.md).
// ToolCall: an MCP tool call, counted in the `unit: tool_calls` windows only.
enum class QuotaUse { Spend, CheckOnly, None, ToolCall };

class Admission {
 public:
  Admission(Gateway& gateway, std::string request_id);

  // Identity and scope from the request's headers. The caller's key is consumed here and never
  // forwarded upstream.
  std::expected<void, wire::ApiError> identify(const Request& request);
  // The same from what a request presents. In order: a verified client certificate (identity:
  // certificate | either; no header overrides it), a trusted proxy's header (from its addresses
  // only; elsewhere the header is ignored), the API key (identity: key | either).
  std::expected<void, wire::ApiError> identify(const Presented& presented);
  // The caller another room identified already (the console's signed-in admin).
  void assume(Identified identified) { who_ = std::move(identified); }
  // nullopt when the gateway runs without keys (anonymous) or identify() was not called.
  const std::optional<Identified>& who() const { return who_; }

  // Access rules for the plan's route and model, then the quota reservation.
  std::expected<QuotaTicket, wire::ApiError> admit(const std::shared_ptr<const catalog::Catalog>& catalog,
                                                   const dispatch::Plan& plan, QuotaUse use);

 private:
  std::optional<wire::ApiError> decideAccess(const catalog::Catalog& catalog, const dispatch::Plan& plan) const;

  Gateway& gateway_;
  std::string request_id_;
  std::optional<Identified> who_;
};

// Without keys (--insecure-no-auth), whom the gateway answers: a request whose Host names a loopback
// address or `localhost`, the --listen host, or one of --allowed-hosts (comma-separated, `*` any).
bool hostAllowed(std::string_view host, const ServerOptions& options);
// `Content-Type: application/json`, with or without parameters.
bool jsonMediaType(std::string_view content_type);

// The personal keys `user` stored (sluicectl credentials set), for AttemptRunner; empty (every
// personal credential unbound) when `user` is empty or the gateway runs without identity.
AttemptRunner::PersonalKeys personalKeys(Gateway& gateway, const std::string& user);

}  // namespace sluice::pipeline
