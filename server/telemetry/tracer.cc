#include "server/telemetry/tracer.h"

#include <chrono>

#include "server/log/json_log.h"
#include "server/telemetry/otlp_encode.h"
#include "server/text/hex.h"

namespace sluice::telemetry {

Tracer::Tracer(TraceExport config, Sender sender, upstream::Transport& transport)
    : config_(std::move(config)), sender_(std::move(sender)), transport_(transport) {}

Tracer::~Tracer() { stop(); }

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

void Tracer::offer(std::vector<Span> spans) {
  if (spans.empty()) return;
  {
    std::lock_guard lock(mutex_);
    if (!stopping_ && queue_.size() + spans.size() <= config_.max_queue) {
      for (auto& span : spans) queue_.push_back(std::move(span));
      if (queue_.size() >= config_.max_batch) wake_.notify_one();
      return;
    }
  }
  drop(spans.size());
}

void Tracer::drop(uint64_t spans) {
  dropped_.fetch_add(spans);
  if (on_drop) on_drop(spans);
}

void Tracer::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void Tracer::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Tracer::run() {
  const auto delay = std::chrono::milliseconds(config_.schedule_delay_ms);
  for (;;) {
    std::vector<Span> batch;
    bool last = false;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, delay, [&] { return stopping_ || queue_.size() >= config_.max_batch; });
      const size_t take = std::min(queue_.size(), config_.max_batch);
      batch.reserve(take);
      for (size_t i = 0; i < take; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      last = stopping_ && queue_.empty();
    }
    if (!batch.empty() && !exportBatch(batch)) drop(batch.size());
    if (last) return;
  }
}

bool Tracer::exportBatch(const std::vector<Span>& batch) {
  upstream::Request request;
  request.url = config_.url;
  const bool json = config_.protocol == Protocol::Json;
  request.body = json ? encodeTracesJson(sender_, batch) : encodeTracesProtobuf(sender_, batch);
  request.headers.emplace_back("Content-Type", json ? "application/json" : "application/x-protobuf");
  for (const auto& header : config_.headers) request.headers.push_back(header);
  request.timeouts.connect_ms = std::min(config_.timeout_ms, 5000);
  request.timeouts.first_byte_ms = config_.timeout_ms;
  request.timeouts.idle_ms = config_.timeout_ms;
  auto backoff = std::chrono::milliseconds(500);
  for (int attempt = 1; attempt <= 3; ++attempt) {
    int status = 0;
    try {
      auto response = transport_.send(request);
      status = response->status();
      std::string body;
      while (body.size() < 64 * 1024 && response->readSome(body)) {
      }
    } catch (const std::exception&) {
      status = 0;  // unreachable or timed out: the URL may carry a token, so nothing is logged of it
    }
    if (status >= 200 && status < 300) {
      exported_.fetch_add(batch.size());
      return true;
    }
    const bool again = status == 0 || status == 429 || status == 502 || status == 503 || status == 504;
    if (!again || attempt == 3) {
      log::warn("telemetry: a batch of spans was not exported", {{"spans", batch.size()}, {"status", status}});
      return false;
    }
    {
      // Stopping: no second try, so a collector that is down never holds the shutdown.
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, backoff, [&] { return stopping_; })) return false;
    }
    backoff *= 2;
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
