#pragma once
// How every database command of sluicectl opens PostgreSQL and reports failures, so the exit codes
// agree: no URL is invalid input (2); an unreachable or failing database is a runtime failure (1).

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include <pqxx/pqxx>

#include "server/store/connection_pool.h"

namespace sluice::cli {

enum class OutputFormat { Text, Json, Csv };

// Connects to `url` and returns what `body` returns. Prints to `err` and returns 2 when `url` is
// empty, 1 when connecting or any query fails (the message names the database, password hidden).
int withDatabase(const std::string& url, std::ostream& err, const std::function<int(pqxx::connection&)>& body);

// The same, for commands that go through server/store's interfaces: the connection is handed over
// as a pool of one (it reconnects once if PostgreSQL restarts meanwhile).
int withPool(const std::string& url, std::ostream& err,
             const std::function<int(const std::shared_ptr<store::ConnectionPool>&)>& body);

}  // namespace sluice::cli
