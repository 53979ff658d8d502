// The Members page: who may call, their keys (prefixes only), which personal credentials they have
// stored (never values), and quota usage against each window's ceiling.
#include <algorithm>
#include <chrono>
#include <map>

#include "server/admin/api.h"
#include "server/admin/json_time.h"
#include "server/identity/credential_store.h"
#include "server/identity/key_store.h"
#include "server/identity/member_store.h"
#include "server/identity/quota.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

json optionalTime(const std::optional<std::chrono::system_clock::time_point>& time) {
  return time ? json(isoTime(*time)) : json(nullptr);
}

json ceilingsOf(const catalog::QuotaLimits& limits) {
  json ceilings = json::object();
  if (limits.max_requests) ceilings["requests"] = *limits.max_requests;
  if (limits.max_input_tokens) ceilings["input_tokens"] = *limits.max_input_tokens;
  if (limits.max_output_tokens) ceilings["output_tokens"] = *limits.max_output_tokens;
  if (limits.max_cost_microdollars) ceilings["cost_microdollars"] = *limits.max_cost_microdollars;
  return ceilings;
}

// Each window's counter this member spends from (their own, their primary project's, each of their
// groups', the organisation's; key windows depend on the key and are left to the counters table),
// with the limit that applies to it and why (identity::limitsFor), and what it has counted so far.
json memberLimits(const catalog::Catalog& catalog, const identity::Member& member, const json& counters) {
  identity::QuotaSubject subject;
  subject.user = member.name;
  subject.groups = member.groups;
  subject.project = member.primary_project;
  json limits = json::array();
  for (const auto& window : catalog.quotas.windows) {
    std::vector<std::string> values;
    switch (window.per) {
      case catalog::QuotaScope::User: values.push_back(member.name); break;
      case catalog::QuotaScope::Project: if (member.primary_project) values.push_back(*member.primary_project); break;
      case catalog::QuotaScope::Group: values = member.groups; break;
      case catalog::QuotaScope::Organisation: values.emplace_back(identity::kOrganisationScope); break;
      case catalog::QuotaScope::ApiKey: break;
    }
    const std::string kind(catalog::toString(window.per));
    for (const std::string& value : values) {
      const identity::AppliedLimits applied = identity::limitsFor(window, kind, value, subject);
      json entry = {{"window_id", window.id}, {"scope_kind", kind}, {"scope_value", value},
                    {"ceilings", ceilingsOf(applied.limits)}, {"limit_source", applied.source},
                    {"unlimited", applied.limits.unlimited()}, {"requests", 0}, {"input_tokens", 0},
                    {"output_tokens", 0}, {"cost_microdollars", 0}, {"window_end", nullptr}};
      for (const auto& counter : counters) {
        if (counter["window_id"] != window.id || counter["scope_kind"] != kind || counter["scope_value"] != value) continue;
        for (const char* measure : {"requests", "input_tokens", "output_tokens", "cost_microdollars", "window_end"}) {
          entry[measure] = counter[measure];
        }
      }
      limits.push_back(std::move(entry));
    }
  }
  return limits;
}

}  // namespace

