// sluicectl: the operator's command line. Exit codes: 0 success, 1 runtime failure, 2 invalid input.

#include <chrono>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/audit_commands.h"
#include "cli/catalog_commands.h"
#include "cli/migrate_command.h"

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
  auto* explain = catalog->add_subcommand("explain", "print the dispatch chain the server would use for MODEL");
  explain->add_option("MODEL", model, "model id, alias or retired id")->required();
  explain->add_option("--project", project, "the project the request is attributed to");
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
  audit->fallthrough();

  sluice::cli::RequestsListOptions list_options;
  std::string user, list_project, list_model, outcome;
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
  list->add_option("--limit", list_options.limit, "at most N rows")->capture_default_str();
  list->add_flag("--csv", csv, "print CSV");
  list->fallthrough();

  std::string usage_since = "30d";
  std::string by = "user";
  auto* usage = app.add_subcommand("usage", "requests, tokens and cost per user, project, model or provider");
  usage->add_option("--since", usage_since, "window: 1h, 7d, 30d, …")->capture_default_str();
  usage->add_option("--by", by, "user|project|model|provider")->capture_default_str();
  usage->add_flag("--csv", csv, "print CSV");
  usage->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
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
    return sluice::cli::catalogExplain(services, model, given(project), json, std::cout, std::cerr);
  }
  if (*migrate) return sluice::cli::migrate(database_url, migrations_dir, status_only, json, std::cout, std::cerr);
  if (*audit) return sluice::cli::auditShow(database_url, request_id, json, std::cout, std::cerr);
  if (*list) {
    list_options.user = given(user);
    list_options.project = given(list_project);
    list_options.model = given(list_model);
    list_options.outcome = given(outcome);
    return sluice::cli::requestsList(database_url, list_options, format, now, std::cout, std::cerr);
  }
  if (*usage) return sluice::cli::usageReport(database_url, usage_since, by, format, now, std::cout, std::cerr);
  return 2;
}
