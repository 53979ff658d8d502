#include "server/scim/listing.h"

#include <cctype>
#include <charconv>

#include "server/scim/bounds.h"
#include "server/scim/meta.h"

namespace sluice::scim {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<long long> integerOf(const std::string& text) {
  long long value = 0;
  const auto* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || at != end) return std::nullopt;
  return value;
}

}  // namespace

std::expected<ListQuery, ScimError> parseListQuery(const std::map<std::string, std::string>& query) {
  ListQuery list;
  list.count = kDefaultPageSize;
  for (const auto& [raw_name, value] : query) {
    const std::string name = lower(raw_name);
    if (name == "filter" && !value.empty()) {
      auto filter = parseFilter(value);
      if (!filter) return std::unexpected(filter.error());
      list.filter = std::move(*filter);
    } else if (name == "startindex") {
      const auto index = integerOf(value);
      if (!index) return std::unexpected(invalidValue("startIndex must be an integer"));
      list.start_index = *index < 1 ? 1 : static_cast<size_t>(*index);
    } else if (name == "count") {
      const auto count = integerOf(value);
      if (!count) return std::unexpected(invalidValue("count must be an integer"));
      list.count = *count < 0 ? 0 : std::min(static_cast<size_t>(*count), kMaxPageSize);
    } else if (name == "excludedattributes") {
      // A comma-separated list: members (Entra ID), possibly with its schema URN.
      size_t at = 0;
      while (at <= value.size()) {
        const size_t comma = std::min(value.find(',', at), value.size());
        std::string item = value.substr(at, comma - at);
        while (!item.empty() && item.front() == ' ') item.erase(0, 1);
        while (!item.empty() && item.back() == ' ') item.pop_back();
        if (canonicalAttribute(item) == "members") list.without_members = true;
        at = comma + 1;
      }
    }
  }
  return list;
}

nlohmann::json listResponse(nlohmann::json resources, size_t total, size_t start_index) {
  const size_t items = resources.size();
  return {{"schemas", {kListSchema}},
          {"totalResults", total},
          {"startIndex", start_index},
          {"itemsPerPage", items},
          {"Resources", std::move(resources)}};
}

}  // namespace sluice::scim
