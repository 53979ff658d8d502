#pragma once
// What a request cost at a deployment's price. Pure integer arithmetic in microdollars.

#include <cstdint>
#include <string>

#include "catalog/catalog.h"
#include "server/wire/usage.h"

namespace sluice::dispatch {

// Cost in microdollars, rounded to the nearest. When the pricing has a long_context tier and the
// request's prompt (all input tokens) is above its threshold, the whole request is priced at that
// tier (cache prices fall back to the base ones when the tier does not name them).
int64_t costMicrodollars(const catalog::Pricing& pricing, const wire::Usage& usage);

// "$2.00" style rendering of a per-million price, for people.
std::string formatPerMillion(int64_t microdollars_per_million);

}  // namespace sluice::dispatch
