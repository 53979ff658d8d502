#include "tests/server/store/scratch_database.h"

#include <cstdlib>
#include <random>
#include <stdexcept>

#include "server/store/database.h"
#include "server/store/migrations.h"

namespace sluice::test {

std::string testDatabaseUrl() {
  const char* url = std::getenv("SLUICE_TEST_DATABASE_URL");
  if (!url || !*url) {
    throw std::runtime_error("SLUICE_TEST_DATABASE_URL is not set; run `source scripts/setup.sh` (starts PostgreSQL)");
  }
  return url;
}

std::string withDatabaseName(const std::string& url, const std::string& name) {
  if (url.starts_with("postgres://") || url.starts_with("postgresql://")) {
    const size_t slash = url.find('/', url.find("://") + 3);
    if (slash == std::string::npos) return url + "/" + name;
    const size_t query = url.find('?', slash);
    return url.substr(0, slash + 1) + name + (query == std::string::npos ? "" : url.substr(query));
  }
  return url + " dbname=" + name;
}

ScratchDatabase::ScratchDatabase(bool migrate) : admin_url_(testDatabaseUrl()) {
  std::random_device seed;
  std::mt19937_64 random{(static_cast<uint64_t>(seed()) << 32) ^ seed()};
  name_ = "sluice_t_" + std::to_string(random() % 1'000'000'000'000ULL);
  url_ = withDatabaseName(admin_url_, name_);
  {
    auto admin = store::connect(admin_url_);
    pqxx::nontransaction query(*admin);
    query.exec("CREATE DATABASE " + name_);
  }
  if (migrate) {
    auto connection = store::connect(url_);
    store::applyMigrations(*connection, store::embeddedMigrations());
  }
}

ScratchDatabase::~ScratchDatabase() {
  try {
    auto admin = store::connect(admin_url_);
    pqxx::nontransaction query(*admin);
    query.exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  } catch (const std::exception&) {
    // NOTE: a leftover sluice_t_* database is harmless; the next setup does not reuse names.
  }
}

std::unique_ptr<pqxx::connection> ScratchDatabase::connect() const { return store::connect(url_); }

std::string ScratchDatabase::scalar(const std::string& sql) const {
  auto connection = connect();
  pqxx::nontransaction query(*connection);
  const auto row = query.exec1(sql);
  return row[0].is_null() ? std::string() : row[0].as<std::string>();
}

}  // namespace sluice::test
