#pragma once
// A fresh PostgreSQL database for one test module: CREATE DATABASE sluice_t_<random> on the server
// of $SLUICE_TEST_DATABASE_URL, DROP … WITH (FORCE) when destroyed. Modules therefore run in
// parallel without seeing each other's rows. Throws std::runtime_error when the variable is unset
// or the server unreachable (these tests are labelled `integration`: they need PostgreSQL).

#include <memory>
#include <string>

#include <pqxx/pqxx>

namespace sluice::test {

class ScratchDatabase {
 public:
  // `migrate`: apply the built-in migrations after creating it.
  explicit ScratchDatabase(bool migrate = true);
  ~ScratchDatabase();
  ScratchDatabase(const ScratchDatabase&) = delete;
  ScratchDatabase& operator=(const ScratchDatabase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& url() const { return url_; }
  std::unique_ptr<pqxx::connection> connect() const;

  // One value from a query, as text ("" for NULL).
  std::string scalar(const std::string& sql) const;

 private:
  std::string admin_url_;
  std::string name_;
  std::string url_;
};

// $SLUICE_TEST_DATABASE_URL; throws when unset.
std::string testDatabaseUrl();
// `url` pointing at database `name` instead (URI or key=value form).
std::string withDatabaseName(const std::string& url, const std::string& name);

}  // namespace sluice::test
