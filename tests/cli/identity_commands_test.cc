// Runs the real sluicectl binary for users, keys and credentials against a scratch database, and
// checks what it prints, what it stores, and that secrets never reach its output.

#include <fstream>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "server/identity/api_keys.h"
#include "server/identity/authenticator.h"
#include "server/store/pg_key_directory.h"
#include "tests/server/store/scratch_database.h"
#include "tests/support/child_process.h"
#include "tests/support/test_env.h"

using namespace sluice;
using namespace std::chrono;

namespace {

const std::string kMasterKey = "4d3a0c5e1b2f6a7d8c9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e";
const std::string kNewMasterKey = "9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddccbbaa99887766554433221100";
const std::string kPersonalKey = "sk-go-bobs-PERSONAL-subscription-key-42";

struct Run {
  int code = -1;
  std::string out;
  std::string err;

  std::string lastLine() const {
    std::string text = out;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    const size_t newline = text.rfind('\n');
    return newline == std::string::npos ? text : text.substr(newline + 1);
  }
};

test::ScratchDatabase& database() {
  static test::ScratchDatabase instance;
  return instance;
}

// Runs sluicectl with the database URL and the catalog; `stdin_text` (when given) on its stdin,
// else /dev/null.
Run run(std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env = {},
        std::optional<std::string> stdin_text = std::nullopt) {
  static int counter = 0;
  const std::string input = "identity_commands_stdin_" + std::to_string(++counter) + ".txt";
  { std::ofstream(input) << stdin_text.value_or(""); }
  std::vector<std::string> argv = {"-c", "exec \"$0\" \"$@\" < \"$SLUICE_TEST_STDIN\"", test::binPath("sluicectl"),
                                   "--database-url", database().url(), "--services", test::sourceDir() + "/services"};
  argv.insert(argv.end(), args.begin(), args.end());
  env.emplace_back("SLUICE_TEST_STDIN", stdin_text ? input : "/dev/null");
  test::ChildProcess child({.binary = "/bin/sh",
                            .args = std::move(argv),
                            .env = std::move(env),
                            .unset_env = {"SLUICE_DATABASE_URL", "SLUICE_MASTER_KEY", "SLUICE_MASTER_KEY_FILE",
                                          "SLUICE_MASTER_KEY_OLD", "SLUICE_MASTER_KEY_OLD_FILE"},
                            .wait_for_listening = false});
  const auto code = child.waitForExit(seconds(60));
  BOOST_REQUIRE_MESSAGE(code.has_value(), "sluicectl did not exit");
  std::remove(input.c_str());
  return {*code, child.stdoutText(), child.stderrText()};
}

void addUsers() {
  static bool added = false;
  if (added) return;
  added = true;
  const auto alice = run({"users", "add", "alice", "--role", "member", "--group", "engineering", "--project",
                          "odoo-delivery", "--project", "research", "--primary-project", "research"});
  BOOST_REQUIRE_MESSAGE(alice.code == 0, alice.err);
  const auto bob = run({"users", "add", "bob", "--role", "admin"});
  BOOST_REQUIRE_MESSAGE(bob.code == 0, bob.err);
}

std::unique_ptr<identity::Authenticator> authenticator(const std::string& master_key) {
  auto key = identity::MasterKey::parse(master_key, "test").value();
  auto directory = std::make_shared<store::PgKeyDirectory>(std::make_shared<store::ConnectionPool>(database().url()));
  return std::make_unique<identity::Authenticator>(directory, std::make_shared<const identity::Vault>(key));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(identity_commands)

BOOST_AUTO_TEST_CASE(users_add_list_and_disable) {
  addUsers();
  const auto again = run({"users", "add", "alice", "--role", "member"});
  BOOST_TEST(again.code == 1);
  BOOST_TEST(again.err.find("already exists") != std::string::npos, again.err);
  BOOST_TEST(run({"users", "add", "carol", "--role", "owner"}).code == 2);
  const auto primary = run({"users", "add", "carol", "--role", "member", "--primary-project", "x"});
  BOOST_TEST(primary.code == 2);
  BOOST_TEST(primary.err.find("primary project 'x'") != std::string::npos, primary.err);
  BOOST_TEST(run({"users", "add", "carol"}).code == 2);  // --role is required

  const auto list = run({"users", "list"});
  BOOST_TEST(list.code == 0, list.err);
  BOOST_TEST(list.out.starts_with("NAME"));
  BOOST_TEST(list.out.find("odoo-delivery,research*") != std::string::npos, list.out);
  BOOST_TEST(list.out.find("engineering") != std::string::npos);
  const auto json = nlohmann::json::parse(run({"users", "list", "--json"}).out);
  BOOST_REQUIRE(json.size() >= 2u);
  BOOST_TEST(json[0]["name"] == "alice");
  BOOST_TEST(json[0]["primary_project"] == "research");
  BOOST_TEST(json[1]["role"] == "admin");

  BOOST_TEST(run({"users", "add", "dave", "--role", "member"}).code == 0);
  const auto disabled = run({"users", "disable", "dave"});
  BOOST_TEST(disabled.code == 0, disabled.err);
  BOOST_TEST(disabled.out.find("disabled dave") != std::string::npos);
  const auto twice = run({"users", "disable", "dave"});
  BOOST_TEST(twice.code == 0);
  BOOST_TEST(twice.out.find("already disabled") != std::string::npos);
  BOOST_TEST(run({"users", "disable", "nobody"}).code == 1);
}

// A subject may hold a comma ("cn:alice,OU=x" is one common name): listed bare and joined with
// commas it read as two subjects. Each is quoted, quotes inside escaped.
BOOST_AUTO_TEST_CASE(users_list_quotes_each_certificate_subject) {
  const auto added = run({"users", "add", "erin", "--role", "member", "--cert-subject", "cn:erin,OU=x",
                          "--cert-subject", "cn:erin \"the\" second"});
  BOOST_TEST_REQUIRE(added.code == 0, added.err);
  // Stored (and listed) in order.
  BOOST_TEST(added.out.find(R"(certificate subjects "cn:erin \"the\" second", "cn:erin,OU=x")") != std::string::npos,
             added.out);
  const auto list = run({"users", "list"});
  BOOST_TEST_REQUIRE(list.code == 0, list.err);
  std::string erin;
  for (size_t at = 0; at < list.out.size();) {
    const size_t end = list.out.find('\n', at);
    const std::string line = list.out.substr(at, end - at);
    if (line.starts_with("erin ")) erin = line;
    at = end == std::string::npos ? list.out.size() : end + 1;
  }
  BOOST_TEST(erin.find(R"("cn:erin \"the\" second", "cn:erin,OU=x")") != std::string::npos, list.out);
  const auto json = nlohmann::json::parse(run({"users", "list", "--json"}).out);
  for (const auto& member : json) {
    if (member["name"] == "erin") {
      BOOST_TEST(member["cert_subjects"] == nlohmann::json::array({"cn:erin \"the\" second", "cn:erin,OU=x"}));
    }
  }
}

BOOST_AUTO_TEST_CASE(keys_create_prints_the_key_once_and_list_never_does) {
  addUsers();
  const auto created = run({"keys", "create", "alice", "--project", "odoo-delivery", "--expires", "90d", "--name", "laptop"});
  BOOST_REQUIRE_MESSAGE(created.code == 0, created.err);
  const std::string key = created.lastLine();
  const auto parsed = identity::parseApiKey(key);
  BOOST_REQUIRE_MESSAGE(parsed.has_value(), "last line is not a key: " << created.out);
  BOOST_TEST(created.out.find(key) == created.out.rfind(key));  // printed once
  BOOST_TEST(created.out.find("project odoo-delivery") != std::string::npos, created.out);

  // The key works, with its project binding.
  const auto caller = authenticator(kMasterKey)->authenticate(key, system_clock::now());
  BOOST_REQUIRE(caller.has_value());
  BOOST_TEST(caller->user == "alice");
  BOOST_TEST(caller->key_project.value() == "odoo-delivery");

  const std::string secret_part = key.substr(18);
  for (const auto& args : std::vector<std::vector<std::string>>{{"keys", "list"}, {"keys", "list", "alice"},
                                                                {"keys", "list", "--json"}}) {
    const auto list = run(args);
    BOOST_TEST(list.code == 0, list.err);
    BOOST_TEST(list.out.find(std::string(parsed->id)) != std::string::npos, list.out);
    BOOST_TEST(list.out.find(secret_part) == std::string::npos, "the key leaked: " << list.out);
  }
  const auto json = nlohmann::json::parse(run({"keys", "list", "alice", "--json"}).out);
  BOOST_TEST(json[0]["prefix"] == "sk-sluice-" + std::string(parsed->id));
  BOOST_TEST(json[0]["name"] == "laptop");
  BOOST_TEST(json[0]["status"] == "active");
  BOOST_TEST(!json[0].contains("key"));
  BOOST_TEST(run({"keys", "list", "bob"}).out.find("0 keys") != std::string::npos);

  const auto as_json = run({"keys", "create", "bob", "--json"});
  BOOST_TEST(as_json.code == 0, as_json.err);
  BOOST_TEST(identity::parseApiKey(nlohmann::json::parse(as_json.out)["key"].get<std::string>()).has_value());
}

BOOST_AUTO_TEST_CASE(keys_create_refusals_and_exit_codes) {
  addUsers();
  BOOST_TEST(run({"keys", "create", "nobody"}).code == 1);
  const auto foreign = run({"keys", "create", "alice", "--project", "payroll"});
  BOOST_TEST(foreign.code == 1);
  BOOST_TEST(foreign.err.find("not a member of project 'payroll'") != std::string::npos, foreign.err);
  const auto duration = run({"keys", "create", "alice", "--expires", "soon"});
  BOOST_TEST(duration.code == 2);
  BOOST_TEST(duration.err.find("--expires") != std::string::npos);
  BOOST_TEST(run({"keys", "create"}).code == 2);
}

BOOST_AUTO_TEST_CASE(keys_revoke_by_prefix_or_id_stops_the_key) {
  addUsers();
  const auto created = run({"keys", "create", "bob", "--name", "ci"});
  BOOST_REQUIRE(created.code == 0);
  const std::string key = created.lastLine();
  const std::string prefix = key.substr(0, 18);
  BOOST_REQUIRE(authenticator(kMasterKey)->authenticate(key, system_clock::now()).has_value());
  const auto revoked = run({"keys", "revoke", prefix});
  BOOST_TEST(revoked.code == 0, revoked.err);
  BOOST_TEST(revoked.out.find("revoked " + prefix) != std::string::npos, revoked.out);
  const auto again = run({"keys", "revoke", prefix.substr(10)});
  BOOST_TEST(again.code == 0);
  BOOST_TEST(again.out.find("already revoked") != std::string::npos);
  const auto refused = authenticator(kMasterKey)->authenticate(key, system_clock::now());
  BOOST_TEST((refused.error().reason == identity::AuthFailureReason::Revoked));
  BOOST_TEST(run({"keys", "list", "bob"}).out.find("revoked") != std::string::npos);
  BOOST_TEST(run({"keys", "revoke", "ZZZZZZZZ"}).code == 1);
  const auto bad = run({"keys", "revoke", "sk-proj-THIS-IS-A-SECRET"});
  BOOST_TEST(bad.code == 2);
  BOOST_TEST(bad.err.find("SECRET") == std::string::npos, bad.err);
}

BOOST_AUTO_TEST_CASE(credentials_set_reads_stdin_stores_ciphertext_and_never_prints_the_key) {
  addUsers();
  const std::vector<std::pair<std::string, std::string>> env = {{"SLUICE_MASTER_KEY", kMasterKey}};
  const auto set = run({"credentials", "set", "opencode-go", "--user", "bob"}, env, kPersonalKey + "\n");
  BOOST_REQUIRE_MESSAGE(set.code == 0, set.err);
  BOOST_TEST(set.out.find("stored bob's key for opencode-go") != std::string::npos, set.out);
  const auto replaced = run({"credentials", "set", "opencode-go", "--user", "bob"}, env, kPersonalKey);
  BOOST_TEST(replaced.out.find("replaced") != std::string::npos, replaced.out);
  for (const auto& r : {set, replaced}) {
    BOOST_TEST(r.out.find("PERSONAL") == std::string::npos);
    BOOST_TEST(r.err.find("PERSONAL") == std::string::npos);
  }
  // Encrypted at rest, decrypted in memory.
  BOOST_TEST(database().scalar("SELECT position(convert_to('PERSONAL', 'UTF8') in ciphertext) FROM personal_credentials "
                               "WHERE user_name = 'bob'") == "0");
  BOOST_TEST(authenticator(kMasterKey)->personalKey("bob", "opencode-go", system_clock::now()).value() == kPersonalKey);

  const auto list = run({"credentials", "list"});
  BOOST_TEST(list.code == 0, list.err);
  BOOST_TEST(list.out.find("bob") != std::string::npos);
  BOOST_TEST(list.out.find("opencode-go") != std::string::npos);
  BOOST_TEST(list.out.find("PERSONAL") == std::string::npos);
  const auto json = nlohmann::json::parse(run({"credentials", "list", "--user", "bob", "--json"}).out);
  BOOST_REQUIRE(json.size() == 1u);
  BOOST_TEST(json[0]["credential"] == "opencode-go");
  BOOST_TEST(json[0]["master_key_id"].get<std::string>().size() == 8u);
  BOOST_TEST(run({"credentials", "list", "--user", "alice"}).out.find("0 personal credentials") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(credentials_set_refusals) {
  addUsers();
  const std::vector<std::pair<std::string, std::string>> env = {{"SLUICE_MASTER_KEY", kMasterKey}};
  const auto platform = run({"credentials", "set", "anthropic", "--user", "bob"}, env, "x");
  BOOST_TEST(platform.code == 2);
  BOOST_TEST(platform.err.find("kind: platform") != std::string::npos, platform.err);
  const auto unknown = run({"credentials", "set", "nope", "--user", "bob"}, env, "x");
  BOOST_TEST(unknown.code == 2);
  BOOST_TEST(unknown.err.find("personal ones: opencode-go") != std::string::npos, unknown.err);
  const auto no_master = run({"credentials", "set", "opencode-go", "--user", "bob"}, {}, "x");
  BOOST_TEST(no_master.code == 2);
  BOOST_TEST(no_master.err.find("SLUICE_MASTER_KEY") != std::string::npos);
  const auto bad_master = run({"credentials", "set", "opencode-go", "--user", "bob"},
                              {{"SLUICE_MASTER_KEY", "not-a-key-at-all"}}, "x");
  BOOST_TEST(bad_master.code == 2);
  BOOST_TEST(bad_master.err.find("not-a-key-at-all") == std::string::npos);
  const auto empty = run({"credentials", "set", "opencode-go", "--user", "bob"}, env);
  BOOST_TEST(empty.code == 2);
  BOOST_TEST(empty.err.find("no key on stdin") != std::string::npos, empty.err);
  BOOST_TEST(run({"credentials", "set", "opencode-go", "--user", "nobody"}, env, "x").code == 1);
}

BOOST_AUTO_TEST_CASE(rotate_master_reencrypts_from_the_old_key_to_the_new) {
  addUsers();
  BOOST_REQUIRE(run({"credentials", "set", "opencode-go", "--user", "alice"}, {{"SLUICE_MASTER_KEY", kMasterKey}},
                    "alices go key")
                    .code == 0);
  const auto missing_old = run({"credentials", "rotate-master"}, {{"SLUICE_MASTER_KEY", kNewMasterKey}});
  BOOST_TEST(missing_old.code == 2);
  BOOST_TEST(missing_old.err.find("SLUICE_MASTER_KEY_OLD") != std::string::npos);
  BOOST_TEST(run({"credentials", "rotate-master"}, {{"SLUICE_MASTER_KEY", kMasterKey}, {"SLUICE_MASTER_KEY_OLD", kMasterKey}})
                 .code == 2);
  const auto rotated = run({"credentials", "rotate-master"},
                           {{"SLUICE_MASTER_KEY", kNewMasterKey}, {"SLUICE_MASTER_KEY_OLD", kMasterKey}});
  BOOST_TEST(rotated.code == 0, rotated.err);
  BOOST_TEST(rotated.out.find("re-encrypted") != std::string::npos, rotated.out);
  BOOST_TEST(authenticator(kNewMasterKey)->personalKey("alice", "opencode-go", system_clock::now()).value() ==
             "alices go key");
  // The old key from a file: everything is already under the new key.
  { std::ofstream("identity_commands_old_key.txt") << kMasterKey; }
  const auto again = run({"credentials", "rotate-master", "--old-key-file", "identity_commands_old_key.txt", "--json"},
                         {{"SLUICE_MASTER_KEY", kNewMasterKey}});
  std::remove("identity_commands_old_key.txt");
  BOOST_TEST(again.code == 0, again.err);
  BOOST_TEST(nlohmann::json::parse(again.out)["rotated"] == 0);
}

BOOST_AUTO_TEST_CASE(no_database_url_is_invalid_input) {
  test::ChildProcess child({.binary = test::binPath("sluicectl"),
                            .args = {"users", "list"},
                            .unset_env = {"SLUICE_DATABASE_URL"},
                            .wait_for_listening = false});
  BOOST_TEST(child.waitForExit(seconds(30)).value() == 2);
}

BOOST_AUTO_TEST_SUITE_END()
