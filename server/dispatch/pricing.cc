#include "server/dispatch/pricing.h"

#include <cstdio>

namespace sluice::dispatch {

namespace {

// The per-million prices that apply to this usage: the long_context tier's when the prompt is
// above its threshold, else the base ones.
struct Prices {
  int64_t input;
  int64_t output;
  int64_t cache_read;
  int64_t cache_write;
};

Prices pricesFor(const catalog::Pricing& pricing, const wire::Usage& usage) {
  Prices prices{pricing.input_per_million, pricing.output_per_million, pricing.cache_read_per_million,
                pricing.cache_write_per_million};
  if (pricing.long_context && usage.input_tokens > pricing.long_context->above_input_tokens) {
    const auto& tier = *pricing.long_context;
    prices.input = tier.input_per_million;
    prices.output = tier.output_per_million;
    prices.cache_read = tier.cache_read_per_million.value_or(prices.cache_read);
    prices.cache_write = tier.cache_write_per_million.value_or(prices.cache_write);
  }
  return prices;
}

int64_t roundedMicrodollars(__int128 token_microdollars_per_million) {
  return static_cast<int64_t>((token_microdollars_per_million + 500'000) / 1'000'000);
}

}  // namespace

int64_t costMicrodollars(const catalog::Pricing& pricing, const wire::Usage& usage) {
  const Prices prices = pricesFor(pricing, usage);
  // Tokens x microdollars-per-million can exceed 2^63 only for absurd counts; __int128 keeps it exact.
  const __int128 total = static_cast<__int128>(usage.uncachedInputTokens()) * prices.input +
                         static_cast<__int128>(usage.cache_read_tokens) * prices.cache_read +
                         static_cast<__int128>(usage.cache_write_tokens) * prices.cache_write +
                         static_cast<__int128>(usage.output_tokens) * prices.output;
  return roundedMicrodollars(total);
}

int64_t cacheSavingsMicrodollars(const catalog::Pricing& pricing, const wire::Usage& usage) {
  if (usage.cache_read_tokens <= 0) return 0;
  const Prices prices = pricesFor(pricing, usage);
  if (prices.cache_read >= prices.input) return 0;
  return roundedMicrodollars(static_cast<__int128>(usage.cache_read_tokens) * (prices.input - prices.cache_read));
}

std::string_view toString(Unit unit) {
  switch (unit) {
    case Unit::None: return "";
    case Unit::Images: return "images";
    case Unit::Characters: return "characters";
    case Unit::Seconds: return "seconds";
    case Unit::Requests: return "requests";
  }
  return "";
}

Units unitsFor(wire::Operation operation, const wire::AnswerMeasure& answer, int64_t input_characters) {
  switch (operation) {
    case wire::Operation::ImageGenerations: return {Unit::Images, answer.data_items};
    case wire::Operation::Speech: return {Unit::Characters, input_characters};
    case wire::Operation::Transcriptions:
    case wire::Operation::Translations:
      if (answer.duration_seconds) {
        const double seconds = *answer.duration_seconds;
        // Rounded up: a 0.2-second clip is one second. Bounded well below int64 for absurd values.
        const auto whole = static_cast<int64_t>(seconds > 1e12 ? 1e12 : seconds);
        return {Unit::Seconds, whole + (static_cast<double>(whole) < seconds ? 1 : 0)};
      }
      return {Unit::Requests, 1};
    case wire::Operation::Embeddings:
    case wire::Operation::Moderations:
    case wire::Operation::Rerank:
      if (answer.usage) return {};
      return {Unit::Requests, 1};
  }
  return {};
}

int64_t unitCostMicrodollars(const catalog::Pricing& pricing, const Units& units) {
  __int128 thousandths = 0;  // microdollars x 1000, so every price divides exactly before rounding
  switch (units.unit) {
    case Unit::Images: thousandths = static_cast<__int128>(units.count) * pricing.per_image * 1000; break;
    case Unit::Characters: thousandths = static_cast<__int128>(units.count) * pricing.per_1k_characters; break;
    case Unit::Seconds: thousandths = static_cast<__int128>(units.count) * pricing.per_minute * 1000 / 60; break;
    case Unit::Requests: thousandths = static_cast<__int128>(units.count) * pricing.per_request * 1000; break;
    case Unit::None: break;
  }
  return static_cast<int64_t>((thousandths + 500) / 1000);
}

Charge chargeFor(const catalog::Pricing& pricing, const wire::Usage& usage, const Units& units) {
  return Charge{costMicrodollars(pricing, usage) + unitCostMicrodollars(pricing, units),
                cacheSavingsMicrodollars(pricing, usage)};
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
