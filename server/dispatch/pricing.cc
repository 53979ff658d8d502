#include "server/dispatch/pricing.h"

#include <cstdio>

namespace sluice::dispatch {

int64_t costMicrodollars(const catalog::Pricing& pricing, const wire::Usage& usage) {
  int64_t input = pricing.input_per_million;
  int64_t output = pricing.output_per_million;
  int64_t cache_read = pricing.cache_read_per_million;
  int64_t cache_write = pricing.cache_write_per_million;
  if (pricing.long_context && usage.input_tokens > pricing.long_context->above_input_tokens) {
    const auto& tier = *pricing.long_context;
    input = tier.input_per_million;
    output = tier.output_per_million;
    cache_read = tier.cache_read_per_million.value_or(cache_read);
    cache_write = tier.cache_write_per_million.value_or(cache_write);
  }
  // Tokens x microdollars-per-million can exceed 2^63 only for absurd counts; __int128 keeps it exact.
  const __int128 total = static_cast<__int128>(usage.uncachedInputTokens()) * input +
                         static_cast<__int128>(usage.cache_read_tokens) * cache_read +
                         static_cast<__int128>(usage.cache_write_tokens) * cache_write +
                         static_cast<__int128>(usage.output_tokens) * output;
  return static_cast<int64_t>((total + 500'000) / 1'000'000);
}

std::string formatPerMillion(int64_t microdollars_per_million) {
  char buffer[48];
  const int64_t whole = microdollars_per_million / 1'000'000;
  const int64_t fraction = microdollars_per_million % 1'000'000;
  if (fraction % 10'000 == 0) {
    std::snprintf(buffer, sizeof buffer, "$%lld.%02lld", static_cast<long long>(whole),
                  static_cast<long long>(fraction / 10'000));
  } else {
    std::snprintf(buffer, sizeof buffer, "$%lld.%06lld", static_cast<long long>(whole),
                  static_cast<long long>(fraction));
    std::string text(buffer);
    while (text.back() == '0') text.pop_back();
    return text;
  }
  return buffer;
}

}  // namespace sluice::dispatch
