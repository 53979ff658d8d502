#pragma once
// A provider's prompt cache, simulated per deployment: a request's prompt that begins with what
// an earlier request to the same deployment sent has that common beginning read from the cache,
// as Anthropic (cache_control), OpenAI (automatic prefix caching) and Gemini (implicit caching)
// do per deployment. Requests opt in with `x-mock-script: {"prefix_cache": true}`; the cache is
// what the mock saw since it started (or since POST /_mock/reset).
//
// cached tokens = countTokens(the longest common prefix with any of the deployment's last 64
// prompts), so a conversation that stays on one deployment reads its whole history back every
// turn, and one that moves pays for all of it again. Thread-safe; memory bounded (64 prompts per
// deployment, 64 deployments, the oldest dropped first).

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace sluice::mock {

class PrefixCache {
 public:
  // The tokens of `prompt` already cached on `deployment`; then `prompt` is cached there too.
  std::int64_t readAndRemember(const std::string& deployment, std::string_view prompt);
  void clear();

 private:
  static constexpr std::size_t kPromptsPerDeployment = 64;
  static constexpr std::size_t kDeployments = 64;
  std::mutex mutex_;
  std::map<std::string, std::deque<std::string>> prompts_;
};

}  // namespace sluice::mock
