#pragma once
// Conversation affinity: the turns of one conversation go to the same deployment, so the
// provider's prompt cache (Anthropic cache_control, OpenAI's automatic prefix cache, Gemini's
// implicit cache), which lives per deployment, is warm for every turn after the first.
//
// Why a hash and not a table: the pin is computed, not stored. Weighted rendezvous hashing
// (highest random weight) ranks a route's deployments for a conversation key; every replica, and
// a replica after a restart, computes the same ranking with no read or write on the request path,
// and the share of conversations each deployment leads stays its weight's share. When the leading
// deployment's breaker is open the next in that conversation's ranking leads (every replica again
// agrees), and the conversation returns once the breaker closes. Adding or removing a deployment
// moves only the conversations that ranked it first. A transient failover inside one request
// does not move later turns.
//
//   auto result = pinConversation(plan.attempts, key, route.affinity_ttl_seconds, now_seconds);
//   plan.route_match.push_back("affinity:" + std::string(toString(result)));
//
// With a ttl the ranking is salted with the conversation's own time bucket, offset by its hash so
// that conversations re-pin at spread-out moments rather than all at once. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/dispatch/attempt.h"
#include "server/wire/ir.h"

namespace sluice::dispatch {

enum class AffinityResult {
  Hit,       // the conversation's first-ranked deployment leads
  Repinned,  // it is out (breaker open): the next in the ranking leads
  Miss,      // no conversation key: the strategy's own order stands
};
std::string_view toString(AffinityResult result);

// 64-bit FNV-1a with a final mix: the same on every machine and build (std::hash is not).
uint64_t stableHash(std::string_view text);

// Moves the deployment `key` is pinned to to the front of `attempts` (the rest keep their
// order). A deployment whose breaker is Open is passed over unless all are.
AffinityResult pinConversation(std::vector<Attempt>& attempts, const std::optional<std::string>& key,
                               int64_t ttl_seconds, int64_t now_seconds);

// What a request says about the conversation it belongs to, besides its IR.
struct ConversationHints {
  // The session headers in the order they are asked (x-claude-code-session-id, session_id,
  // x-session-id): name and value, the value "" when absent.
  std::vector<std::pair<std::string, std::string>> session_headers;
  std::optional<std::string> prompt_cache_key;  // a Responses body's
  std::string requested_model;
};

// The conversation key, for pinConversation. What the client says the conversation is, first: a
// session header (values over 256 bytes ignored), the Responses prompt_cache_key, an end-user id
// that names a session (Claude Code's metadata.user_id); else what every turn of one conversation
// resends unchanged: the model asked for, the system prompt and the first user message's text.
// nullopt when nothing names one (`request` may be null when the body did not decode).
std::optional<std::string> conversationKey(const ConversationHints& hints, const wire::Request* request);

}  // namespace sluice::dispatch
