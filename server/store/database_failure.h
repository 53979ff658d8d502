#pragma once
// Which environment failure of the database an exception from a store stands for, so a caller
// outside server/store can answer it (the console's 503s) without knowing the driver's types.

#include <exception>
#include <optional>

namespace sluice::store {

enum class DatabaseFailure {
  Unreachable,  // PostgreSQL cannot be reached (a broken or refused connection)
  Busy,         // every pooled connection stayed leased (PoolExhausted)
};

// nullopt when `error` is not one of these (a bug, a constraint, bad SQL: a 500).
std::optional<DatabaseFailure> databaseFailureOf(const std::exception& error);

}  // namespace sluice::store
