#pragma once
// The parts every SCIM resource shares: its schema URNs and its meta block (RFC 7643 §3.1). Pure.

#include <chrono>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sluice::scim {

using TimePoint = std::chrono::system_clock::time_point;

inline constexpr const char* kUserSchema = "urn:ietf:params:scim:schemas:core:2.0:User";
inline constexpr const char* kGroupSchema = "urn:ietf:params:scim:schemas:core:2.0:Group";
// The gateway's own read-only view of a member: where it was made and its role.
inline constexpr const char* kSluiceUserSchema = "urn:ietf:params:scim:schemas:extension:sluice:2.0:User";
inline constexpr const char* kListSchema = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

// RFC 3339 UTC with seconds: "2026-11-29T22:35:48Z".
std::string isoTime(TimePoint time);

// {"resourceType", "created", "lastModified", "location": base_url + "/" + resource + "s/" + id}.
// `base_url` is the SCIM root as the client reached it ("https://gw.example.com/scim/v2").
nlohmann::json metaOf(std::string_view resource_type, std::string_view base_url, std::string_view id,
                      TimePoint created, TimePoint last_modified);

// True when `text` holds a byte below 0x20 or 0x7f (a control character).
bool hasControl(std::string_view text);

}  // namespace sluice::scim
