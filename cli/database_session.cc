#include "cli/database_session.h"

#include <ostream>

#include "server/store/database.h"

namespace sluice::cli {

int withDatabase(const std::string& url, std::ostream& err, const std::function<int(pqxx::connection&)>& body) {
  if (url.empty()) {
    err << "sluicectl: this command needs a database: --database-url URL or SLUICE_DATABASE_URL\n";
    return 2;
  }
  std::unique_ptr<pqxx::connection> connection;
  try {
    connection = store::connect(url, 5);
  } catch (const std::exception& error) {
    err << "sluicectl: cannot connect to PostgreSQL at " << store::redactUrl(url) << ": " << error.what() << "\n";
    return 1;
  }
  try {
    return body(*connection);
  } catch (const pqxx::undefined_table& error) {
    err << "sluicectl: the database is missing tables; run `sluicectl migrate` (" << error.what() << ")\n";
    return 1;
  } catch (const std::exception& error) {
    err << "sluicectl: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace sluice::cli
