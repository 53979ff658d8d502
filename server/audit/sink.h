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
  // A request began or got further: `partial` is the row it leaves if the process dies before
  // submit() (outcome `interrupted`). Sinks that cannot outlive the process ignore it.
  virtual void begin(const Record& partial) noexcept { (void)partial; }
  // The request with this id began but leaves no row of its own (it is counted elsewhere).
  virtual void abandon(const std::string& id) noexcept { (void)id; }
};

}  // namespace sluice::audit
