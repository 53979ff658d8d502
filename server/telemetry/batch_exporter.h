#pragma once
// One OTLP signal out of the process: a bounded queue the request path (or the audit writer)
// offers to, never waiting, and a thread that exports it in batches over OTLP/HTTP through an
// upstream::Transport. A batch the collector answers 429, 502, 503 or 504 (or that cannot reach
// it) is tried again after a backoff, at most three times in all; then, or on any other answer,
// it is dropped and counted. A full queue drops the new items and counts them. offer() only takes
// a lock long enough to move a vector.
//
// Thread-safe. `Item` is one request's encoded spans (EncodedSpans, weighing as many spans as it
// holds) or one committed audit line (a std::string, weighing one record); the queue and batch
// sizes, and the exported and dropped counts, are in that weight. `encode` turns a batch into the
// request body.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/log/json_log.h"
#include "server/telemetry/config.h"
#include "server/upstream/transport.h"

namespace sluice::telemetry {

// How many spans or records an item holds; an overload for another item type is found by ADL.
inline size_t itemWeight(const std::string&) { return 1; }

template <typename Item>
class BatchExporter {
 public:
  using Encode = std::function<std::string(const std::vector<Item>& batch, bool json)>;

  // `signal` names the items in logs ("spans", "log records"). `transport` must outlive this.
  BatchExporter(std::string signal, ExportTarget target, Encode encode, upstream::Transport& transport)
      : signal_(std::move(signal)), target_(std::move(target)), encode_(std::move(encode)), transport_(transport) {}
  ~BatchExporter() { stop(); }
  BatchExporter(const BatchExporter&) = delete;
  BatchExporter& operator=(const BatchExporter&) = delete;

  const ExportTarget& target() const { return target_; }

  // Queues `items`, or drops them when the queue is full (counted).
  void offer(std::vector<Item> items) {
    size_t weight = 0;
    for (const auto& item : items) weight += itemWeight(item);
    admit(weight, [&] {
      for (auto& item : items) queue_.push_back(std::move(item));
    });
  }
  void offer(Item item) {
    admit(itemWeight(item), [&] { queue_.push_back(std::move(item)); });
  }

  void start() {
    std::lock_guard lock(mutex_);
    if (thread_.joinable() || stopping_) return;
    thread_ = std::thread([this] { run(); });
  }

  // Exports what is queued (one try per batch) and stops the thread.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  // Counted drops go here as well, e.g. a metric; set before start().
  std::function<void(uint64_t items)> on_drop;

  uint64_t exported() const { return exported_.load(); }
  uint64_t dropped() const { return dropped_.load(); }

 private:
  // Queues what `push` adds (weighing `weight`) when it fits, else counts it dropped.
  template <typename Push>
  void admit(size_t weight, Push push) {
    if (weight == 0) return;
    {
      std::lock_guard lock(mutex_);
      if (!stopping_ && queued_ + weight <= target_.max_queue) {
        push();
        queued_ += weight;
        if (queued_ >= target_.max_batch) wake_.notify_one();
        return;
      }
    }
    drop(weight);
  }

  void drop(uint64_t items) {
    dropped_.fetch_add(items);
    if (on_drop) on_drop(items);
  }

  void run() {
    const auto delay = std::chrono::milliseconds(target_.schedule_delay_ms);
    for (;;) {
      std::vector<Item> batch;
      size_t weight = 0;
      bool last = false;
      {
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, delay, [&] { return stopping_ || queued_ >= target_.max_batch; });
        // Whole items up to the batch size (at least one, however heavy).
        while (!queue_.empty() && (batch.empty() || weight + itemWeight(queue_.front()) <= target_.max_batch)) {
          weight += itemWeight(queue_.front());
          batch.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
        queued_ -= weight;
        last = stopping_ && queue_.empty();
      }
      if (!batch.empty() && !exportBatch(batch, weight)) drop(weight);
      if (last) return;
    }
  }

  bool exportBatch(const std::vector<Item>& batch, size_t weight) {
    upstream::Request request;
    request.url = target_.url;
    const bool json = target_.protocol == Protocol::Json;
    try {
      request.body = encode_(batch, json);
    } catch (const std::exception& error) {
      log::warn("telemetry: a batch could not be encoded", {{"signal", signal_}, {"error", error.what()}});
      return false;
    }
    request.headers.emplace_back("Content-Type", json ? "application/json" : "application/x-protobuf");
    for (const auto& header : target_.headers) request.headers.push_back(header);
    request.timeouts.connect_ms = std::min(target_.timeout_ms, 5000);
    request.timeouts.first_byte_ms = target_.timeout_ms;
    request.timeouts.idle_ms = target_.timeout_ms;
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
        exported_.fetch_add(weight);
        return true;
      }
      const bool again = status == 0 || status == 429 || status == 502 || status == 503 || status == 504;
      if (!again || attempt == 3) {
        log::warn("telemetry: a batch was not exported",
                  {{"signal", signal_}, {"items", weight}, {"status", status}});
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

  std::string signal_;
  ExportTarget target_;
  Encode encode_;
  upstream::Transport& transport_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Item> queue_;
  size_t queued_ = 0;  // the weight of queue_
  bool stopping_ = false;
  std::thread thread_;
  std::atomic<uint64_t> exported_{0};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace sluice::telemetry
