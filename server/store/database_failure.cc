#include "server/store/database_failure.h"

#include "server/store/connection_pool.h"

namespace sluice::store {

std::optional<DatabaseFailure> databaseFailureOf(const std::exception& error) {
  if (dynamic_cast<const pqxx::broken_connection*>(&error) != nullptr) return DatabaseFailure::Unreachable;
  if (dynamic_cast<const PoolExhausted*>(&error) != nullptr) return DatabaseFailure::Busy;
  return std::nullopt;
}

}  // namespace sluice::store
