#pragma once
// AttemptRunner: one deployment of a plan, tried. It binds the credential (the platform's secret,
// or the member's own key for a personal credential; never the caller's gateway key), asks the
// endpoint's breaker, builds the call and sends it through an upstream::Transport, reads an error
// body within a bound, retries the same endpoint while the retry budget allows (429/503/529, with
// the wait cancelled by a hang-up), retries once without an optional field the provider refused,
// tells the breaker what happened, and records every try on the RequestLedger. It returns:
//
//   Answer      the provider answered with a status to relay (success, or a final 4xx)
//   Failed      not usable: never sent (credential unbound, breaker open) or sent and failed in a
//               way that moves on to the next deployment (5xx, transport failure, budget spent)
//   ClientGone  the client hung up before the provider answered
//
// Inference, count_tokens and the console's Test button all send through it.
// Not thread-safe: one runner per request.

#include <chrono>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "server/cloud/aws_credentials.h"
#include "server/cloud/cloud_auth.h"
#include "server/dispatch/attempt.h"
#include "server/dispatch/call_budget.h"
#include "server/dispatch/failover.h"
#include "server/http/endpoint_states.h"
#include "server/upstream/client.h"
#include "server/wire/api_error.h"
#include "server/pipeline/http_types.h"

namespace sluice::pipeline {

class RequestLedger;
struct RelayResult;

// The largest provider error body read for classification and relaying.
inline constexpr size_t kMaxErrorBody = 256u << 10;

struct AttemptCall {
  const dispatch::Attempt* attempt = nullptr;
  std::string body;                 // as the provider's wire wants it
  bool stream = false;
  std::string path;                 // "" = the wire's own path for the deployment
  catalog::Wire client_wire = catalog::Wire::Anthropic;
  const Request* client = nullptr;  // protocol headers pass from it (same wire); null = none
  bool ask_breaker = true;          // false for a last resort and for the console's Test button
  bool field_retry = true;          // retry once without an optional field the provider refused
  // One call, no retry of any kind: every HTTP answer is an Answer (count_tokens, the console's
  // Test button); only a transport failure is Failed.
  bool single_try = false;
  // False: a busy answer (429/503/529) or a transport failure is never retried on the same
  // endpoint; the attempt fails as it would once its retries were spent (an MCP tool call: it may
  // have changed the world).
  bool retry_same = true;
  std::string base_url{};           // "" = the endpoint's url; else the presence hub's address for it
  // The operations of the other /v1 endpoints: the body's type and the Accept asked for ("" =
  // the wire's), and an upload streamed from the client after `body` (sent once: give it with
  // single_try).
  std::string content_type = {};
  std::string accept = {};
  upstream::BodySource* body_source = nullptr;
  // The HTTP method (the MCP endpoints also GET and DELETE), and headers of the call's own
  // protocol added after the provider's (MCP's session and protocol-version headers).
  std::string method = "POST";
  std::vector<std::pair<std::string, std::string>> headers = {};
};

struct Answer {
  std::unique_ptr<upstream::Response> response;
  std::string error_body;           // status >= 400: the body, read up to kMaxErrorBody
  dispatch::AttemptOutcome outcome;
  std::chrono::steady_clock::time_point sent_at;
  EndpointStates::InFlight in_flight;  // counts the endpoint busy until the answer is relayed
};

struct Failed {
  enum class Stage { Unbound, CircuitOpen, Sent };
  Stage stage = Stage::Sent;
  std::string reason;               // Unbound, CircuitOpen: why (for the walk and the 503 message)
  dispatch::AttemptOutcome outcome; // Sent: what the last try got
  wire::ApiError error;             // Sent: the error to answer with when nothing else serves
  bool personal_key_missing = false; // Unbound: the caller stored no key of their own (theirs to fix)
};

struct ClientGone {};

using AttemptResult = std::variant<Answer, Failed, ClientGone>;

class AttemptRunner {
 public:
  using Clock = std::chrono::steady_clock;
  // Why a member's own key is not there: `missing` when the member stored none (the caller's to
  // fix, with the command the message names), false when the gateway cannot open it.
  struct PersonalKeyError {
    PersonalKeyError(std::string text, bool not_stored = false) : message(std::move(text)), missing(not_stored) {}
    std::string message;
    bool missing = false;
  };
  // The member's own key for a personal credential, or why there is none.
  using PersonalKeys = std::function<std::expected<std::string, PersonalKeyError>(const catalog::Credential&)>;

  // Every reference must outlive the runner. `personal_keys` may be empty (no member: personal
  // credentials are then unbound). `budget` (gateway.limits), when given, counts every call and
  // bounds retries: a retry it refuses fails over instead.
  // `aws`, when given, has the keys of `aws:` credentials (Bedrock); without it such an attempt is
  // unbound.
  AttemptRunner(upstream::Transport& transport, EndpointStates& states, RequestLedger& ledger,
                upstream::Cancel& cancel, PersonalKeys personal_keys, dispatch::CallBudget* budget = nullptr,
                const cloud::AwsCredentialStore* aws = nullptr);

  // Vertex and Azure attempts are authorised through `auth` (gcp:/azure: credentials; tokens
  // fetched through this runner's transport); without it such an attempt is unbound.
  void useCloudAuth(cloud::CloudAuth* auth) { cloud_auth_ = auth; }

  // bind() then send(): the whole attempt.
  AttemptResult run(AttemptCall call);
  // Step one: the credential, then (when `ask_breaker`) the endpoint's breaker. A Failed (Unbound
  // or CircuitOpen) when the attempt cannot be sent; recorded on the ledger.
  std::optional<Failed> bind(const dispatch::Attempt& attempt, bool ask_breaker);
  // Step two, for the attempt bind() just admitted: sends, retries, classifies.
  AttemptResult send(AttemptCall call);

  // After an Answer was relayed: the attempt's row entry and time on the ledger.
  void relayed(const dispatch::Attempt& attempt, const Answer& answer, const RelayResult& result);
  // The relay failed before any byte reached the client: recorded, the breaker told, and the
  // request may still move on.
  Failed relayFailed(const dispatch::Attempt& attempt, const Answer& answer, const upstream::TransportError& failure);

  int sent() const { return sent_; }                      // calls sent, retries included
  const std::vector<std::string>& fieldSegments() const { return field_segments_; }  // retried_without:<field>

 private:
  std::string errorDetail(catalog::Wire wire, const dispatch::AttemptOutcome& outcome, const std::string& error_body,
                          const std::string& failure_text) const;

  upstream::Transport& transport_;
  EndpointStates& states_;
  RequestLedger& ledger_;
  upstream::Cancel& cancel_;
  PersonalKeys personal_keys_;
  dispatch::CallBudget* budget_;
  const cloud::AwsCredentialStore* aws_;
  const dispatch::Attempt* bound_ = nullptr;
  std::optional<std::string> personal_key_;  // of bound_
  std::optional<upstream::aws::Credentials> aws_keys_;  // of bound_, for an `aws:` credential
  cloud::CloudAuth* cloud_auth_ = nullptr;
  std::optional<cloud::Header> cloud_header_;  // of bound_, on a Vertex or Azure provider
  std::optional<Failed> bindCloud(const dispatch::Attempt& attempt);
  // After a 401 from Vertex or Azure: forgets the refused token and authorises anew; false when
  // there was no token (an api-key) or none can be had now.
  bool retryWithNewToken(const dispatch::Attempt& attempt);
  int sent_ = 0;
  std::vector<std::string> field_segments_;
};

}  // namespace sluice::pipeline
