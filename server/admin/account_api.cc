// A member's own account in the console, for every signed-in member (admins included): their
// requests' standing against their quotas, their API keys (created with a name, an expiry and a
// project of their own, shown once; revoked), and their personal provider credentials (set or
// replaced, never shown). Every change is made as the signed-in member for the signed-in member:
// a body naming another member is refused, never obeyed.
#include <algorithm>
#include <chrono>

#include "server/admin/api.h"
#include "server/identity/api_keys.h"
#include "server/identity/credential_store.h"
#include "server/identity/key_store.h"
#include "server/identity/member_store.h"
#include "server/wire/json_access.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

constexpr size_t kMaxSecretBytes = 8192;

std::expected<wire::Json, Reply> objectOf(const Exchange& exchange) {
  auto parsed = wire::parseRequestObject(exchange.body);
  if (!parsed) return std::unexpected(Reply::error(parsed.error().status, parsed.error().key, parsed.error().message));
  return std::move(*parsed);
}

Reply invalid(const std::string& message) { return Reply::error(400, "invalid_request", message); }

// A body that names a member must name the signed-in one.
std::optional<Reply> notYours(const wire::Json& object, const Exchange& exchange) {
  const wire::Json* user = wire::member(object, "user");
  if (user && (!user->is_string() || user->get<std::string>() != exchange.user)) {
    return Reply::error(403, "not_your_account", "a member changes only their own keys and credentials");
  }
  return std::nullopt;
}

}  // namespace

Reply account(ConsoleContext& context, const Exchange& exchange) {
  if (!context.members) return Reply::error(503, "no_database", "this gateway has no database");
  json body = membersJson(context, exchange.user);
  json out = body["members"].empty() ? json(nullptr) : body["members"][0];
  if (out.is_null()) return Reply::error(404, "member_not_found", "no member " + exchange.user);
  out["quota_mode"] = body["quota_mode"];
  out["quota_windows"] = body["quota_windows"];
  out["personal_credentials_available"] = context.vault != nullptr;
  return Reply::json(out);
}

Reply accountKeyCreate(ConsoleContext& context, const Exchange& exchange) {
  if (!context.members) return Reply::error(503, "no_database", "this gateway has no database");
  auto object = objectOf(exchange);
  if (!object) return object.error();
  if (auto refused = notYours(*object, exchange)) return *refused;
  const auto member = identity::findMember(*context.members, exchange.user);
  if (!member) return Reply::error(404, "member_not_found", "no member " + exchange.user);
  if (const wire::Json* project = wire::member(*object, "project"); project && project->is_string() &&
                                                                       !project->get<std::string>().empty()) {
    const std::string name = project->get<std::string>();
    if (std::find(member->projects.begin(), member->projects.end(), name) == member->projects.end()) {
      return Reply::error(403, "not_your_project",
                          identity::validName(name) ? "you are not a member of project '" + name + "'"
                                                    : std::string("\"project\" is not one of your projects"));
    }
  }
  (*object)["user"] = exchange.user;
  Exchange own = exchange;
  own.body = object->dump();
  return keyCreate(context, own);
}

Reply accountKeyRevoke(ConsoleContext& context, const Exchange& exchange) {
  if (!context.keys) return Reply::error(503, "no_database", "this gateway has no database");
  auto object = objectOf(exchange);
  if (!object) return object.error();
  const wire::Json* text = wire::member(*object, "id");
  const auto id = text && text->is_string() ? identity::keyIdFrom(text->get<std::string>()) : std::nullopt;
  // Never echoed: it may be a whole key pasted by mistake.
  if (!id) return invalid("\"id\" must be a key id (8 letters and digits) or its prefix sk-sluice-<id>");
  const auto row = context.keys->findKeyById(*id);
  // Another member's key is answered as if it did not exist.
  if (!row || row->key.user != exchange.user) {
    return Reply::error(404, "key_not_found", "no API key " + identity::visiblePrefix(*id) + " of yours");
  }
  return keyRevoke(context, exchange);
}

Reply accountCredentialSet(ConsoleContext& context, const Exchange& exchange) {
  if (!context.credentials) return Reply::error(503, "no_database", "this gateway has no database");
  if (!context.vault) {
    return Reply::error(503, "no_master_key", "personal credentials need SLUICE_MASTER_KEY on this gateway; ask the platform team");
  }
  auto object = objectOf(exchange);
  if (!object) return object.error();
  if (auto refused = notYours(*object, exchange)) return *refused;
  const wire::Json* credential = wire::member(*object, "credential");
  const wire::Json* secret = wire::member(*object, "secret");
  if (!credential || !credential->is_string()) return invalid("\"credential\" must name a personal credential");
  if (!secret || !secret->is_string()) return invalid("\"secret\" must be a string");
  const std::string id = credential->get<std::string>();
  const auto catalog = context.gateway.catalog();
  const auto declared = std::find_if(catalog->credentials.begin(), catalog->credentials.end(), [&](const auto& c) {
    return c.id == id && c.kind == catalog::CredentialKind::Personal;
  });
  if (declared == catalog->credentials.end()) {
    return Reply::error(404, "no_such_credential",
                        identity::validName(id) ? "no personal credential '" + id + "' in credentials.yaml"
                                                : std::string("no such personal credential in credentials.yaml"));
  }
  std::string value = secret->get<std::string>();
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r' || value.back() == ' ')) value.pop_back();
  if (value.empty() || value.size() > kMaxSecretBytes) return invalid("\"secret\" must be 1 to 8192 bytes");
  if (std::any_of(value.begin(), value.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    return invalid("\"secret\" holds control characters");
  }
  const auto result = identity::setPersonalCredential(*context.credentials, *context.vault, exchange.user, id, value,
                                                      std::chrono::system_clock::now());
  std::fill(value.begin(), value.end(), '\0');
  if (result == identity::SetCredentialResult::NoSuchMember) return Reply::error(404, "member_not_found", "no member " + exchange.user);
  return Reply::json({{"credential", id}, {"set", true}, {"replaced", result == identity::SetCredentialResult::Replaced}});
}

}  // namespace sluice::admin
