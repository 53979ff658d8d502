#include "server/identity/caller.h"

#include <algorithm>

namespace sluice::identity {

std::string_view toString(Role role) { return role == Role::Admin ? "admin" : "member"; }

std::string_view toString(IdentitySource source) {
  switch (source) {
    case IdentitySource::Key: return "key";
    case IdentitySource::Certificate: return "certificate";
    case IdentitySource::Proxy: return "proxy";
  }
  return "key";
}

std::optional<Role> parseRole(std::string_view text) {
  if (text == "member") return Role::Member;
  if (text == "admin") return Role::Admin;
  return std::nullopt;
}

bool Caller::belongsTo(std::string_view project) const {
  return std::find(projects.begin(), projects.end(), project) != projects.end();
}

bool Caller::inGroup(std::string_view group) const {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

}  // namespace sluice::identity
