#include "catalog/pricing_reader.h"

#include <string>

namespace sluice::catalog {

namespace {

void readLongContext(YamlReader& reader, const Entry& entry, std::string_view owner,
                     PricingOverride& out) {
  std::string what = "long_context pricing of " + std::string(owner);
  Fields fields = reader.fields(entry, what,
                                {"above_input_tokens", "input_per_million", "output_per_million",
                                 "cache_read_per_million", "cache_write_per_million"});
  if (!fields.ok()) return;
  LongContextOverride lc;
  lc.where = entry.key_at;
  for (const Entry& e : fields.entries()) {
    std::string field = e.key + " in " + what;
    if (e.key == "above_input_tokens") {
      lc.above_input_tokens = reader.integer(e, field, 1).value_or(1);
    } else if (e.key == "input_per_million") {
      lc.input_per_million = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "output_per_million") {
      lc.output_per_million = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "cache_read_per_million") {
      lc.cache_read_per_million = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "cache_write_per_million") {
      lc.cache_write_per_million = reader.usdMicros(e, field).value_or(0);
    }
  }
  out.long_context = lc;
}

// Reports each required long_context field that is missing; true when all are there.
bool longContextComplete(const LongContextOverride& lc, DiagnosticSink& sink,
                         std::string_view owner) {
  bool complete = true;
  auto need = [&](const std::optional<int64_t>& field, std::string_view name) {
    if (field) return;
    sink.error(lc.where, "long_context pricing of " + std::string(owner) + " needs " +
                             std::string(name));
    complete = false;
  };
  need(lc.above_input_tokens, "above_input_tokens");
  need(lc.input_per_million, "input_per_million");
  need(lc.output_per_million, "output_per_million");
  return complete;
}

void checkRequired(const PricingOverride& written, DiagnosticSink& sink, std::string_view owner) {
  if (!written.present) return;
  if (!written.tokens_required) return;
  if (!written.input_per_million) {
    sink.error(written.where, "pricing of " + std::string(owner) + " needs input_per_million");
  }
  if (!written.output_per_million) {
    sink.error(written.where, "pricing of " + std::string(owner) + " needs output_per_million");
  }
  if (written.long_context) longContextComplete(*written.long_context, sink, owner);
}

// Fills defaults; never reports (checkRequired() has).
Pricing finalize(const PricingOverride& written) {
  Pricing pricing;
  if (!written.present) return pricing;
  pricing.input_per_million = written.input_per_million.value_or(0);
  pricing.output_per_million = written.output_per_million.value_or(0);
  // NOTE: an unpriced cache is charged as plain input: never cheaper than the truth for a provider
  // that reports cache tokens without a discount.
  pricing.cache_read_per_million = written.cache_read_per_million.value_or(pricing.input_per_million);
  pricing.cache_write_per_million =
      written.cache_write_per_million.value_or(pricing.input_per_million);
  pricing.per_image = written.per_image.value_or(0);
  pricing.per_1k_characters = written.per_1k_characters.value_or(0);
  pricing.per_minute = written.per_minute.value_or(0);
  pricing.per_request = written.per_request.value_or(0);
  const auto& lc = written.long_context;
  if (lc && lc->above_input_tokens && lc->input_per_million && lc->output_per_million) {
    pricing.long_context = LongContextPricing{*lc->above_input_tokens, *lc->input_per_million,
                                              *lc->output_per_million, lc->cache_read_per_million,
                                              lc->cache_write_per_million};
  }
  return pricing;
}

}  // namespace

// A field written with a bad value is reported here and kept as 0, so that it is not reported
// again as missing.
PricingOverride readPricing(YamlReader& reader, const Entry& entry, std::string_view owner) {
  PricingOverride out;
  out.present = true;
  out.where = entry.key_at;
  std::string what = "pricing of " + std::string(owner);
  Fields fields = reader.fields(entry, what,
                                {"input_per_million", "output_per_million",
                                 "cache_read_per_million", "cache_write_per_million",
                                 "long_context", "per_image", "per_1k_characters", "per_minute",
                                 "per_request"});
  for (const Entry& e : fields.entries()) {
    std::string field = e.key + " in " + what;
    if (e.key == "input_per_million") {
      out.input_per_million = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "output_per_million") {
      out.output_per_million = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "cache_read_per_million") {
      out.cache_read_per_million = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "cache_write_per_million") {
      out.cache_write_per_million = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "long_context") {
      readLongContext(reader, e, owner, out);
    } else if (e.key == "per_image") {
      out.per_image = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "per_1k_characters") {
      out.per_1k_characters = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "per_minute") {
      out.per_minute = reader.usdMicros(e, field).value_or(0);
    } else if (e.key == "per_request") {
      out.per_request = reader.usdMicros(e, field).value_or(0);
    }
  }
  return out;
}

Pricing modelPricing(const PricingOverride& written, DiagnosticSink& sink, std::string_view owner) {
  checkRequired(written, sink, owner);
  return finalize(written);
}

Pricing deploymentPricing(const PricingOverride& model_written, const PricingOverride& over,
                          DiagnosticSink& sink, std::string_view owner) {
  if (!over.present) return finalize(model_written);
  PricingOverride merged = model_written;
  merged.present = true;
  auto take = [](std::optional<int64_t>& into, const std::optional<int64_t>& from) {
    if (from) into = from;
  };
  take(merged.input_per_million, over.input_per_million);
  take(merged.output_per_million, over.output_per_million);
  take(merged.cache_read_per_million, over.cache_read_per_million);
  take(merged.cache_write_per_million, over.cache_write_per_million);
  take(merged.per_image, over.per_image);
  take(merged.per_1k_characters, over.per_1k_characters);
  take(merged.per_minute, over.per_minute);
  take(merged.per_request, over.per_request);
  if (over.long_context) {
    if (!merged.long_context) {
      merged.long_context = over.long_context;
    } else {
      LongContextOverride& lc = *merged.long_context;
      take(lc.above_input_tokens, over.long_context->above_input_tokens);
      take(lc.input_per_million, over.long_context->input_per_million);
      take(lc.output_per_million, over.long_context->output_per_million);
      take(lc.cache_read_per_million, over.long_context->cache_read_per_million);
      take(lc.cache_write_per_million, over.long_context->cache_write_per_million);
    }
  }
  if (!model_written.present) {
    merged.where = over.where;
    checkRequired(merged, sink, owner);
  } else if (over.long_context && !model_written.long_context) {
    longContextComplete(*merged.long_context, sink, owner);
  }
  return finalize(merged);
}

}  // namespace sluice::catalog
