#pragma once
// Who is making a request, as identity established it (an API key, a client certificate or a
// trusted proxy's header). A plain value: copied into each request, read by access decisions,
// scope attribution, quotas and the audit row.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::identity {

enum class Role { Member, Admin };
// "member" | "admin": the names the `role` band of rules.yaml and sluicectl use.
std::string_view toString(Role role);
std::optional<Role> parseRole(std::string_view text);

// How the caller was identified: an API key, a verified TLS client certificate, or a trusted
// proxy's header (catalog::TrustedProxies).
enum class IdentitySource { Key, Certificate, Proxy };
// "key" | "certificate" | "proxy".
std::string_view toString(IdentitySource source);

struct Caller {
  std::string user;                            // the member's name
  Role role = Role::Member;
  std::vector<std::string> groups;
  std::vector<std::string> projects;           // the projects the member belongs to
  std::optional<std::string> primary_project;  // one of `projects`, when set
  std::string api_key_id;                      // the key's public id (never the key)
  std::optional<std::string> key_project;      // the project the key is bound to, if any
  IdentitySource source = IdentitySource::Key;
  std::string subject;                         // Certificate/Proxy: the subject that matched ("cn:alice")

  bool belongsTo(std::string_view project) const;
  bool inGroup(std::string_view group) const;
};

}  // namespace sluice::identity
