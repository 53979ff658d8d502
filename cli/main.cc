// sluicectl: the operator's command line. Exit codes: 0 success, 1 runtime failure, 2 invalid input.

#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/audit_commands.h"
#include "cli/catalog_commands.h"
#include "cli/command_hint.h"
#include "cli/credentials_commands.h"
#include "cli/keys_commands.h"
#include "cli/migrate_command.h"
#include "cli/usage_command.h"
#include "cli/users_commands.h"
#include "server/config/catalog_loader.h"

namespace {

std::optional<std::string> given(const std::string& value) {
  return value.empty() ? std::nullopt : std::optional<std::string>(value);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sluicectl: operate a Sluice gateway"};
  app.require_subcommand(1);
  std::string services = "services";
  std::string database_url;
  bool json = false;
  app.add_option("--services", services, "catalog directory")->envname("SLUICE_SERVICES")->capture_default_str();
  app.add_option("--database-url", database_url, "PostgreSQL URL")->envname("SLUICE_DATABASE_URL");
  app.add_flag("--json", json, "print one JSON document");
  app.fallthrough();

  auto* catalog = app.add_subcommand("catalog", "validate and explain a catalog");
  catalog->require_subcommand(1);
  catalog->fallthrough();
  std::string check_dir;
  auto* check = catalog->add_subcommand("check", "validate a catalog; every problem with file:line:col");
  check->add_option("DIR", check_dir, "catalog directory (default: --services)");
  check->fallthrough();
  std::string model;
  std::string project;
  auto* explain = catalog->add_subcommand(
      "explain", "print the dispatch chain the server would use for MODEL (mcp:SERVER: an MCP server and its tool rules)");
  explain->add_option("MODEL", model, "model id, alias or retired id; or mcp:SERVER")->required();
  explain->add_option("--project", project, "the project the request is attributed to");
  sluice::cli::QuotaWho who;
  std::string explain_member;
  std::string explain_key;
  explain->add_option("--member", explain_member, "the member asking: which quota limits apply to them");
  explain->add_option("--group", who.groups, "a group of that member (repeatable)");
  explain->add_option("--key", explain_key, "the public id of the API key used");
  explain->fallthrough();

  std::string migrations_dir;
  bool status_only = false;
  auto* migrate = app.add_subcommand("migrate", "apply the pending database migrations");
  migrate->add_option("--migrations", migrations_dir, "read migrations from DIR instead of the built-in ones")
      ->envname("SLUICE_MIGRATIONS");
  migrate->add_flag("--status", status_only, "only report what is applied and what is pending");
  migrate->fallthrough();

  std::string request_id;
  auto* audit = app.add_subcommand("audit", "show everything recorded about one request");
  audit->add_option("REQUEST-ID", request_id, "the x-sluice-request-id, or a unique prefix of it")->required();
  std::string trace_url;
  audit->add_option("--trace-url", trace_url,
                    "a link to the trace, {trace_id} replaced (default: gateway.telemetry.trace_url of --services)")
      ->envname("SLUICE_TRACE_URL");
  audit->fallthrough();

  sluice::cli::RequestsListOptions list_options;
  std::string user, list_project, list_model, outcome, list_endpoint;
  bool csv = false;
  auto* requests = app.add_subcommand("requests", "query the audit trail");
  requests->require_subcommand(1);
  requests->fallthrough();
  auto* list = requests->add_subcommand("list", "requests in a time window, newest first");
  list->add_option("--since", list_options.since, "window: 30m, 1h, 7d, …")->capture_default_str();
  list->add_option("--user", user, "only this user");
  list->add_option("--project", list_project, "only this project");
  list->add_option("--model", list_model, "only this (resolved) model");
  list->add_option("--outcome", outcome, "only this outcome (ok, upstream_error, …)");
  list->add_option("--endpoint", list_endpoint,
                   "only this endpoint: chat (the three chat formats), mcp, embeddings, count_tokens, …");
  list->add_option("--limit", list_options.limit, "at most N rows")->capture_default_str();
  list->add_flag("--csv", csv, "print CSV");
  list->fallthrough();

  sluice::cli::UsageOptions usage_options;
  std::string usage_since, usage_from, usage_until, usage_format, usage_timezone;
  auto* usage = app.add_subcommand(
      "usage", "spend: requests, tokens, cost and cache savings per member, project, group, model, provider, key, "
               "route or deployment over a time range (UTC unless --timezone)");
  usage->add_option("--since", usage_since,
                    "today, yesterday, this-week, last-week, this-month, last-month, a duration (1h, 7d, 30d) or a "
                    "date (default: 30d)");
  usage->add_option("--from", usage_from, "start: 2026-12-01 (midnight in --timezone) or 2026-12-01T09:30Z (UTC)");
  usage->add_option("--until", usage_until, "end, exclusive: 2026-12-02 (default: now)");
  usage->add_option("--by", usage_options.by, "member|project|group|model|provider|key|route|deployment")
      ->capture_default_str();
  usage->add_option("--timezone", usage_timezone,
                    "the calendar of dates and named periods: an IANA name such as Europe/Paris (default: UTC)");
  usage->add_option("--top", usage_options.top, "only the N costliest rows (the total still counts all)");
  usage->add_option("--format", usage_format, "table|csv|json")->check(CLI::IsMember({"table", "csv", "json"}));
  usage->add_flag("--csv", csv, "print CSV (same as --format csv)");
  usage->fallthrough();

  sluice::cli::UsersAddOptions user_add;
  std::string primary_project;
  auto* users = app.add_subcommand("users", "the members who may call the gateway");
  users->require_subcommand(1);
  users->fallthrough();
  auto* users_add = users->add_subcommand("add", "add a member");
  users_add->add_option("NAME", user_add.name, "the member's name (what rules.yaml's person band names)")->required();
  users_add->add_option("--role", user_add.role, "member or admin")->required();
  users_add->add_option("--group", user_add.groups, "a group (repeat for more)");
  users_add->add_option("--project", user_add.projects, "a project the member belongs to (repeat for more)");
  users_add->add_option("--primary-project", primary_project, "the project requests default to (one of --project)");
  users_add->add_option("--cert-subject", user_add.cert_subjects,
                        "a TLS client certificate name that identifies the member: cn:NAME (subject common name), "
                        "uri:URI or email:ADDRESS (subjectAltName); email: also matches a trusted proxy's e-mail "
                        "header (repeat for more)");
  users_add->fallthrough();
  auto* users_list = users->add_subcommand("list", "list the members");
  users_list->fallthrough();
  std::string disable_name;
  auto* users_disable = users->add_subcommand("disable", "disable a member: every key of theirs stops working");
  users_disable->add_option("NAME", disable_name, "the member")->required();
  bool users_force = false;
  users_disable->add_flag("--force", users_force, "disable a member made by SCIM provisioning anyway");
  users_disable->fallthrough();
  std::string enable_name, delete_name, history_name;
  auto* users_enable = users->add_subcommand("enable", "enable a disabled member: their unrevoked keys work again");
  users_enable->add_option("NAME", enable_name, "the member")->required();
  users_enable->add_flag("--force", users_force, "enable a member made by SCIM provisioning anyway");
  users_enable->fallthrough();
  sluice::cli::UsersUpdateOptions user_update;
  std::string update_role;
  auto* users_update = users->add_subcommand("update", "change a member's role, groups, projects or primary project");
  users_update->add_option("NAME", user_update.name, "the member")->required();
  users_update->add_option("--role", update_role, "member or admin");
  users_update->add_option("--group", user_update.groups, "the member's groups from now on (repeat for more)");
  users_update->add_flag("--no-groups", user_update.no_groups, "take away every group");
  users_update->add_option("--project", user_update.projects, "the member's projects from now on (repeat for more)");
  users_update->add_flag("--no-projects", user_update.no_projects, "take away every project");
  users_update->add_option("--primary-project", user_update.primary_project,
                           "the project requests default to (\"\" for none)");
  users_update->add_flag("--force", user_update.force, "change a member made by SCIM provisioning anyway");
  users_update->fallthrough();
  auto* users_delete = users->add_subcommand(
      "delete", "delete a member who never had a key nor made a request (anyone else: disable them)");
  users_delete->add_option("NAME", delete_name, "the member")->required();
  users_delete->add_flag("--force", users_force, "delete a member made by SCIM provisioning anyway");
  users_delete->fallthrough();
  size_t history_limit = 50;
  auto* users_history = users->add_subcommand("history", "who changed which member or key, and when, newest first");
  users_history->add_option("NAME", history_name, "only changes to this member");
  users_history->add_option("--limit", history_limit, "at most N changes")->capture_default_str();
  users_history->fallthrough();
  std::string subject_name, subject_text;
  auto* users_subject = users->add_subcommand("cert-subject", "the certificate subjects that identify a member");
  users_subject->require_subcommand(1);
  users_subject->fallthrough();
  auto* users_subject_add = users_subject->add_subcommand("add", "add one: NAME SUBJECT (cn:…, uri:…, email:…)");
  users_subject_add->add_option("NAME", subject_name, "the member")->required();
  users_subject_add->add_option("SUBJECT", subject_text, "cn:NAME, uri:URI or email:ADDRESS")->required();
  users_subject_add->fallthrough();
  auto* users_subject_remove = users_subject->add_subcommand("remove", "remove one: NAME SUBJECT");
  users_subject_remove->add_option("NAME", subject_name, "the member")->required();
  users_subject_remove->add_option("SUBJECT", subject_text, "as it was added")->required();
  users_subject_remove->fallthrough();

  sluice::cli::KeysCreateOptions key_create;
  std::string key_project, key_expires, key_name;
  auto* keys = app.add_subcommand("keys", "members' API keys");
  keys->require_subcommand(1);
  keys->fallthrough();
  auto* keys_create = keys->add_subcommand("create", "create an API key; it is printed once, on the last line");
  keys_create->add_option("NAME", key_create.user, "the member the key belongs to")->required();
  keys_create->add_option("--project", key_project, "attribute every request with this key to this project");
  keys_create->add_option("--expires", key_expires, "lifetime: 90d, 12h, 2w, … (default: never)");
  keys_create->add_option("--name", key_name, "a label for listings: laptop, ci, …");
  keys_create->fallthrough();
  std::string keys_user;
  auto* keys_list = keys->add_subcommand("list", "list API keys (prefixes only)");
  keys_list->add_option("NAME", keys_user, "only this member's keys");
  keys_list->fallthrough();
  std::string revoke_key;
  auto* keys_revoke = keys->add_subcommand("revoke", "revoke an API key: it stops working within 5 seconds");
  keys_revoke->add_option("KEY-ID", revoke_key, "the key id or its prefix sk-sluice-<id>")->required();
  keys_revoke->fallthrough();

  std::string credential_id, credential_user, credentials_user, old_key_file;
  auto* credentials = app.add_subcommand("credentials", "members' personal provider keys (encrypted at rest)");
  credentials->require_subcommand(1);
  credentials->fallthrough();
  auto* credentials_set = credentials->add_subcommand("set", "store a member's key for a personal credential, read from stdin");
  credentials_set->add_option("CREDENTIAL", credential_id, "a kind: personal credential of credentials.yaml")->required();
  credentials_set->add_option("--user", credential_user, "the member")->required();
  credentials_set->fallthrough();
  auto* credentials_list = credentials->add_subcommand("list", "which personal credentials are set (never the values)");
  credentials_list->add_option("--user", credentials_user, "only this member's");
  credentials_list->fallthrough();
  auto* rotate_master = credentials->add_subcommand(
      "rotate-master", "re-encrypt every personal credential from the old master key to SLUICE_MASTER_KEY");
  rotate_master->add_option("--old-key-file", old_key_file,
                            "file holding the old master key (default: SLUICE_MASTER_KEY_OLD or SLUICE_MASTER_KEY_OLD_FILE)");
  rotate_master->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // A misspelt or missing command is named with the nearest ones instead of CLI11's
    // "A subcommand is required"; --help and every other parse error are CLI11's own.
    if (error.get_exit_code() != static_cast<int>(CLI::ExitCodes::Success)) {
      if (auto hint = sluice::cli::commandHint(app, std::vector<std::string>(argv + 1, argv + argc))) {
        std::cerr << "sluicectl: " << *hint << "\nRun 'sluicectl --help' for more.\n";
        return 2;
      }
    }
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  if (json && csv) {
    std::cerr << "sluicectl: --json and --csv exclude each other\n";
    return 2;
  }
  const auto format = json ? sluice::cli::OutputFormat::Json
                           : (csv ? sluice::cli::OutputFormat::Csv : sluice::cli::OutputFormat::Text);
  const auto now = std::chrono::system_clock::now();
  if (*check) return sluice::cli::catalogCheck(check_dir.empty() ? services : check_dir, json, std::cout, std::cerr);
  if (*explain) {
    who.project = given(project);
    who.member = given(explain_member);
    who.key = given(explain_key);
    return sluice::cli::catalogExplain(services, model, who, json, std::cout, std::cerr);
  }
  if (*migrate) return sluice::cli::migrate(database_url, migrations_dir, status_only, json, std::cout, std::cerr);
  if (*audit) {
    if (trace_url.empty()) trace_url = sluice::cli::catalogTraceUrl(services);
    return sluice::cli::auditShow(database_url, request_id, trace_url, json, std::cout, std::cerr);
  }
  if (*list) {
    list_options.user = given(user);
    list_options.project = given(list_project);
    list_options.model = given(list_model);
    list_options.outcome = given(outcome);
    list_options.endpoint = given(list_endpoint);
    return sluice::cli::requestsList(database_url, list_options, format, now, std::cout, std::cerr);
  }
  if (*usage) {
    if (!usage_format.empty() && (json || csv)) {
      std::cerr << "sluicectl: --format and --json/--csv exclude each other\n";
      return 2;
    }
    usage_options.since = given(usage_since);
    usage_options.from = given(usage_from);
    usage_options.until = given(usage_until);
    usage_options.timezone = given(usage_timezone);
    const auto usage_output = usage_format == "json"    ? sluice::cli::OutputFormat::Json
                              : usage_format == "csv"   ? sluice::cli::OutputFormat::Csv
                              : usage_format == "table" ? sluice::cli::OutputFormat::Text
                                                        : format;
    return sluice::cli::usageReport(database_url, usage_options, usage_output, now, std::cout, std::cerr);
  }
  if (*users_add) {
    user_add.primary_project = given(primary_project);
    return sluice::cli::usersAdd(database_url, user_add, json, now, std::cout, std::cerr);
  }
  if (*users_list) return sluice::cli::usersList(database_url, json, std::cout, std::cerr);
  if (*users_disable) {
    return sluice::cli::usersSetDisabled(database_url, disable_name, true, users_force, json, now, std::cout, std::cerr);
  }
  if (*users_enable) {
    return sluice::cli::usersSetDisabled(database_url, enable_name, false, users_force, json, now, std::cout, std::cerr);
  }
  if (*users_update) {
    if (!update_role.empty()) user_update.role = update_role;
    return sluice::cli::usersUpdate(database_url, user_update, json, now, std::cout, std::cerr);
  }
  if (*users_delete) {
    return sluice::cli::usersDelete(database_url, delete_name, users_force, json, now, std::cout, std::cerr);
  }
  if (*users_history) {
    return sluice::cli::usersHistory(database_url, given(history_name), history_limit, json, std::cout, std::cerr);
  }
  if (*users_subject_add || *users_subject_remove) {
    return sluice::cli::usersCertSubject(database_url, subject_name, subject_text, users_subject_add->parsed(), json, now,
                                         std::cout, std::cerr);
  }
  if (*keys_create) {
    key_create.project = given(key_project);
    key_create.expires = given(key_expires);
    key_create.name = given(key_name);
    return sluice::cli::keysCreate(database_url, key_create, json, now, std::cout, std::cerr);
  }
  if (*keys_list) return sluice::cli::keysList(database_url, given(keys_user), json, now, std::cout, std::cerr);
  if (*keys_revoke) return sluice::cli::keysRevoke(database_url, revoke_key, json, now, std::cout, std::cerr);
  if (*credentials_set) {
    return sluice::cli::credentialsSet(database_url, services, credential_id, credential_user, std::cin,
                                       sluice::config::processEnvironment(), json, now, std::cout, std::cerr);
  }
  if (*credentials_list) {
    return sluice::cli::credentialsList(database_url, given(credentials_user), json, std::cout, std::cerr);
  }
  if (*rotate_master) {
    return sluice::cli::credentialsRotateMaster(database_url, given(old_key_file), sluice::config::processEnvironment(),
                                                json, now, std::cout, std::cerr);
  }
  return 2;
}
