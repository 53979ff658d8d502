#include "cli/keys_commands.h"

#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/database_session.h"
#include "cli/duration.h"
#include "cli/identity_time.h"
#include "cli/table.h"
#include "server/identity/key_store.h"
#include "server/store/pg_key_registry.h"
#include "server/store/pg_member_roster.h"

namespace sluice::cli {

namespace {

nlohmann::json optionalText(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json keyJson(const identity::ApiKeyInfo& key, std::chrono::system_clock::time_point now) {
  return {{"id", key.id},
          {"prefix", key.prefix},
          {"user", key.user},
          {"project", optionalText(key.project)},
          {"name", optionalText(key.name)},
          {"created_at", jsonTime(key.created_at)},
          {"expires_at", jsonTime(key.expires_at)},
          {"revoked_at", jsonTime(key.revoked_at)},
          {"last_used_at", jsonTime(key.last_used_at)},
          {"status", key.status(now)}};
}

}  // namespace

int keysCreate(const std::string& database_url, const KeysCreateOptions& options, bool json,
               std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  identity::NewApiKey request;
  request.user = options.user;
  request.project = options.project;
  request.name = options.name;
  if (options.expires) {
    const auto duration = parseDuration(*options.expires);
    if (!duration) {
      err << "sluicectl: --expires: " << duration.error() << "\n";
      return 2;
    }
    request.expires_at = now + *duration;
  }
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgMemberRoster members(pool);
    store::PgKeyRegistry keys(pool);
    const auto created = identity::createApiKey(members, keys, request, now);
    if (!created) {
      err << "sluicectl: " << created.error().message << "\n";
      return created.error().kind == identity::KeyErrorKind::Invalid ? 2 : 1;
    }
    const identity::ApiKeyInfo& key = created->info;
    if (json) {
      nlohmann::json document = keyJson(key, now);
      document["key"] = created->key;
      out << document.dump(2) << "\n";
      return 0;
    }
    out << "created API key " << key.prefix << " for " << key.user << " ("
        << (key.project ? "project " + *key.project : std::string("not bound to a project")) << "; expires "
        << readableUtc(key.expires_at, "never") << (key.name ? "; name " + *key.name : "") << ")\n";
    out << "This is the only time the key is shown. Send it as `Authorization: Bearer <key>` or `x-api-key: <key>`:\n";
    out << created->key << "\n";
    return 0;
  });
}

int keysList(const std::string& database_url, const std::optional<std::string>& user, bool json,
             std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgKeyRegistry registry(pool);
    const auto keys = identity::listApiKeys(registry, user);
    if (json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& key : keys) list.push_back(keyJson(key, now));
      out << list.dump(2) << "\n";
      return 0;
    }
    Table table({"PREFIX", "USER", "PROJECT", "NAME", "CREATED", "EXPIRES", "LAST USED", "STATUS"});
    for (const auto& key : keys) {
      table.addRow({key.prefix, key.user, key.project.value_or("-"), key.name.value_or("-"), readableUtc(key.created_at),
                    readableUtc(key.expires_at, "never"), readableUtc(key.last_used_at, "-"),
                    std::string(key.status(now))});
    }
    table.print(out);
    out << keys.size() << (keys.size() == 1 ? " key\n" : " keys\n");
    return 0;
  });
}

int keysRevoke(const std::string& database_url, const std::string& key, bool json,
               std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  const auto id = identity::keyIdFrom(key);
  if (!id) {
    // Not echoed: it may be a secret pasted by mistake.
    err << "sluicectl: keys revoke takes a key id (8 letters and digits), its prefix sk-sluice-<id>, or the key\n";
    return 2;
  }
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgKeyRegistry keys(pool);
    identity::ApiKeyInfo info;
    const auto result = identity::revokeApiKey(keys, *id, now, &info);
    if (result == identity::RevokeResult::NoSuchKey) {
      err << "sluicectl: no API key " << identity::visiblePrefix(*id) << "\n";
      return 1;
    }
    const bool changed = result == identity::RevokeResult::Revoked;
    if (json) {
      nlohmann::json document = keyJson(info, now);
      document["changed"] = changed;
      out << document.dump(2) << "\n";
    } else if (changed) {
      out << "revoked " << info.prefix << " of " << info.user << ": it stops working within 5 seconds\n";
    } else {
      out << info.prefix << " was already revoked (" << readableUtc(*info.revoked_at) << ")\n";
    }
    return 0;
  });
}

}  // namespace sluice::cli
