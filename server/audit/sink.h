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
};

}  // namespace sluice::audit
