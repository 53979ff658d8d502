#include "catalog/suggest.h"

#include <algorithm>
#include <utility>

#include "catalog/catalog.h"

namespace sluice::catalog {

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string_view closestName(std::string_view text, std::span<const std::string_view> names, size_t below) {
  std::string_view closest;
  if (text.size() > kMaxSuggestedLength) return closest;
  for (std::string_view name : names) {
    if (name.size() > kMaxSuggestedLength) continue;
    if (size_t d = editDistance(text, name); d < below) {
      below = d;
      closest = name;
    }
  }
  return closest;
}

std::vector<std::string> nearestNames(std::string_view text, const std::vector<std::string>& names, size_t limit) {
  std::vector<std::pair<size_t, const std::string*>> near;
  std::vector<const std::string*> containing;
  if (text.empty() || text.size() > kMaxSuggestedLength) return {};
  const size_t allowed = std::max<size_t>(2, text.size() / 3);
  for (const std::string& name : names) {
    if (name.size() > kMaxSuggestedLength || name == text) continue;
    const bool seen = std::ranges::any_of(near, [&](const auto& n) { return *n.second == name; }) ||
                      std::ranges::any_of(containing, [&](const std::string* c) { return *c == name; });
    if (seen) continue;
    if (size_t d = editDistance(text, name); d <= allowed) {
      near.emplace_back(d, &name);
    } else if (text.size() >= 3 && name.find(text) != std::string::npos) {
      containing.push_back(&name);
    }
  }
  std::ranges::stable_sort(near, {}, &std::pair<size_t, const std::string*>::first);
  std::vector<std::string> out;
  for (const auto& [distance, name] : near) {
    // Only the nearest tier: one typo away from the best is a suggestion, four away is noise.
    if (out.size() < limit && distance <= near.front().first + 1) out.push_back(*name);
  }
  for (const std::string* name : containing) {
    if (out.size() < limit) out.push_back(*name);
  }
  return out;
}

std::vector<std::string> servedIds(const Catalog& catalog) {
  std::vector<std::string> ids;
  for (const Model& model : catalog.models) ids.push_back(model.id);
  for (const Route& route : catalog.routes) {
    if (route.kind == RouteKind::Alias) ids.push_back(route.id);
  }
  return ids;
}

std::string quotedChoice(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

std::string didYouMean(const std::vector<std::string>& names) {
  return names.empty() ? "" : " (did you mean " + quotedChoice(names) + "?)";
}

}  // namespace sluice::catalog
