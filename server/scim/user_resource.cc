#include "server/scim/user_resource.h"

#include <cctype>

#include "server/scim/bounds.h"

namespace sluice::scim {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A kept string: null clears it; otherwise a string within `limit` bytes without control bytes.
std::expected<std::optional<std::string>, ScimError> textOf(const nlohmann::json& value, std::string_view attribute,
                                                           size_t limit = kMaxTextBytes) {
  if (value.is_null()) return std::optional<std::string>();
  if (!value.is_string()) return std::unexpected(invalidValue(std::string(attribute) + " must be a string"));
  std::string text = value.get<std::string>();
  if (text.size() > limit) {
    return std::unexpected(invalidValue(std::string(attribute) + " is longer than " + std::to_string(limit) + " bytes"));
  }
  if (hasControl(text)) return std::unexpected(invalidValue(std::string(attribute) + " holds a control character"));
  if (text.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::move(text));
}

// The address to keep of an emails array: the primary one, else the first with a value.
std::expected<std::optional<std::string>, ScimError> emailOfArray(const nlohmann::json& emails) {
  if (emails.is_null()) return std::optional<std::string>();
  if (!emails.is_array()) return std::unexpected(invalidValue("emails must be an array"));
  const nlohmann::json* chosen = nullptr;
  for (const auto& entry : emails) {
    if (!entry.is_object()) return std::unexpected(invalidValue("each of emails is an object"));
    const nlohmann::json* value = nullptr;
    bool primary = false;
    for (auto it = entry.begin(); it != entry.end(); ++it) {
      const std::string key = lower(it.key());
      if (key == "value") value = &it.value();
      if (key == "primary") primary = booleanOf(it.value()).value_or(false);
    }
    if (!value) continue;
    if (primary || !chosen) chosen = value;
    if (primary) break;
  }
  if (!chosen) return std::optional<std::string>();
  return textOf(*chosen, "emails.value", kMaxEmailBytes);
}

// Sets one attribute (a sub-attribute of name or emails) of `user` from `value`; `remove` clears.
std::expected<void, ScimError> setAttribute(UserFields& user, const PatchPath& path, const nlohmann::json& value,
                                            PatchKind kind) {
  const bool remove = kind == PatchKind::Remove;
  const std::string& attribute = path.attribute;
  const std::string& sub = path.sub_attribute;
  const auto assign = [&](std::optional<std::string>& field, std::string_view name,
                          size_t limit = kMaxTextBytes) -> std::expected<void, ScimError> {
    if (remove) {
      field.reset();
      return {};
    }
    auto text = textOf(value, name, limit);
    if (!text) return std::unexpected(text.error());
    field = std::move(*text);
    return {};
  };
  if (attribute == "username") {
    if (remove) return std::unexpected(ScimError{400, "mutability", "userName is required and cannot be removed"});
    auto text = textOf(value, "userName");
    if (!text) return std::unexpected(text.error());
    if (!*text) return std::unexpected(invalidValue("userName cannot be empty"));
    user.user_name = std::move(**text);
    return {};
  }
  if (attribute == "externalid") return assign(user.external_id, "externalId");
  if (attribute == "displayname") return assign(user.display_name, "displayName");
  if (attribute == "active") {
    if (remove) return std::unexpected(invalidValue("active cannot be removed (replace it with false)"));
    const auto active = booleanOf(value);
    if (!active) return std::unexpected(invalidValue("active must be true or false"));
    user.active = *active;
    return {};
  }
  if (attribute == "name") {
    if (sub.empty()) {
      if (remove || value.is_null()) {
        user.given_name.reset();
        user.family_name.reset();
        return {};
      }
      if (!value.is_object()) return std::unexpected(invalidValue("name must be an object"));
      for (auto it = value.begin(); it != value.end(); ++it) {
        PatchPath part{"name", std::nullopt, lower(it.key())};
        if (auto set = setAttribute(user, part, it.value(), kind); !set) return set;
      }
      return {};
    }
    if (sub == "givenname") return assign(user.given_name, "name.givenName");
    if (sub == "familyname") return assign(user.family_name, "name.familyName");
    if (sub == "formatted") return assign(user.display_name, "name.formatted");
    return {};  // middleName, honorificPrefix, …: not kept
  }
  if (attribute == "emails") {
    if (path.filter) {
      // emails[type eq "work"].value, emails[value eq "a@b"]: the one address kept stands for
      // the entry the filter names.
      if (path.filter->attribute == "value" && user.email && lower(*user.email) != lower(path.filter->value)) {
        if (remove) return std::unexpected(ScimError{400, "noTarget", "no e-mail matches the path's filter"});
      }
      if (remove) {
        user.email.reset();
        return {};
      }
      if (sub.empty() || sub == "value") {
        if (sub.empty() && value.is_object()) {
          return setAttribute(user, PatchPath{"emails", std::nullopt, ""}, nlohmann::json::array({value}), kind);
        }
        return assign(user.email, "emails.value", kMaxEmailBytes);
      }
      return {};  // type, primary, display of the entry
    }
    if (sub == "value") return assign(user.email, "emails.value", kMaxEmailBytes);
    if (!sub.empty()) return {};
    if (remove) {
      user.email.reset();
      return {};
    }
    auto email = emailOfArray(value.is_object() ? nlohmann::json::array({value}) : value);
    if (!email) return std::unexpected(email.error());
    // add appends: a kept address stays unless the new one is primary or there was none.
    if (kind == PatchKind::Add && user.email && *email) {
      bool primary = false;
      for (const auto& entry : value.is_array() ? value : nlohmann::json::array({value})) {
        if (entry.is_object()) {
          for (auto it = entry.begin(); it != entry.end(); ++it) {
            if (lower(it.key()) == "primary" && booleanOf(it.value()).value_or(false)) primary = true;
          }
        }
      }
      if (!primary) return {};
    }
    user.email = std::move(*email);
    return {};
  }
  return {};  // an attribute the gateway does not keep
}

}  // namespace

