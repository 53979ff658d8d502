#pragma once
// Waiting in a test for something another thread or process makes true, instead of sleeping a
// fixed time and hoping: the condition is polled until it holds or a deadline passes, so a quick
// machine goes on at once and a loaded one gets the whole deadline.
//
//   sluice::test::waitUntil([&] { return received(path) == 1; }, 5s, "the provider to get the request");
//
// Header-only, so a unit test uses it without linking sluice_test_support (and its Poco).

#include <chrono>
#include <source_location>
#include <string_view>
#include <thread>

#include <boost/test/unit_test.hpp>

namespace sluice::test {

// Calls `condition` (a callable returning something testable as bool) every `poll` until it holds
// or `timeout` has passed; true when it held. The condition is always asked once more at the
// deadline, so a slow poll cannot make it miss. No Boost.Test calls: safe on any thread.
template <class Condition>
bool pollUntil(Condition&& condition, std::chrono::steady_clock::duration timeout,
               std::chrono::steady_clock::duration poll = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return static_cast<bool>(condition());
    std::this_thread::sleep_for(poll);
  }
}

// pollUntil() on the test's own thread (Boost.Test assertions are not thread-safe), polling every
// 10 ms; when `condition` never holds the test case stops as with BOOST_REQUIRE, with a message
// naming the caller's file and line, the timeout and `what` ("waiting for <what>").
template <class Condition>
void waitUntil(Condition&& condition, std::chrono::milliseconds timeout, std::string_view what,
               std::source_location where = std::source_location::current()) {
  if (pollUntil(condition, timeout)) return;
  BOOST_FAIL(where.file_name() << ":" << where.line() << ": timed out after " << timeout.count()
                               << " ms waiting for " << what);
}

}  // namespace sluice::test
