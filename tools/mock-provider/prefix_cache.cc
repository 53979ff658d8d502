#include "tools/mock-provider/prefix_cache.h"

#include <algorithm>

#include "tools/mock-provider/tokens.h"

namespace sluice::mock {

std::int64_t PrefixCache::readAndRemember(const std::string& deployment, std::string_view prompt) {
  std::lock_guard lock(mutex_);
  if (prompts_.size() >= kDeployments && !prompts_.contains(deployment)) prompts_.erase(prompts_.begin());
  auto& seen = prompts_[deployment];
  std::size_t common = 0;
  for (const std::string& earlier : seen) {
    const auto mismatch = std::mismatch(prompt.begin(), prompt.end(), earlier.begin(), earlier.end());
    common = std::max(common, static_cast<std::size_t>(mismatch.first - prompt.begin()));
  }
  seen.emplace_back(prompt);
  if (seen.size() > kPromptsPerDeployment) seen.pop_front();
  return countTokens(prompt.substr(0, common));
}

void PrefixCache::clear() {
  std::lock_guard lock(mutex_);
  prompts_.clear();
}

}  // namespace sluice::mock
