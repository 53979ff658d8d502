#include "cli/database_session.h"

#include <ostream>

#include "server/store/database.h"

namespace sluice::cli {

namespace {

// Opens `url`, or prints why not to `err` and returns the exit code in `code`.
std::unique_ptr<pqxx::connection> open(const std::string& url, std::ostream& err, int& code) {
  if (url.empty()) {
    err << "sluicectl: this command needs a database: --database-url URL or SLUICE_DATABASE_URL\n";
    code = 2;
    return nullptr;
  }
  try {
    return store::connect(url, 5);
  } catch (const std::exception& error) {
    err << "sluicectl: cannot connect to PostgreSQL at " << store::redactUrl(url) << ": " << error.what() << "\n";
    code = 1;
    return nullptr;
  }
}

int reported(std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const pqxx::undefined_table& error) {
    err << "sluicectl: the database is missing tables; run `sluicectl migrate` (" << error.what() << ")\n";
    return 1;
  } catch (const std::exception& error) {
    err << "sluicectl: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace

int withDatabase(const std::string& url, std::ostream& err, const std::function<int(pqxx::connection&)>& body) {
  int code = 0;
  auto connection = open(url, err, code);
  if (!connection) return code;
  return reported(err, [&] { return body(*connection); });
}

int withPool(const std::string& url, std::ostream& err,
             const std::function<int(const std::shared_ptr<store::ConnectionPool>&)>& body) {
  int code = 0;
  auto connection = open(url, err, code);
  if (!connection) return code;
  auto pool = std::make_shared<store::ConnectionPool>(url, store::PoolOptions{.max_connections = 1});
  pool->adopt(std::move(connection));
  return reported(err, [&] { return body(pool); });
}

}  // namespace sluice::cli
