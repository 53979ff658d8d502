// sluicectl: the operator's command line. Exit codes: 0 success, 1 runtime failure, 2 invalid input.

#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/catalog_commands.h"

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  if (*check) return sluice::cli::catalogCheck(check_dir.empty() ? services : check_dir, json, std::cout, std::cerr);
  if (*explain) {
    return sluice::cli::catalogExplain(services, model,
                                       project.empty() ? std::nullopt : std::optional<std::string>(project), json,
                                       std::cout, std::cerr);
  }
  return 2;
}
