#pragma once
// The query of a SCIM list (RFC 7644 §3.4.2): filter, startIndex and count paging,
// excludedAttributes; and the ListResponse it is answered with. Pure.

#include <cstddef>
#include <expected>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/scim/filter.h"
#include "server/scim/scim_error.h"

namespace sluice::scim {

struct ListQuery {
  std::optional<Filter> filter;
  size_t start_index = 1;  // 1-based; values below 1 read as 1 (RFC 7644 §3.4.2.4)
  size_t count = 100;      // at most kMaxPageSize; a negative count reads as 0
  bool without_members = false;  // excludedAttributes names members
};

// From the decoded query parameters (names in any case). invalidFilter for a filter
// parseFilter refuses; invalidValue for a startIndex or count that is not an integer. A count
// above kMaxPageSize is lowered to it (the RFC lets the server return fewer).
std::expected<ListQuery, ScimError> parseListQuery(const std::map<std::string, std::string>& query);

// {"schemas":[ListResponse],"totalResults":total,"startIndex":…,"itemsPerPage":resources.size(),"Resources":[…]}.
nlohmann::json listResponse(nlohmann::json resources, size_t total, size_t start_index);

}  // namespace sluice::scim
