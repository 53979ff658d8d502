#include "server/metrics/family.h"

#include <utility>

#include "server/metrics/exposition.h"
#include "server/metrics/series_table.h"

namespace sluice::metrics {

Family::Family(std::string name, std::string help, prometheus::MetricType type, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), type_(type), label_names_(std::move(label_names)) {}

Family::~Family() = default;

prometheus::MetricFamily Family::shape(std::vector<prometheus::MetricFamily> collected) const {
  prometheus::MetricFamily family;
  if (!collected.empty()) family = std::move(collected.front());
  // prometheus-cpp collects nothing at all for a family without series; the header still shows.
  family.name = name_;
  family.help = escapeHelp(help_);
  family.type = type_;
  orderSeries(family, label_names_);
  return family;
}

template <class Series>
MetricFamily<Series>::MetricFamily(prometheus::Family<Native>& native, std::string name, std::string help,
                                   std::vector<std::string> label_names, CounterFamily* dropped,
                                   std::vector<double> bounds)
    : Family(std::move(name), std::move(help), Native::metric_type, std::move(label_names)),
      native_(native),
      bounds_(std::move(bounds)),
      table_(std::make_unique<detail::SeriesTable<Series>>(native_, *this, bounds_, dropped, kDefaultMaxSeries)) {}

template <class Series>
MetricFamily<Series>::~MetricFamily() = default;

template <class Series>
Series& MetricFamily<Series>::with(std::initializer_list<std::string_view> label_values) {
  return table_->with(std::span<const std::string_view>(label_values.begin(), label_values.size()));
}

template <class Series>
Series& MetricFamily<Series>::with(std::span<const std::string_view> label_values) {
  return table_->with(label_values);
}

template <class Series>
Series& MetricFamily<Series>::with(std::span<const std::string> label_values) {
  std::vector<std::string_view> views(label_values.begin(), label_values.end());
  return table_->with(views);
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
prometheus::MetricFamily MetricFamily<Series>::collect() const {
  return shape(native_.Collect());
}

template <class Series>
void MetricFamily<Series>::remove(std::initializer_list<std::string_view> label_values)
  requires std::same_as<Series, Gauge>
{
  remove(std::span<const std::string_view>(label_values.begin(), label_values.size()));
}

template <class Series>
void MetricFamily<Series>::remove(std::span<const std::string_view> label_values)
  requires std::same_as<Series, Gauge>
{
  table_->erase(label_values);
}

template <class Series>
void MetricFamily<Series>::clear()
  requires std::same_as<Series, Gauge>
{
  table_->eraseAll();
}

template class MetricFamily<Counter>;
template class MetricFamily<Gauge>;
template class MetricFamily<Histogram>;

}  // namespace sluice::metrics
