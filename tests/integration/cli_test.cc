// sluicectl catalog check / explain, run as a user runs them.

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>

#include "tests/support/test_env.h"

namespace {

struct Run {
  int code = -1;
  std::string out;
};

// Runs a shell command line and captures stdout (stderr folded in with 2>&1 by the caller).
Run run(const std::string& command) {
  Run result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string ctl() { return sluice::test::binPath("sluicectl"); }

}  // namespace

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(catalog_check_accepts_the_shipped_catalog) {
  const auto result = run("ANTHROPIC_API_KEY=k " + ctl() + " catalog check " + sluice::test::sourceDir() + "/services 2>&1");
  BOOST_TEST(result.code == 0);
  BOOST_TEST(result.out.find("ok (version ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(catalog_check_prints_every_problem_with_its_place_and_exits_2) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sluicectl-check-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(sluice::test::sourceDir() + "/services", dir, fs::copy_options::recursive);
  {
    std::ofstream deployments(dir / "ai/deployments.yaml");
    deployments << "deployments:\n  claude-opus-5-5: [anthropic/nope]\n  claude-sonnet-5-5: [anthropic/api, anthropic/api]\n";
  }
  const auto result = run(ctl() + " catalog check " + dir.string() + " 2>&1");
  BOOST_TEST(result.code == 2);
  BOOST_TEST(result.out.find("deployments.yaml:2:") != std::string::npos);
  BOOST_TEST(result.out.find("provider 'anthropic' has no endpoint 'nope'") != std::string::npos);
  BOOST_TEST(result.out.find("deployments.yaml:3:") != std::string::npos);
  const auto json = run(ctl() + " --json catalog check " + dir.string());
  BOOST_TEST(json.code == 2);
  BOOST_TEST(json.out.find("\"valid\": false") != std::string::npos);
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(catalog_explain_prints_the_dispatch_chain) {
  const auto result = run("DEEPSEEK_API_KEY=k " + ctl() + " catalog explain deepseek-v4-pro --services " +
                          sluice::test::sourceDir() + "/services 2>/dev/null");
  BOOST_TEST(result.code == 0);
  const auto first = result.out.find("1. deepseek/api");
  const auto second = result.out.find("2. opencode-go/chat");
  BOOST_TEST(first != std::string::npos);
  BOOST_TEST(second != std::string::npos);
  BOOST_TEST(first < second);
  BOOST_TEST(result.out.find("cache-read $0.132") != std::string::npos);
  BOOST_TEST(result.out.find("personal") != std::string::npos);
  const auto alias = run(ctl() + " catalog explain go-deepseek-v4-pro --json --services " + sluice::test::sourceDir() +
                         "/services 2>/dev/null");
  BOOST_TEST(alias.out.find("\"kind\": \"alias\"") != std::string::npos);
  const auto unknown = run(ctl() + " catalog explain nope --services " + sluice::test::sourceDir() + "/services 2>&1");
  BOOST_TEST(unknown.code == 2);
  BOOST_TEST(unknown.out.find("model_not_found") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(catalog_explain_prints_an_ad_hoc_chain_piece_by_piece) {
  const auto result = run("DEEPSEEK_API_KEY=k " + ctl() + " catalog explain 'claude-haiku-5-5|sluice/deepseek-v4-pro' --services " +
                          sluice::test::sourceDir() + "/services 2>/dev/null");
  BOOST_TEST(result.code == 0);
  BOOST_TEST(result.out.find("route_match  chain:claude-haiku-5-5|sluice/deepseek-v4-pro") != std::string::npos, result.out);
  BOOST_TEST(result.out.find("2. sluice/deepseek-v4-pro (model): route:deepseek-v4-pro") != std::string::npos, result.out);
  BOOST_TEST(result.out.find("2. deepseek/api  (piece sluice/deepseek-v4-pro, model deepseek-v4-pro)") != std::string::npos,
             result.out);
  const auto json = run(ctl() + " catalog explain 'claude-haiku-5-5|deepseek/api' --json --services " +
                        sluice::test::sourceDir() + "/services 2>/dev/null");
  BOOST_TEST(json.out.find("\"kind\": \"endpoint\"") != std::string::npos, json.out);
  const auto bad = run(ctl() + " catalog explain 'claude-haiku-5-5||x' --services " + sluice::test::sourceDir() +
                       "/services 2>&1");
  BOOST_TEST(bad.code == 2);
  BOOST_TEST(bad.out.find("invalid_chain") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(catalog_explain_shows_each_deployments_trust_tier_under_data_protection) {
  const std::string dir = sluice::test::sourceDir() + "/tests/integration/catalogs/protection";
  const std::string env = "ANTHROPIC_API_KEY=k ANTHROPIC_BASE_URL=http://127.0.0.1:9 PROTECTION_VAULT=" + dir + "/vault.txt ";
  const auto result = run(env + ctl() + " catalog explain chain --services " + dir + " 2>&1");
  BOOST_TEST(result.code == 0, result.out);
  BOOST_TEST(result.out.find("blocks private_key from public") != std::string::npos, result.out);
  const auto local = result.out.find("trust local: sent as the client wrote it");
  const auto masked = result.out.find("trust public: sent masked");
  BOOST_TEST(local != std::string::npos, result.out);
  BOOST_TEST(masked != std::string::npos, result.out);
  BOOST_TEST(local < masked);
  const auto json = run(env + ctl() + " catalog explain chain --json --services " + dir + " 2>/dev/null");
  BOOST_TEST(json.out.find("\"trust\": \"public\"") != std::string::npos, json.out);
  BOOST_TEST(json.out.find("\"masked\": true") != std::string::npos, json.out);
  // The vault's entries are never printed.
  BOOST_TEST(json.out.find("Acme") == std::string::npos);
  // A vault that cannot be read: refused, naming the key, exit 2.
  const auto missing = run("ANTHROPIC_API_KEY=k ANTHROPIC_BASE_URL=http://127.0.0.1:9 PROTECTION_VAULT=/nowhere " + ctl() +
                           " catalog check " + dir + " 2>&1");
  BOOST_TEST(missing.code == 2);
  BOOST_TEST(missing.out.find("gateway.yaml:5:12: error: vault file") != std::string::npos, missing.out);
}

BOOST_AUTO_TEST_CASE(an_unknown_command_is_named_with_the_nearest_known_one) {
  const auto user = run(ctl() + " user list 2>&1");
  BOOST_TEST(user.code == 2);
  BOOST_TEST(user.out.find("sluicectl: unknown command 'user'; did you mean 'users'?") != std::string::npos, user.out);
  BOOST_TEST(user.out.find("A subcommand is required") == std::string::npos, user.out);
  // Options before the command, and their values, are stepped over; a nested word is named whole.
  const auto nested = run(ctl() + " --services /nowhere --json users lst 2>&1");
  BOOST_TEST(nested.code == 2);
  BOOST_TEST(nested.out.find("unknown command 'users lst'; did you mean 'users list'?") != std::string::npos, nested.out);
  const auto missing = run(ctl() + " users 2>&1");
  BOOST_TEST(missing.code == 2);
  BOOST_TEST(missing.out.find("'users' needs a command: add, list, disable, enable, update, delete, history, "
                              "cert-subject") != std::string::npos,
             missing.out);
  const auto far = run(ctl() + " frobnicate 2>&1");
  BOOST_TEST(far.code == 2);
  BOOST_TEST(far.out.find("unknown command 'frobnicate'; the commands are: catalog, migrate") != std::string::npos, far.out);
  // Help is still CLI11's own, and exits 0.
  BOOST_TEST(run(ctl() + " --help >/dev/null 2>&1").code == 0);
}

BOOST_AUTO_TEST_CASE(catalog_explain_suggests_the_nearest_model_ids) {
  const std::string services = " --services " + sluice::test::sourceDir() + "/services";
  const auto typo = run(ctl() + " catalog explain claude-sonet-5-5" + services + " 2>&1");
  BOOST_TEST(typo.code == 2);
  BOOST_TEST(typo.out.find("refused (404 model_not_found): model 'claude-sonet-5-5' is not served by this gateway; "
                           "did you mean 'claude-sonnet-5-5'?") != std::string::npos,
             typo.out);
  const auto fragment = run(ctl() + " catalog explain --json haiku" + services + " 2>/dev/null");
  BOOST_TEST(fragment.out.find("\"did_you_mean\": [\n    \"claude-haiku-5-5\"") != std::string::npos, fragment.out);
}

BOOST_AUTO_TEST_CASE(catalog_check_without_a_catalog_says_so_once_and_how_to_point_at_one) {
  namespace fs = std::filesystem;
  const fs::path empty = fs::temp_directory_path() / ("sluicectl-empty-" + std::to_string(::getpid()));
  fs::create_directories(empty);
  const auto result = run("cd " + empty.string() + " && env -u SLUICE_SERVICES " + ctl() + " catalog check 2>&1");
  BOOST_TEST(result.code == 2);
  BOOST_TEST(result.out == "sluicectl: no catalog at ./services; pass --services <dir> (the folder that holds ai/ and "
                           "access-control/) or set SLUICE_SERVICES\n");
  const auto explain = run("cd " + empty.string() + " && env -u SLUICE_SERVICES " + ctl() + " catalog explain x 2>&1");
  BOOST_TEST(explain.code == 2);
  BOOST_TEST(explain.out.find("no catalog at ./services") != std::string::npos, explain.out);
  const auto json = run("cd " + empty.string() + " && " + ctl() + " --json catalog check elsewhere");
  BOOST_TEST(json.code == 2);
  BOOST_TEST(json.out.find("\"message\": \"no catalog at ./elsewhere;") != std::string::npos, json.out);
  fs::remove_all(empty);
}

BOOST_AUTO_TEST_CASE(catalog_check_counts_agree_with_the_console) {
  const std::string dir = sluice::test::sourceDir() + "/services";
  const auto text = run("ANTHROPIC_API_KEY=k " + ctl() + " catalog check " + dir + " 2>/dev/null");
  BOOST_TEST(text.code == 0);
  // The console's Settings page counts every route, the implicit one of each model included.
  BOOST_TEST(text.out.find(": 9 credentials, 9 providers, 17 models, 18 routes (1 declared in gateway.yaml, 17 implicit: "
                           "one per model), 2 access rules\n") != std::string::npos,
             text.out);
  const auto json = run("ANTHROPIC_API_KEY=k " + ctl() + " --json catalog check " + dir + " 2>/dev/null");
  BOOST_TEST(json.out.find("\"routes\": 18") != std::string::npos, json.out);
  BOOST_TEST(json.out.find("\"explicit_routes\": 1") != std::string::npos, json.out);
}

// Finance's budget, explained for one caller: which limit of each window applies and why; a zone
// the system's tz database does not know is an error at its value.
BOOST_AUTO_TEST_CASE(catalog_explain_says_which_quota_limit_applies_to_a_member_and_why) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sluicectl-budget-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(sluice::test::sourceDir() + "/services", dir, fs::copy_options::recursive);
  const auto write_windows = [&](const std::string& windows) {
    std::ifstream in(dir / "ai/gateway.yaml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find("    windows:\n");
    BOOST_REQUIRE(at != std::string::npos);
    std::ofstream(dir / "ai/gateway.yaml") << text.substr(0, at) << "    windows:\n" << windows;
  };
  write_windows(
      "      - id: team-budget\n        per: project\n        period: month\n        timezone: Europe/Paris\n"
      "        max_cost_usd: 100\n        overrides:\n          project/research: { max_cost_usd: 5000 }\n"
      "      - id: member-budget\n        per: user\n        period: month\n        max_cost_usd: 300\n"
      "        overrides:\n          group/interns: { max_cost_usd: 20 }\n          member/ceo: unlimited\n");
  const std::string env = "ANTHROPIC_API_KEY=k ";
  const auto result = run(env + ctl() + " catalog explain claude-haiku-5-5 --member ida --group interns --project research"
                                        " --services " + dir.string() + " 2>&1");
  BOOST_TEST(result.code == 0, result.out);
  BOOST_TEST(result.out.find("team-budget: per project, calendar month in Europe/Paris, warn") != std::string::npos,
             result.out);
  BOOST_TEST(result.out.find("this caller: project research gets $5000.00 cost (override project/research)") !=
                 std::string::npos, result.out);
  BOOST_TEST(result.out.find("this caller: user ida gets $20.00 cost (override group/interns)") != std::string::npos,
             result.out);
  const auto ceo = run(env + ctl() + " --json catalog explain claude-haiku-5-5 --member ceo --group interns"
                                     " --services " + dir.string() + " 2>/dev/null");
  BOOST_TEST(ceo.out.find("\"source\": \"member/ceo\"") != std::string::npos, ceo.out);
  BOOST_TEST(ceo.out.find("\"limit\": \"unlimited\"") != std::string::npos, ceo.out);

  write_windows("      - { id: team-budget, per: project, period: month, timezone: Mars/Olympus, max_cost_usd: 5 }\n");
  const auto unknown = run(env + ctl() + " catalog check " + dir.string() + " 2>&1");
  BOOST_TEST(unknown.code == 2);
  BOOST_TEST(unknown.out.find("gateway.yaml:") != std::string::npos, unknown.out);
  BOOST_TEST(unknown.out.find("timezone 'Mars/Olympus' of quota window 'team-budget' cannot be used") !=
                 std::string::npos, unknown.out);
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
