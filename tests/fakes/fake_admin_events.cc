#include "tests/fakes/fake_admin_events.h"

#include <algorithm>

namespace sluice::fakes {

store::AdminEventRow FakeAdminEvents::append(const store::AdminEventRow& event) {
  std::lock_guard lock(mutex_);
  store::AdminEventRow stored = event;
  stored.id = static_cast<int64_t>(rows_.size()) + 1;
  rows_.push_back(stored);
  return stored;
}

std::vector<store::AdminEventRow> FakeAdminEvents::recent(size_t limit, const std::optional<std::string>& target) {
  std::lock_guard lock(mutex_);
  std::vector<store::AdminEventRow> out;
  for (const auto& row : rows_) {
    if (!target || row.target == *target) out.push_back(row);
  }
  std::sort(out.begin(), out.end(), [](const store::AdminEventRow& a, const store::AdminEventRow& b) {
    return a.at != b.at ? a.at > b.at : a.id > b.id;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace sluice::fakes
