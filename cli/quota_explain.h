#pragma once
// The quota part of `sluicectl catalog explain`: every window (whose usage it counts, its span, its
// mode), its default limit and its overrides; and, for a caller described by --member, --group,
// --project and --key, which limit of each window applies to them and why.

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"

namespace sluice::cli {

// The caller to explain limits for; nothing set: the windows alone.
struct QuotaWho {
  std::optional<std::string> member;
  std::optional<std::string> project;
  std::optional<std::string> key;  // the key's public id (sk-sluice-<id>…)
  std::vector<std::string> groups;
  bool any() const { return member || project || key || !groups.empty(); }
};

// Text lines under "quotas"; nothing when the catalog declares no window.
void explainQuotas(const catalog::Catalog& catalog, const QuotaWho& who, std::ostream& out);
// The same as JSON: {"mode":…,"windows":[{"id","per","period"|"seconds","timezone","mode","default",
// "overrides":[…],"applies":[{"scope","limit","source"}]}]}; null when no window is declared.
nlohmann::json explainQuotasJson(const catalog::Catalog& catalog, const QuotaWho& who);

}  // namespace sluice::cli
