// The audit writer's sustained throughput into PostgreSQL: producer threads submit realistic rows
// (keeping the queue below its capacity, so nothing spills to the spool) into a scratch database;
// prints rows/s from the first submit until every row is in PostgreSQL.
//
//   audit_writer_bench [--database-url URL] [--rows N] [--producers P] [--batch-size B]
//   (URL defaults to $SLUICE_DATABASE_URL, then $SLUICE_TEST_DATABASE_URL)

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <pqxx/pqxx>

#include "server/audit/writer.h"
#include "server/store/database.h"
#include "server/store/migrations.h"

using namespace sluice;

namespace {

std::string withDatabase(const std::string& url, const std::string& name) {
  // postgresql://user:pass@host:port/db?query → …/name?query
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return url + "/" + name;
  const size_t query = url.find('?', slash);
  return url.substr(0, slash + 1) + name + (query == std::string::npos ? "" : url.substr(query));
}

audit::Record makeRecord(std::mt19937_64& random, uint64_t sequence) {
  static const char* kUsers[] = {"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"};
  static const char* kModels[] = {"claude-sonnet-4", "gpt-4.1", "gemini-2.5-pro", "claude-haiku-4"};
  audit::Record record;
  char id[48];
  std::snprintf(id, sizeof id, "%016llx-%08llx", static_cast<unsigned long long>(random()),
                static_cast<unsigned long long>(sequence));
  record.id = id;
  record.created_at = audit::Clock::now();
  record.completed_at = record.created_at + std::chrono::milliseconds(850);
  record.user = kUsers[random() % 8];
  record.api_key_id = "key_" + std::to_string(random() % 100);
  record.project = "project-" + std::to_string(random() % 5);
  record.project_source = "key";
  record.client_family = "anthropic-sdk-python";
  record.client_wire = "anthropic";
  record.requested_model = kModels[random() % 4];
  record.model = record.requested_model;
  record.route_id = record.model;
  record.strategy = "ordered";
  record.provider = "anthropic";
  record.endpoint = "anthropic-us";
  record.served_provider = "anthropic";
  record.served_endpoint = "anthropic-us";
  record.route_match = "route:" + record.model + ";deployment:anthropic-us";
  record.attempts.push_back({"anthropic-us", "anthropic", 200, "ok", "", 812});
  record.is_streaming = random() % 2 == 0;
  record.status = 200;
  record.outcome = "ok";
  record.usage = {static_cast<int64_t>(random() % 5000), static_cast<int64_t>(random() % 1000), 0, 0, 0};
  record.cost_microdollars = static_cast<int64_t>(random() % 20000);
  record.latency_ms = 850;
  record.ttfb_ms = 240;
  record.upstream_ms = 840;
  return record;
}

}  // namespace

int main(int argc, char** argv) {
  std::string url;
  for (const char* name : {"SLUICE_DATABASE_URL", "SLUICE_TEST_DATABASE_URL"}) {
    if (url.empty() && std::getenv(name)) url = std::getenv(name);
  }
  size_t rows = 200000;
  int producers = 4;
  size_t batch_size = 500;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--database-url") url = argv[i + 1];
    else if (flag == "--rows") rows = std::stoul(argv[i + 1]);
    else if (flag == "--producers") producers = std::stoi(argv[i + 1]);
    else if (flag == "--batch-size") batch_size = std::stoul(argv[i + 1]);
    else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (url.empty()) {
    std::cerr << "audit_writer_bench: no --database-url (or SLUICE_DATABASE_URL / SLUICE_TEST_DATABASE_URL)\n";
    return 2;
  }
  const std::string database = "sluice_bench_" + std::to_string(std::random_device{}() % 1000000);
  const std::string bench_url = withDatabase(url, database);
  const std::string spool = (std::filesystem::temp_directory_path() / (database + ".spool")).string();
  try {
    {
      auto admin = store::connect(url);
      pqxx::nontransaction query(*admin);
      query.exec("CREATE DATABASE " + database);
    }
    {
      auto connection = store::connect(bench_url);
      store::applyMigrations(*connection, store::embeddedMigrations());
    }
    audit::WriterOptions options;
    options.database_url = bench_url;
    options.spool_path = spool;
    options.batch_size = batch_size;
    options.queue_capacity = 50000;
    audit::Writer writer(options);
    writer.start();
    const auto started = std::chrono::steady_clock::now();
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (int p = 0; p < producers; ++p) {
      threads.emplace_back([&] {
        std::mt19937_64 random{std::random_device{}()};
        for (;;) {
          const size_t sequence = next.fetch_add(1);
          if (sequence >= rows) return;
          while (writer.stats().queue_depth > options.queue_capacity - 1000) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          writer.submit(makeRecord(random, sequence));
        }
      });
    }
    for (auto& thread : threads) thread.join();
    writer.flush(std::chrono::minutes(10));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const auto stats = writer.stats();
    writer.stop();
    size_t counted = 0;
    {
      auto connection = store::connect(bench_url);
      pqxx::nontransaction query(*connection);
      counted = query.exec1("SELECT count(*) FROM ai_requests")[0].as<size_t>();
    }
    std::cout << "rows submitted:   " << rows << "\n"
              << "rows in postgres: " << counted << "\n"
              << "rows spooled:     " << stats.rows_spooled << "\n"
              << "batches:          " << stats.batches << " (avg " << (stats.batches ? stats.rows_written / stats.batches : 0)
              << " rows, last " << stats.last_flush_ms << " ms)\n"
              << "elapsed:          " << seconds << " s\n"
              << "sustained:        " << static_cast<long long>(static_cast<double>(counted) / seconds) << " rows/s\n";
    {
      auto admin = store::connect(url);
      pqxx::nontransaction query(*admin);
      query.exec("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
    std::filesystem::remove(spool);
    return counted == rows ? 0 : 1;
  } catch (const std::exception& error) {
    std::cerr << "audit_writer_bench: " << error.what() << "\n";
    try {
      auto admin = store::connect(url);
      pqxx::nontransaction query(*admin);
      query.exec("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    } catch (const std::exception&) {
    }
    return 1;
  }
}
