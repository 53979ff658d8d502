#pragma once
// Families whose samples a callback reports at scrape time (the audit writer's figures, the
// presence poller's): before each collect() the callback's samples are written into a
// prometheus-cpp gauge or counter family on the scraping thread. Made by
// Registry::gaugeCallback/counterCallback (registry.h states the callback's rules).
//
// Each collect(): a sample whose number of label values differs from labelNames() is skipped,
// as is a repeated label set (the first wins; invalid UTF-8 is replaced by U+FFFD first); label sets the callback no longer reports are
// removed. A counter is brought to the reported value by incrementing it; a value below the last
// one (the source restarted) starts the series again from that value.
//
// Thread-safety: collect() may be called from any thread; calls are serialised by the family's
// own mutex, held while the callback runs.

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include "server/metrics/family.h"

namespace sluice::metrics {

// What a callback family reports at scrape time: (label values, value) pairs.
using Samples = std::vector<std::pair<std::vector<std::string>, double>>;
using SamplesCallback = std::function<Samples()>;

// Native: prometheus::Gauge or prometheus::Counter.
template <class Native>
class CallbackFamily final : public Family {
 public:
  // `native`: owned by the registry's prometheus::Registry; written only by this object.
  CallbackFamily(prometheus::Family<Native>& native, std::string name, std::string help,
                 std::vector<std::string> label_names, SamplesCallback callback);
  ~CallbackFamily() override;

  prometheus::MetricFamily collect() const override;

 private:
  // Writes the callback's samples into native_. Called with mutex_ held.
  void refresh() const;

  prometheus::Family<Native>& native_;
  SamplesCallback callback_;
  mutable std::mutex mutex_;
  // The series written by the last refresh(), by label values (invalid UTF-8 replaced, so that
  // values differing only there are one series).
  mutable std::map<std::vector<std::string>, Native*> live_;
};

extern template class CallbackFamily<prometheus::Gauge>;
extern template class CallbackFamily<prometheus::Counter>;

}  // namespace sluice::metrics
