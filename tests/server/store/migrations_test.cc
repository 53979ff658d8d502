#include "server/store/migrations.h"

#include <filesystem>
#include <fstream>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "server/store/database.h"
#include "tests/server/store/scratch_database.h"
#include "tests/support/test_env.h"

using namespace sluice;

namespace {

std::filesystem::path tempDir(const std::string& label) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sluice-" + label + "-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  std::filesystem::create_directories(dir);
  return dir;
}

void writeFile(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

BOOST_AUTO_TEST_SUITE(migrations)

BOOST_AUTO_TEST_CASE(embedded_migrations_are_the_files_in_the_directory) {
  const auto loaded = store::loadMigrations(test::sourceDir() + "/migrations");
  BOOST_REQUIRE_MESSAGE(loaded.has_value(), loaded.error());
  const auto& embedded = store::embeddedMigrations();
  BOOST_REQUIRE_EQUAL(embedded.size(), loaded->size());
  for (size_t i = 0; i < embedded.size(); ++i) {
    BOOST_TEST(embedded[i].version == (*loaded)[i].version);
    BOOST_TEST(embedded[i].name == (*loaded)[i].name);
    BOOST_TEST(embedded[i].sql == (*loaded)[i].sql);
  }
}

BOOST_AUTO_TEST_CASE(every_migration_starts_with_a_why_line_and_versions_are_consecutive) {
  int expected = 1;
  for (const auto& migration : store::embeddedMigrations()) {
    BOOST_TEST_CONTEXT(migration.name) {
      BOOST_TEST(migration.sql.starts_with("-- Why: "));
      BOOST_TEST(migration.version == expected++);
    }
  }
}

BOOST_AUTO_TEST_CASE(load_rejects_duplicate_versions_and_an_empty_directory) {
  const auto dir = tempDir("migrations");
  BOOST_TEST(!store::loadMigrations(dir.string()).has_value());
  writeFile(dir / "0001_a.sql", "-- Why: a\nSELECT 1;");
  writeFile(dir / "001_b.sql", "-- Why: b\nSELECT 1;");
  writeFile(dir / "README.md", "not a migration");
  const auto duplicate = store::loadMigrations(dir.string());
  BOOST_REQUIRE(!duplicate.has_value());
  BOOST_TEST(duplicate.error().find("two migrations have version 1") != std::string::npos);
  std::filesystem::remove(dir / "001_b.sql");
  const auto one = store::loadMigrations(dir.string());
  BOOST_REQUIRE(one.has_value());
  BOOST_TEST(one->size() == 1u);
  BOOST_TEST(one->front().name == "a");
  BOOST_TEST(!store::loadMigrations((dir / "missing").string()).has_value());
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(applies_everything_once_then_nothing) {
  test::ScratchDatabase database(false);
  auto connection = database.connect();
  const auto& migrations = store::embeddedMigrations();
  BOOST_TEST(store::migrationStatus(*connection, migrations).pending.size() == migrations.size());
  const auto first = store::applyMigrations(*connection, migrations);
  BOOST_TEST(first.size() == migrations.size());
  BOOST_TEST(store::applyMigrations(*connection, migrations).empty());
  const auto status = store::migrationStatus(*connection, migrations);
  BOOST_TEST(status.pending.empty());
  BOOST_TEST(status.changed.empty());
  BOOST_TEST(status.applied.size() == migrations.size());
  BOOST_TEST(database.scalar("SELECT count(*) FROM schema_migrations") == std::to_string(migrations.size()));
  BOOST_TEST(database.scalar("SELECT to_regclass('ai_requests') IS NOT NULL") == "t");
}

BOOST_AUTO_TEST_CASE(cache_savings_migration_keeps_earlier_rows_and_rolls_them_up_by_route_and_deployment) {
  test::ScratchDatabase database(false);
  auto connection = database.connect();
  auto before = store::embeddedMigrations();
  std::erase_if(before, [](const store::Migration& migration) { return migration.version >= 5; });
  store::applyMigrations(*connection, before);
  {
    pqxx::work insert(*connection);
    insert.exec("SELECT sluice_ensure_ai_requests_partition('2030-05-01')");
    insert.exec(
        "INSERT INTO ai_requests (id, created_at, route_id, served_provider, served_endpoint, outcome, input_tokens, "
        "cache_read_tokens, cost_microdollars, probe) VALUES "
        "('a', '2030-05-01T10:15:00Z', 'chat', 'prov', 'prov/a', 'ok', 1000, 800, 70, false), "
        "('b', '2030-05-01T10:45:00Z', 'chat', 'prov', 'prov/a', 'ok', 1000, 200, 90, false), "
        "('c', '2030-05-01T11:00:00Z', 'chat', NULL, NULL, 'upstream_error', 0, 0, 0, false), "
        "('p', '2030-05-01T11:00:00Z', 'chat', 'prov', 'prov/a', 'ok', 1000, 1000, 10, true)");
    insert.commit();
  }
  store::applyMigrations(*connection, store::embeddedMigrations());
  BOOST_TEST(database.scalar("SELECT sum(cache_savings_microdollars) FROM ai_requests") == "0");
  BOOST_TEST(database.scalar("SELECT string_agg(hour || ' ' || route_id || ' ' || endpoint || ' ' || requests || ' ' || "
                             "failed || ' ' || cache_read_tokens || ' ' || cost_microdollars, '; ' ORDER BY hour, "
                             "endpoint) FROM (SELECT extract(hour FROM hour AT TIME ZONE 'UTC') AS hour, route_id, "
                             "endpoint, requests, failed, cache_read_tokens, cost_microdollars FROM "
                             "ai_route_usage_hourly) h") == "10 chat prov/a 2 0 1000 160; 11 chat  1 1 0 0");
  BOOST_TEST(database.scalar("SELECT day || ' ' || sum(requests) || ' ' || sum(cost_microdollars) FROM "
                             "ai_route_usage_daily GROUP BY day") == "2030-05-01 3 160");
}

// 0011: an ok row without a project has no entry in the outcome and project indexes, on the
// partitions that existed before it as on new ones, and a filter on a failure or a project can
// still use them.
BOOST_AUTO_TEST_CASE(partial_audit_indexes_reach_existing_partitions_and_leave_ok_rows_out) {
  test::ScratchDatabase database(false);
  auto connection = database.connect();
  auto before = store::embeddedMigrations();
  std::erase_if(before, [](const store::Migration& migration) { return migration.version >= 11; });
  store::applyMigrations(*connection, before);
  {
    pqxx::work insert(*connection);
    insert.exec("SELECT sluice_ensure_ai_requests_partition('2030-05-01')");
    insert.exec(
        "INSERT INTO ai_requests (id, created_at, outcome, project) VALUES "
        "('ok-1', '2030-05-01T10:00:00Z', 'ok', NULL), ('ok-2', '2030-05-01T10:01:00Z', 'ok', 'research'), "
        "('failed-1', '2030-05-01T10:02:00Z', 'upstream_error', NULL)");
    insert.commit();
  }
  store::applyMigrations(*connection, store::embeddedMigrations());
  {
    pqxx::work insert(*connection);
    insert.exec("SELECT sluice_ensure_ai_requests_partition('2030-05-02')");
    insert.commit();
  }
  for (const std::string partition : {"ai_requests_20300501", "ai_requests_20300502"}) {
    const std::string definitions =
        database.scalar("SELECT string_agg(indexdef, ' | ' ORDER BY indexname) FROM pg_indexes WHERE tablename = '" +
                        partition + "'");
    BOOST_TEST(definitions.find("(outcome, created_at) WHERE (outcome <> 'ok'::text)") != std::string::npos, definitions);
    BOOST_TEST(definitions.find("(project, created_at) WHERE (project IS NOT NULL)") != std::string::npos, definitions);
  }
  // The index holds the failure alone, and a scan forced onto it finds exactly that row.
  BOOST_TEST(database.scalar("SELECT count(*) FROM ai_requests WHERE outcome <> 'ok'") == "1");
  pqxx::work scan(*connection);
  scan.exec("SET LOCAL enable_seqscan = off");
  scan.exec("SET LOCAL enable_bitmapscan = off");
  const auto plan = [&scan](const std::string& where) {
    std::string text;
    for (const auto& row : scan.exec("EXPLAIN SELECT id FROM ai_requests WHERE " + where +
                                     " AND created_at >= '2030-05-01' ORDER BY created_at DESC LIMIT 10")) {
      text += row[0].as<std::string>() + "\n";
    }
    return text;
  };
  const std::string failures = plan("outcome = 'upstream_error'");
  BOOST_TEST(failures.find("outcome_created_at_idx") != std::string::npos, failures);
  const std::string project = plan("project = 'research'");
  BOOST_TEST(project.find("project_created_at_idx") != std::string::npos, project);
  BOOST_TEST(scan.exec("SELECT id FROM ai_requests WHERE outcome = 'upstream_error'")[0][0].as<std::string>() == "failed-1");
}

BOOST_AUTO_TEST_CASE(two_appliers_at_once_apply_each_migration_exactly_once) {
  test::ScratchDatabase database(false);
  // A slow extra migration widens the window in which the two could collide.
  auto migrations = store::embeddedMigrations();
  migrations.push_back({static_cast<int>(migrations.size()) + 1, "slow",
                        "-- Why: test\nSELECT pg_sleep(0.5); CREATE TABLE only_once (x int);"});
  std::vector<int> applied[2];
  std::string errors[2];
  std::thread threads[2];
  for (int i = 0; i < 2; ++i) {
    threads[i] = std::thread([&, i] {
      try {
        auto connection = database.connect();
        applied[i] = store::applyMigrations(*connection, migrations);
      } catch (const std::exception& error) {
        errors[i] = error.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  BOOST_TEST(errors[0] == "");
  BOOST_TEST(errors[1] == "");
  // One applied all of them, the other found nothing to do.
  BOOST_TEST(applied[0].size() + applied[1].size() == migrations.size());
  BOOST_TEST((applied[0].empty() || applied[1].empty()));
  BOOST_TEST(database.scalar("SELECT count(*) FROM schema_migrations") == std::to_string(migrations.size()));
}

BOOST_AUTO_TEST_CASE(a_failing_migration_is_rolled_back_named_and_left_pending) {
  test::ScratchDatabase database(false);
  auto migrations = store::embeddedMigrations();
  const int bad = static_cast<int>(migrations.size()) + 1;
  migrations.push_back({bad, "broken", "-- Why: test\nCREATE TABLE half_done (x int); SELECT no_such_function();"});
  auto connection = database.connect();
  try {
    store::applyMigrations(*connection, migrations);
    BOOST_FAIL("expected the broken migration to throw");
  } catch (const std::runtime_error& error) {
    BOOST_TEST(std::string(error.what()).find("_broken failed and was rolled back") != std::string::npos);
  }
  BOOST_TEST(database.scalar("SELECT to_regclass('half_done') IS NULL") == "t");
  const auto status = store::migrationStatus(*connection, migrations);
  BOOST_REQUIRE(status.pending.size() == 1u);
  BOOST_TEST(status.pending.front().version == bad);
  // The lock was released: the good ones can be applied again (nothing to do) without waiting.
  migrations.pop_back();
  BOOST_TEST(store::applyMigrations(*connection, migrations).empty());
}

BOOST_AUTO_TEST_CASE(status_reports_edited_and_unknown_migrations) {
  test::ScratchDatabase database(true);
  auto connection = database.connect();
  auto migrations = store::embeddedMigrations();
  migrations.front().sql += "\n-- edited afterwards";
  auto status = store::migrationStatus(*connection, migrations);
  BOOST_TEST(status.changed == std::vector<int>{migrations.front().version});
  migrations.pop_back();
  status = store::migrationStatus(*connection, migrations);
  BOOST_TEST(status.unknown.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