std::expected<UserFields, ScimError> userFromJson(const nlohmann::json& body) {
  if (!body.is_object()) return std::unexpected(invalidSyntax("a User is a JSON object"));
  UserFields user;
  bool named = false;
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string key = canonicalAttribute(it.key());
    if (key == "username") named = true;
    if (key == "id" || key == "schemas" || key == "meta" || key == "groups") continue;  // read-only or ours
    auto path = parsePath(it.key());
    if (!path) continue;  // a key that is no attribute name: not kept
    if (auto set = setAttribute(user, *path, it.value(), PatchKind::Replace); !set) return std::unexpected(set.error());
  }
  if (!named || user.user_name.empty()) return std::unexpected(invalidValue("userName is required"));
  return user;
}

std::expected<UserFields, ScimError> applyUserPatch(UserFields current, const std::vector<PatchOperation>& operations) {
  for (const auto& operation : operations) {
    if (!operation.path) return std::unexpected(ScimError{400, "noTarget", "an operation without a path"});
    const auto& attribute = operation.path->attribute;
    if (attribute == "id" || attribute == "meta" || attribute == "schemas" || attribute == "groups") {
      continue;  // read-only: group membership changes through /Groups
    }
    if (auto set = setAttribute(current, *operation.path, operation.value, operation.kind); !set) {
      return std::unexpected(set.error());
    }
  }
  return current;
}

nlohmann::json renderUser(const UserView& user, std::string_view base_url) {
  const UserFields& fields = user.fields;
  nlohmann::json body = {{"schemas", {kUserSchema, kSluiceUserSchema}},
                         {"id", user.id},
                         {"userName", fields.user_name},
                         {"active", fields.active}};
  if (fields.external_id) body["externalId"] = *fields.external_id;
  if (fields.display_name) body["displayName"] = *fields.display_name;
  nlohmann::json name = nlohmann::json::object();
  if (fields.display_name) name["formatted"] = *fields.display_name;
  if (fields.given_name) name["givenName"] = *fields.given_name;
  if (fields.family_name) name["familyName"] = *fields.family_name;
  if (!name.empty()) body["name"] = std::move(name);
  if (fields.email) body["emails"] = {{{"value", *fields.email}, {"type", "work"}, {"primary", true}}};
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& group : user.groups) groups.push_back({{"display", group}});
  if (!groups.empty()) body["groups"] = std::move(groups);
  body[kSluiceUserSchema] = {{"source", user.source}, {"role", user.role}};
  body["meta"] = metaOf("User", base_url, user.id, user.created, user.last_modified);
  return body;
}

}  // namespace sluice::scim
