#include "server/scim/discovery.h"

#include <string>

#include "server/scim/bounds.h"
#include "server/scim/listing.h"
#include "server/scim/meta.h"

namespace sluice::scim {

namespace {

nlohmann::json attribute(const char* name, const char* type, bool required, const char* mutability,
                         const char* uniqueness = "none", bool multi = false) {
  return {{"name", name},         {"type", type},     {"multiValued", multi},
          {"required", required}, {"caseExact", false}, {"mutability", mutability},
          {"returned", "default"}, {"uniqueness", uniqueness}};
}

nlohmann::json withMeta(nlohmann::json body, std::string_view base_url, const std::string& kind, const std::string& id) {
  body["meta"] = {{"resourceType", kind}, {"location", std::string(base_url) + "/" + kind + "s/" + id}};
  return body;
}

}  // namespace

nlohmann::json serviceProviderConfig(std::string_view base_url) {
  return {{"schemas", {"urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"}},
          {"patch", {{"supported", true}}},
          {"bulk", {{"supported", false}, {"maxOperations", 0}, {"maxPayloadSize", 0}}},
          {"filter", {{"supported", true}, {"maxResults", kMaxPageSize}}},
          {"changePassword", {{"supported", false}}},
          {"sort", {{"supported", false}}},
          {"etag", {{"supported", false}}},
          {"authenticationSchemes",
           {{{"type", "oauthbearertoken"},
             {"name", "Bearer token"},
             {"description", "Authorization: Bearer <the token in the gateway's --scim-token-file>"},
             {"primary", true}}}},
          {"meta", {{"resourceType", "ServiceProviderConfig"}, {"location", std::string(base_url) + "/ServiceProviderConfig"}}}};
}

nlohmann::json resourceTypes(std::string_view base_url) {
  nlohmann::json user = {{"schemas", {"urn:ietf:params:scim:schemas:core:2.0:ResourceType"}},
                         {"id", "User"},
                         {"name", "User"},
                         {"endpoint", "/Users"},
                         {"description", "A member of the gateway"},
                         {"schema", kUserSchema},
                         {"schemaExtensions", {{{"schema", kSluiceUserSchema}, {"required", false}}}}};
  nlohmann::json group = {{"schemas", {"urn:ietf:params:scim:schemas:core:2.0:ResourceType"}},
                          {"id", "Group"},
                          {"name", "Group"},
                          {"endpoint", "/Groups"},
                          {"description", "A group the access rules name"},
                          {"schema", kGroupSchema}};
  nlohmann::json list = nlohmann::json::array(
      {withMeta(std::move(user), base_url, "ResourceType", "User"), withMeta(std::move(group), base_url, "ResourceType", "Group")});
  return listResponse(std::move(list), 2, 1);
}

nlohmann::json schemas(std::string_view base_url) {
  nlohmann::json name = attribute("name", "complex", false, "readWrite");
  name["subAttributes"] = {attribute("formatted", "string", false, "readWrite"),
                           attribute("givenName", "string", false, "readWrite"),
                           attribute("familyName", "string", false, "readWrite")};
  nlohmann::json emails = attribute("emails", "complex", false, "readWrite", "none", true);
  emails["subAttributes"] = {attribute("value", "string", false, "readWrite"),
                             attribute("type", "string", false, "readWrite"),
                             attribute("primary", "boolean", false, "readWrite")};
  nlohmann::json user_name = attribute("userName", "string", true, "readWrite", "server");
  nlohmann::json user = {{"schemas", {"urn:ietf:params:scim:schemas:core:2.0:Schema"}},
                         {"id", kUserSchema},
                         {"name", "User"},
                         {"description", "A member: userName is the member's name"},
                         {"attributes",
                          {user_name, attribute("externalId", "string", false, "readWrite"),
                           attribute("displayName", "string", false, "readWrite"), name, emails,
                           attribute("active", "boolean", false, "readWrite")}}};
  nlohmann::json members = attribute("members", "complex", false, "readWrite", "none", true);
  members["subAttributes"] = {attribute("value", "string", false, "immutable"),
                              attribute("display", "string", false, "readOnly")};
  nlohmann::json group = {{"schemas", {"urn:ietf:params:scim:schemas:core:2.0:Schema"}},
                          {"id", kGroupSchema},
                          {"name", "Group"},
                          {"description", "A group: displayName is the name the access rules match"},
                          {"attributes",
                           {attribute("displayName", "string", true, "readWrite", "server"),
                            attribute("externalId", "string", false, "readWrite"), members}}};
  nlohmann::json extension = {{"schemas", {"urn:ietf:params:scim:schemas:core:2.0:Schema"}},
                              {"id", kSluiceUserSchema},
                              {"name", "SluiceUser"},
                              {"description", "Where the gateway's member was made, and its role"},
                              {"attributes",
                               {attribute("source", "string", false, "readOnly"),
                                attribute("role", "string", false, "readOnly")}}};
  nlohmann::json list = nlohmann::json::array({withMeta(std::move(user), base_url, "Schema", kUserSchema),
                                               withMeta(std::move(group), base_url, "Schema", kGroupSchema),
                                               withMeta(std::move(extension), base_url, "Schema", kSluiceUserSchema)});
  return listResponse(std::move(list), 3, 1);
}

}  // namespace sluice::scim
