#pragma once
// The `pricing:` block of a model or a deployment, and the field-by-field merge of a deployment's
// override over its model's prices.

#include <cstdint>
#include <optional>
#include <string_view>

#include "catalog/catalog.h"
#include "catalog/yaml_reader.h"

namespace sluice::catalog {

struct LongContextOverride {
  std::optional<int64_t> above_input_tokens;
  std::optional<int64_t> input_per_million;
  std::optional<int64_t> output_per_million;
  std::optional<int64_t> cache_read_per_million;
  std::optional<int64_t> cache_write_per_million;
  Location where;
};

// Every field as written (microdollars per million), absent ones nullopt.
struct PricingOverride {
  bool present = false;  // a `pricing:` key was written
  std::optional<int64_t> input_per_million;
  std::optional<int64_t> output_per_million;
  std::optional<int64_t> cache_read_per_million;
  std::optional<int64_t> cache_write_per_million;
  std::optional<LongContextOverride> long_context;
  std::optional<int64_t> per_image;          // microdollars per unit
  std::optional<int64_t> per_1k_characters;
  std::optional<int64_t> per_minute;
  std::optional<int64_t> per_request;
  // Chat models must write both token prices; the other kinds price what they need (an embedding
  // model input_per_million alone, an image model per_image alone). Set from the model's kind.
  bool tokens_required = true;
  Location where;
};

// Reads a `pricing:` entry; every problem is reported and the field left out. `owner` names the
// model or deployment in messages.
PricingOverride readPricing(YamlReader& reader, const Entry& entry, std::string_view owner);

// A model's prices. No `pricing:` means free (all zero). When present (and `tokens_required`),
// input_per_million and output_per_million are required (each missing one is reported); cache read and write prices
// default to the input price; a long_context block needs above_input_tokens, input_per_million
// and output_per_million, and its cache prices stay nullopt when not written.
Pricing modelPricing(const PricingOverride& written, DiagnosticSink& sink, std::string_view owner);

// A deployment's prices: the fields its override writes replace the model's written fields, then
// the model's defaults apply, so a deployment that lowers input_per_million also lowers a cache
// price the model left to default. Only problems the override introduces are reported (the
// model's own were reported by modelPricing()).
Pricing deploymentPricing(const PricingOverride& model_written, const PricingOverride& over,
                          DiagnosticSink& sink, std::string_view owner);

}  // namespace sluice::catalog
