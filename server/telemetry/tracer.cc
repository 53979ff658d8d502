#include "server/telemetry/tracer.h"

#include "server/text/hex.h"

namespace sluice::telemetry {

Tracer::Tracer(TraceExport config, Sender sender, upstream::Transport& transport)
    : config_(std::move(config)),
      exporter_("spans", config_,
                [sender = std::move(sender)](const std::vector<EncodedSpans>& batch, bool json) {
                  return json ? wrapTracesJson(sender, batch) : wrapTracesProtobuf(sender, batch);
                },
                transport) {
  exporter_.on_drop = [this](uint64_t spans) {
    if (on_drop) on_drop(spans);
  };
}

void Tracer::offerRequest(const audit::Record& row, const RequestFacts& facts, const RequestTrace& trace,
                          const catalog::Catalog* catalog, audit::TimePoint now) {
  if (config_.protocol == Protocol::Json) {
    exporter_.offer(encodeSpansJson(requestSpans(row, facts, trace, catalog, now)));
  } else {
    exporter_.offer(encodeRequestSpansProtobuf(row, facts, trace, catalog, now));
  }
}

void Tracer::offer(const std::vector<Span>& spans) {
  exporter_.offer(config_.protocol == Protocol::Json ? encodeSpansJson(spans) : encodeSpansProtobuf(spans));
}

bool Tracer::sample(const std::optional<SpanContext>& parent, std::string_view trace_id) const {
  const Sampler& sampler = config_.sampler;
  if (sampler.parent_based && parent) return parent->sampled;
  switch (sampler.root) {
    case SamplerKind::AlwaysOn: return true;
    case SamplerKind::AlwaysOff: return false;
    case SamplerKind::TraceIdRatio: {
      if (sampler.ratio >= 1.0) return true;
      if (sampler.ratio <= 0.0 || trace_id.size() < 16) return false;
      uint64_t low = 0;
      for (const char c : trace_id.substr(trace_id.size() - 16)) low = (low << 4) | static_cast<uint64_t>(text::hexValue(c) & 0xf);
      // The lower 63 bits against the ratio's share of them.
      return (low & 0x7fff'ffff'ffff'ffffULL) < static_cast<uint64_t>(sampler.ratio * 9223372036854775807.0);
    }
  }
  return false;
}

Sender senderFor(const TraceExport& config, std::string_view replica, std::string_view version) {
  Sender sender;
  sender.resource.push_back({"service.name", config.service_name});
  if (!replica.empty()) sender.resource.push_back({"service.instance.id", std::string(replica)});
  if (!version.empty()) sender.resource.push_back({"service.version", std::string(version)});
  sender.resource.push_back({"telemetry.sdk.name", std::string("sluice")});
  sender.resource.push_back({"telemetry.sdk.language", std::string("cpp")});
  for (const auto& [key, value] : config.resource) {
    if (key == "service.name" || key == "service.instance.id") continue;  // set above
    sender.resource.push_back({key, value});
  }
  sender.scope_name = "sluice";
  sender.scope_version = std::string(version);
  return sender;
}

}  // namespace sluice::telemetry
