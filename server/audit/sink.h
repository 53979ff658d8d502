#pragma once
// Where finished audit rows go. The Writer (PostgreSQL with a disk spool) is the one the gateway
// runs with; tests record rows in memory to count them.

#include "server/audit/record.h"

namespace sluice::audit {

class Sink {
 public:
  virtual ~Sink() = default;
  // Takes one finished row. Never throws, never drops it.
  virtual void submit(Record record) noexcept = 0;
  // A request began or got further: `so_far` is what its row holds yet. Should the process die
  // before submit(), the request leaves that row as `interrupted` (status 500, error
  // `replica_stopped`; appendInterruptedCopyLine()). Sinks that cannot outlive the process ignore it.
  virtual void begin(const Record& so_far) noexcept { (void)so_far; }
  // The request with this id began but leaves no row of its own (it is counted elsewhere).
  virtual void abandon(const std::string& id) noexcept { (void)id; }
};

}  // namespace sluice::audit
