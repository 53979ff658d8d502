#pragma once
// PostgreSQL access shared by the server and the CLI: opening connections with the options every
// caller wants (a bounded connect time, an application name, UTC, TCP keepalives).

#include <memory>
#include <string>

#include <pqxx/pqxx>

namespace sluice::store {

// `url` (a postgres:// URI or a "key=value …" string) with connect_timeout, application_name and
// TCP keepalive options added unless it already names them.
std::string connectionString(const std::string& url, int connect_timeout_seconds = 3);

// Opens a connection (connectionString) and sets TimeZone to UTC. Throws pqxx::broken_connection
// when PostgreSQL is unreachable, pqxx::failure on other errors.
std::unique_ptr<pqxx::connection> connect(const std::string& url, int connect_timeout_seconds = 3);

// True when a connection to `url` can be opened and answers `SELECT 1` within a few seconds.
// Never throws; `error` receives the reason on failure.
bool ping(const std::string& url, std::string* error = nullptr);

// `url` with its password replaced by "***", for messages and logs.
std::string redactUrl(const std::string& url);

}  // namespace sluice::store
