#pragma once
// What the readiness check asks of the database once a second: does it answer, and (every few
// checks) this replica's heartbeat row for the console's fleet view; and that view's read of the
// heartbeats. The verdicts, the logging and
// the timing are boot::startReadinessCheck's (server/boot/readiness.h).
//
// Implementations: PgDatabaseCheck, tests/fakes/fake_database_check.h. Thread-safe.

#include <chrono>
#include <string>
#include <vector>

namespace sluice::store {

struct ReplicaBeat {
  std::string name;             // --replica-name
  std::string catalog_version;  // the catalog it serves
  std::chrono::system_clock::time_point started_at;
  bool draining = false;
};

// A replica as its latest heartbeat describes it.
struct ReplicaSeen {
  std::string name;
  std::string catalog_version;
  double seen_seconds_ago = 0;
  double up_seconds = 0;
  bool draining = false;
};

class DatabaseCheck {
 public:
  virtual ~DatabaseCheck() = default;
  // Returns when the database answered; throws (the reason) when it did not.
  virtual void ping() = 0;
  // Records `beat` as the replica's latest (and forgets replicas silent for a day). Throws on failure.
  virtual void heartbeat(const ReplicaBeat& beat) = 0;
  // The replicas heard from within the last minute, by name. Throws on failure.
  virtual std::vector<ReplicaSeen> replicas() = 0;
};

}  // namespace sluice::store