nlohmann::json membersJson(ConsoleContext& context, const std::optional<std::string>& only) {
  const auto catalog = context.gateway.catalog();
  const auto now = std::chrono::system_clock::now();
  std::vector<std::string> personal;
  for (const auto& credential : catalog->credentials) {
    if (credential.kind == catalog::CredentialKind::Personal) personal.push_back(credential.id);
  }
  std::vector<identity::Member> all;
  if (only) {
    if (auto member = identity::findMember(*context.members, *only)) all.push_back(std::move(*member));
  } else {
    all = identity::listMembers(*context.members);
  }
  const auto keys = identity::listApiKeys(*context.key_registry, only);
  const auto stored = identity::listPersonalCredentials(*context.credentials, only);
  // A member's own view counts only what they spend from: their own counters, their primary
  // project's, their groups' and the organisation's (never another member's or key's).
  const auto theirs = [&](const store::CounterRow& row) {
    if (!only) return true;
    if (all.empty()) return false;
    const identity::Member& member = all.front();
    const std::string& kind = row.key.scope_kind;
    const std::string& value = row.key.scope_value;
    if (kind == "user") return value == member.name;
    if (kind == "project") return member.primary_project && value == *member.primary_project;
    if (kind == "group") return std::find(member.groups.begin(), member.groups.end(), value) != member.groups.end();
    if (kind == "organisation") return true;
    if (kind == "api_key") {
      return std::any_of(keys.begin(), keys.end(), [&](const auto& key) { return key.id == value; });
    }
    return false;
  };
  json counters = json::array();
  for (const store::CounterRow& row : context.quota_counters->live(now)) {
    if (!theirs(row)) continue;
    json counter = {{"scope_kind", row.key.scope_kind},
                    {"scope_value", row.key.scope_value},
                    {"window_id", row.key.window_id},
                    {"window_start", isoTime(row.key.window_start)},
                    {"window_end", isoTime(row.key.window_end)},
                    {"requests", row.totals.requests},
                    {"input_tokens", row.totals.input_tokens},
                    {"output_tokens", row.totals.output_tokens},
                    {"cost_microdollars", row.totals.cost_microdollars}};
    for (const auto& window : catalog->quotas.windows) {
      if (window.id != row.key.window_id) continue;
      // A project's, group's or key's counter has one limit whoever calls; a member's may depend
      // on their groups, which memberLimits() below knows.
      identity::QuotaSubject subject;
      if (row.key.scope_kind == "user") subject.user = row.key.scope_value;
      const identity::AppliedLimits applied = identity::limitsFor(window, row.key.scope_kind, row.key.scope_value, subject);
      counter["ceilings"] = ceilingsOf(applied.limits);
      counter["limit_source"] = applied.source;
    }
    counters.push_back(counter);
  }
  json out = json::array();
  for (const auto& member : all) {
    json member_keys = json::array();
    for (const auto& key : keys) {
      if (key.user != member.name) continue;
      member_keys.push_back({{"id", key.id},
                             {"prefix", key.prefix},
                             {"name", key.name ? *key.name : ""},
                             {"project", key.project ? *key.project : ""},
                             {"status", std::string(key.status(now))},
                             {"created_at", isoTime(key.created_at)},
                             {"expires_at", optionalTime(key.expires_at)},
                             {"last_used_at", optionalTime(key.last_used_at)}});
    }
    json credentials = json::array();
    for (const auto& id : personal) {
      json entry = {{"credential", id}, {"set", false}, {"updated_at", nullptr}};
      for (const auto& info : stored) {
        if (info.user == member.name && info.credential_id == id) {
          entry["set"] = true;
          entry["updated_at"] = isoTime(info.updated_at);
        }
      }
      credentials.push_back(entry);
    }
    json quota = json::array();
    for (const auto& counter : counters) {
      if (counter["scope_kind"] == "user" && counter["scope_value"] == member.name) quota.push_back(counter);
    }
    out.push_back({{"name", member.name},
                   {"role", std::string(identity::toString(member.role))},
                   {"groups", member.groups},
                   {"projects", member.projects},
                   {"primary_project", member.primary_project ? *member.primary_project : ""},
                   {"disabled", member.disabled()},
                   {"source", member.source},
                   {"created_at", isoTime(member.created_at)},
                   {"keys", member_keys},
                   {"personal_credentials", credentials},
                   {"quota", quota},
                   {"limits", memberLimits(*catalog, member, counters)}});
  }
  json windows = json::array();
  for (const auto& window : catalog->quotas.windows) {
    windows.push_back({{"id", window.id}, {"per", std::string(catalog::toString(window.per))},
                       {"seconds", window.seconds}});
  }
  return {{"members", out},
          {"quota_mode", catalog->quotas.mode == catalog::QuotaMode::Enforce ? "enforce" : "warn"},
          {"quota_windows", windows},
          {"quota_counters", counters}};
}

Reply members(ConsoleContext& context, const Exchange&) {
  if (!context.members) return Reply::error(503, "no_database", "this gateway has no database");
  return Reply::json(membersJson(context, std::nullopt));
}

}  // namespace sluice::admin
