#include "server/metrics/family.h"

#include "server/metrics/exposition.h"
#include "server/metrics/sample_writer.h"
#include "server/metrics/series_table.h"

namespace sluice::metrics {

namespace {

std::vector<std::string_view> views(std::span<const std::string> values) {
  return {values.begin(), values.end()};
}

std::span<const std::string_view> asSpan(std::initializer_list<std::string_view> values) {
  return {values.begin(), values.size()};
}

}  // namespace

Family::Family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), type_(type), label_names_(std::move(label_names)) {}

Family::~Family() = default;

template <class Series>
MetricFamily<Series>::MetricFamily(std::string name, std::string help, std::vector<std::string> label_names,
                                   CounterFamily* dropped, std::vector<double> bounds)
    : Family(std::move(name), std::move(help), kMetricTypeOf<Series>, std::move(label_names)),
      bounds_(std::move(bounds)),
      table_(std::make_unique<detail::SeriesTable<Series>>(*this, dropped, kDefaultMaxSeries, [this] {
        if constexpr (std::same_as<Series, Histogram>) {
          return std::make_unique<Histogram>(bounds_);
        } else {
          return std::make_unique<Series>();
        }
      })) {}

template <class Series>
MetricFamily<Series>::~MetricFamily() = default;

template <class Series>
Series& MetricFamily<Series>::with(std::initializer_list<std::string_view> label_values) {
  return table_->with(asSpan(label_values));
}

template <class Series>
Series& MetricFamily<Series>::with(std::span<const std::string_view> label_values) {
  return table_->with(label_values);
}

template <class Series>
Series& MetricFamily<Series>::with(std::span<const std::string> label_values) {
  return table_->with(views(label_values));
}

template <class Series>
void MetricFamily<Series>::setMaxSeries(size_t max_series) {
  table_->setMaxSeries(max_series);
}

template <class Series>
size_t MetricFamily<Series>::seriesCount() const {
  return table_->size();
}

template <class Series>
void MetricFamily<Series>::remove(std::initializer_list<std::string_view> label_values)
  requires std::same_as<Series, Gauge>
{
  remove(asSpan(label_values));
}

template <class Series>
void MetricFamily<Series>::remove(std::span<const std::string_view> label_values)
  requires std::same_as<Series, Gauge>
{
  if (Gauge* gauge = table_->hide(label_values)) gauge->set(0);
}

template <class Series>
void MetricFamily<Series>::clear()
  requires std::same_as<Series, Gauge>
{
  table_->hideAll([](Gauge& gauge) { gauge.set(0); });
}

template <class Series>
void MetricFamily<Series>::render(std::string& out) const {
  writeHeader(out, *this);
  if constexpr (std::same_as<Series, Histogram>) {
    std::vector<std::string> les;
    les.reserve(bounds_.size() + 1);
    for (double bound : bounds_) les.push_back(formatValue(bound));
    les.emplace_back("+Inf");
    table_->forEachVisible([&](const std::vector<std::string>& values, const Histogram& histogram) {
      // Read the buckets once and derive the count from them, so that the +Inf bucket and _count
      // always agree and the buckets are cumulative even while observe() runs.
      uint64_t cumulative = 0;
      for (size_t i = 0; i < les.size(); ++i) {
        cumulative += histogram.bucketCount(i);
        writeSample(out, name(), "_bucket", labelNames(), values, les[i], static_cast<double>(cumulative));
      }
      writeSample(out, name(), "_sum", labelNames(), values, {}, histogram.sum());
      writeSample(out, name(), "_count", labelNames(), values, {}, static_cast<double>(cumulative));
    });
  } else {
    table_->forEachVisible([&](const std::vector<std::string>& values, const Series& series) {
      writeSample(out, name(), "", labelNames(), values, {}, series.value());
    });
  }
}

template class MetricFamily<Counter>;
template class MetricFamily<Gauge>;
template class MetricFamily<Histogram>;

}  // namespace sluice::metrics
