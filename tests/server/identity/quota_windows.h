#pragma once
// Quota windows and subjects for the quota tests (quota.h, QuotaStore over PostgreSQL and over the
// fake counters).

#include <cstdint>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "server/identity/quota.h"

namespace sluice::test {

inline catalog::QuotaWindow window(std::string id, catalog::QuotaScope per, int64_t secs) {
  catalog::QuotaWindow w;
  w.id = std::move(id);
  w.per = per;
  w.seconds = secs;
  return w;
}

// A request of `user` through key "Ab3dE6gH", attributed to `project`.
inline identity::QuotaSubject subject(std::string user, std::optional<std::string> project = std::nullopt) {
  identity::QuotaSubject s;
  s.user = std::move(user);
  s.project = std::move(project);
  s.api_key_id = "Ab3dE6gH";
  return s;
}

}  // namespace sluice::test
