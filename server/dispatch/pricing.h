#pragma once
// What a request cost at a deployment's price, and what its cache reads saved. Pure integer
// arithmetic in microdollars.

#include <cstdint>
#include <string>

#include "catalog/catalog.h"
#include "server/wire/usage.h"

namespace sluice::dispatch {

// Cost in microdollars, rounded to the nearest. When the pricing has a long_context tier and the
// request's prompt (all input tokens) is above its threshold, the whole request is priced at that
// tier (cache prices fall back to the base ones when the tier does not name them).
int64_t costMicrodollars(const catalog::Pricing& pricing, const wire::Usage& usage);

// What the cache reads saved, in microdollars rounded to the nearest: cache_read_tokens x (the
// uncached input price - the cache-read price), at the same tier costMicrodollars() uses.
// 0 when there were no cache reads, or when the pricing declares no cache-read price (the catalog
// then charges cache reads as plain input); never negative (a cache-read price above the input
// price saves nothing rather than costing).
int64_t cacheSavingsMicrodollars(const catalog::Pricing& pricing, const wire::Usage& usage);

// Both figures of one served request, as the audit row and the metrics carry them.
struct Charge {
  int64_t cost_microdollars = 0;
  int64_t cache_savings_microdollars = 0;
};
Charge chargeFor(const catalog::Pricing& pricing, const wire::Usage& usage);

// "$2.00" style rendering of a per-million price, for people.
std::string formatPerMillion(int64_t microdollars_per_million);

}  // namespace sluice::dispatch
