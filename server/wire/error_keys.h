#pragma once
// Every error key the gateway itself emits, in one place. Error keys are public API: clients and
// tests match on them, the audit row stores them, so a value here never changes; add a constant
// rather than spell a key as a literal. Keys a provider sent ("insufficient_quota", a Gemini
// "RESOURCE_EXHAUSTED") pass through as they came and are not listed.

#include <string_view>

namespace sluice::wire::error_keys {

// The client's request.
inline constexpr std::string_view kInvalidJson = "invalid_json";            // 400: the body is not JSON
inline constexpr std::string_view kInvalidRequest = "invalid_request";      // 400: a field is missing or wrong (param names it)
inline constexpr std::string_view kUnsupportedField = "unsupported_field";  // 400: valid, but the target wire cannot express it
inline constexpr std::string_view kUnsupportedWire = "unsupported_wire";    // 400: the wire is not a client wire (gemini)
inline constexpr std::string_view kRequestTooLarge = "request_too_large";   // 413: the body is over the size limit
inline constexpr std::string_view kContextWindowExceeded = "context_window_exceeded";  // 400: no model on the route holds the prompt
inline constexpr std::string_view kDataProtectionFailed = "data_protection_failed";    // 400: masking could not be applied for any deployment left
inline constexpr std::string_view kDataProtectionBlocked = "data_protection_blocked";  // 400: holds a `block:` kind and only public deployments are left
inline constexpr std::string_view kModelKindMismatch = "model_kind_mismatch";  // 400: the model is of a kind this endpoint does not serve (an embedding model on /v1/chat/completions)
inline constexpr std::string_view kUnknownUrl = "unknown_url";                // 404: a /v1 path the gateway does not serve (OpenAI's code for it)

// Planning: the catalog cannot serve the request.
inline constexpr std::string_view kModelNotFound = "model_not_found";      // 404: no such model, or no route for it
inline constexpr std::string_view kRetiredModel = "retired_model";         // 404: the model is retired
inline constexpr std::string_view kGovernanceDenied = "governance_denied"; // 403: no deployment meets the route's requires
inline constexpr std::string_view kNoDeployment = "no_deployment";         // 503: the route lists no deployment for the model
inline constexpr std::string_view kInvalidChain = "invalid_chain";         // 400: an ad-hoc chain that is off, empty, too long or too deep
inline constexpr std::string_view kNoDeploymentAvailable = "no_deployment_available";  // 503: every deployment was skipped (breaker, credential)

// Admission: identity, access rules and quotas.
inline constexpr std::string_view kInvalidApiKey = "invalid_api_key";            // 401: no key, or an unknown or revoked one
inline constexpr std::string_view kInvalidIdentity = "invalid_identity";          // 401: a client certificate or trusted proxy names no member (or a disabled or ambiguous one)
inline constexpr std::string_view kUnauthenticatedRowsSuppressed = "unauthenticated_rows_suppressed";  // not a response: a summary row counting keyless refusals
inline constexpr std::string_view kAccessDenied = "access_denied";               // 403: an access rule refuses the caller
inline constexpr std::string_view kScopeDenied = "scope_denied";                 // 403: the key's scope does not cover the request
inline constexpr std::string_view kQuotaExceeded = "quota_exceeded";             // 429: the caller's quota is spent (Retry-After set)
inline constexpr std::string_view kQuotaWarning = "quota_warning";               // not a refusal: an audit row's note that a quota ran over
inline constexpr std::string_view kIdentityUnavailable = "identity_unavailable"; // 503: keys or quotas could not be read
// 424: the caller (on the Test button: the admin) stored no key for a personal credential that
// only their own key could serve; a 4xx, so no SDK retries what only `sluicectl credentials set` fixes.
inline constexpr std::string_view kPersonalKeyMissing = "personal_key_missing";

// The provider's side.
inline constexpr std::string_view kUpstreamUnreachable = "upstream_unreachable";          // 502: connect, DNS, TLS or timeout
inline constexpr std::string_view kUpstreamError = "upstream_error";                      // a provider error that carried no key
inline constexpr std::string_view kUpstreamInvalidResponse = "upstream_invalid_response"; // 502: the answer is not the wire's format
inline constexpr std::string_view kUpstreamStreamTruncated = "upstream_stream_truncated"; // 502: the stream ended before its terminal event
inline constexpr std::string_view kUpstreamStreamBroken = "upstream_stream_broken";       // 502: the connection broke mid-stream
inline constexpr std::string_view kUpstreamStreamError = "upstream_stream_error";         // an error event in a stream that carried no key
inline constexpr std::string_view kRateLimitExceeded = "rate_limit_exceeded";   // 429 as OpenAI-style clients key their retries on it
inline constexpr std::string_view kServerIsOverloaded = "server_is_overloaded"; // 503/529 as OpenAI-style clients key their retries on it

// The console's Test button (audit rows with probe = true).
inline constexpr std::string_view kCredentialMissing = "credential_missing";     // 503: the platform credential is not configured
inline constexpr std::string_view kTransport = "transport";                      // 502: the probe's call failed before an answer

// The gateway itself.
inline constexpr std::string_view kClientGone = "client_gone";            // 499: the client hung up before the answer
inline constexpr std::string_view kRequestTimeout = "request_timeout";    // 408: the head or body did not arrive in time (or whole)
inline constexpr std::string_view kForbiddenHost = "forbidden_host";     // 403: without keys, a Host that is not loopback or allowed
inline constexpr std::string_view kUnsupportedMediaType = "unsupported_media_type";  // 415: without keys, a body not sent as application/json
inline constexpr std::string_view kUnauthorized = "unauthorized";        // 401: an operations endpoint without the ops token or an admin session
inline constexpr std::string_view kOverloaded = "overloaded";            // 503: the process-wide body budget is full (Retry-After 1)
inline constexpr std::string_view kInternalError = "internal_error";      // 500: a bug or an unexpected failure (logged)
inline constexpr std::string_view kPreviousResponseNotFound = "previous_response_not_found";  // 400: previous_response_id names no stored response of the caller
inline constexpr std::string_view kNotFound = "not_found";                // 404: no such path (health, console)
inline constexpr std::string_view kMethodNotAllowed = "method_not_allowed";  // 405: the path exists, the method does not
// MCP (docs/mcp.md): refusals and answers of the /mcp endpoints.
inline constexpr std::string_view kInvalidJsonRpc = "invalid_jsonrpc";          // 400: not one JSON-RPC 2.0 message
inline constexpr std::string_view kInvalidParams = "invalid_params";            // 400: a call without its name or URI
inline constexpr std::string_view kMcpServerNotFound = "mcp_server_not_found";  // 404: /mcp/{provider} names no MCP server
inline constexpr std::string_view kMcpSessionNotFound = "mcp_session_not_found";  // 404: the Mcp-Session-Id is not this member's session here
inline constexpr std::string_view kMcpMethodNotAvailable = "mcp_method_not_available";  // the federated /mcp does not serve the method
inline constexpr std::string_view kMcpError = "mcp_error";                      // the server answered the call with a JSON-RPC error
inline constexpr std::string_view kToolError = "tool_error";                    // the tool ran and reported an error (isError)

}  // namespace sluice::wire::error_keys
