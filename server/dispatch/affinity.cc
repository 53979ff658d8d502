#include "server/dispatch/affinity.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sluice::dispatch {

std::string_view toString(AffinityResult result) {
  switch (result) {
    case AffinityResult::Hit: return "hit";
    case AffinityResult::Repinned: return "repinned";
    case AffinityResult::Miss: return "miss";
  }
  return "miss";
}

uint64_t stableHash(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  // splitmix64's finaliser: FNV's low bits are weak on short, similar keys.
  hash ^= hash >> 30;
  hash *= 0xbf58476d1ce4e5b9ull;
  hash ^= hash >> 27;
  hash *= 0x94d049bb133111ebull;
  hash ^= hash >> 31;
  return hash;
}

namespace {

// Weighted rendezvous score: -ln(u) / weight with u uniform in (0, 1] from the hash; the lowest
// score wins, so each deployment leads for weight / sum of the keys.
double score(uint64_t key_hash, const Attempt& attempt) {
  const std::string endpoint = attempt.deployment ? attempt.deployment->endpoint_key
                              : attempt.endpoint  ? attempt.endpoint->key
                                                  : std::string();
  const uint64_t h = stableHash(std::to_string(key_hash) + "|" + endpoint);
  const double u = (static_cast<double>(h >> 11) + 1.0) / 9007199254740992.0;  // (0, 1]
  return -std::log(u) / static_cast<double>(std::max(1, attempt.weight));
}

}  // namespace

AffinityResult pinConversation(std::vector<Attempt>& attempts, const std::optional<std::string>& key,
                               int64_t ttl_seconds, int64_t now_seconds) {
  if (!key || key->empty() || attempts.empty()) return AffinityResult::Miss;
  uint64_t key_hash = stableHash(*key);
  if (ttl_seconds > 0) {
    const auto offset = static_cast<int64_t>(key_hash % static_cast<uint64_t>(ttl_seconds));
    key_hash = stableHash(std::to_string(key_hash) + "@" + std::to_string((now_seconds + offset) / ttl_seconds));
  }
  size_t first = 0;        // the first-ranked of all
  size_t first_usable = attempts.size();  // the first-ranked whose breaker is not open
  double best = std::numeric_limits<double>::infinity();
  double best_usable = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < attempts.size(); ++i) {
    const double s = score(key_hash, attempts[i]);
    if (s < best) {
      best = s;
      first = i;
    }
    if (attempts[i].breaker != BreakerState::Open && s < best_usable) {
      best_usable = s;
      first_usable = i;
    }
  }
  const bool repinned = first_usable != first && first_usable < attempts.size();
  const size_t lead = first_usable < attempts.size() ? first_usable : first;
  std::rotate(attempts.begin(), attempts.begin() + static_cast<std::ptrdiff_t>(lead),
              attempts.begin() + static_cast<std::ptrdiff_t>(lead) + 1);
  return repinned ? AffinityResult::Repinned : AffinityResult::Hit;
}

std::optional<std::string> conversationKey(const ConversationHints& hints, const wire::Request* request) {
  for (const auto& [header, value] : hints.session_headers) {
    if (!value.empty() && value.size() <= 256) return header + ":" + value;
  }
  if (request == nullptr) return std::nullopt;
  if (hints.prompt_cache_key && !hints.prompt_cache_key->empty()) return "prompt_cache_key:" + *hints.prompt_cache_key;
  if (request->user && request->user->find("session") != std::string::npos) return "user:" + *request->user;
  // A Responses chain is inlined by now, so its first turn counts too.
  std::string key = "prefix:" + hints.requested_model + "\n";
  const size_t bare = key.size();
  for (const auto& block : request->system) key += block.text;
  for (const auto& message : request->messages) {
    if (message.role != wire::Role::User) continue;
    for (const auto& block : message.content) {
      if (block.type == wire::ContentBlock::Type::Text) {
        key += "\n" + block.text;
        break;
      }
      if (block.type == wire::ContentBlock::Type::ToolResult) break;
    }
    break;
  }
  if (key.size() == bare) return std::nullopt;  // nothing but the model
  return key;
}

}  // namespace sluice::dispatch
