#pragma once
// What a request cost at a deployment's price, and what its cache reads saved. Pure integer
// arithmetic in microdollars.

#include <cstdint>
#include <string>

#include "catalog/catalog.h"
#include "server/wire/answer_meter.h"
#include "server/wire/operation.h"
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

// What an answer not counted in tokens alone is counted in (the audit row's `unit` and `units`).
enum class Unit { None, Images, Characters, Seconds, Requests };
// "", "images", "characters", "seconds", "requests".
std::string_view toString(Unit unit);

struct Units {
  Unit unit = Unit::None;
  int64_t count = 0;
};

// The units of one served answer of `operation`: images = the items of the answer's `data`;
// speech = the characters (code points) of the request's `input`; transcriptions and
// translations = the audio's seconds, rounded up, when the answer states them (a `duration`, or a
// `usage` of type duration), else 1 request; embeddings, moderations and rerank = none when the
// answer reported token usage, else 1 request.
Units unitsFor(wire::Operation operation, const wire::AnswerMeasure& answer, int64_t input_characters);

// What the per-unit prices charge for `units`, rounded to the nearest microdollar: per_image x
// images, per_1k_characters x characters / 1000, per_minute x seconds / 60, per_request x requests.
int64_t unitCostMicrodollars(const catalog::Pricing& pricing, const Units& units);

// Both figures of one served request, as the audit row and the metrics carry them: the tokens'
// cost plus the units'.
struct Charge {
  int64_t cost_microdollars = 0;
  int64_t cache_savings_microdollars = 0;
};
Charge chargeFor(const catalog::Pricing& pricing, const wire::Usage& usage, const Units& units = {});

// "$2.00" style rendering of a per-million price, for people.
std::string formatPerMillion(int64_t microdollars_per_million);

}  // namespace sluice::dispatch
