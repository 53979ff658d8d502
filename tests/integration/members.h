#pragma once
// Members and their API keys for tests against the real gateway and PostgreSQL, made the way an
// operator makes them: with `sluicectl users add` and `keys create`.

#include <string>

namespace sluice::test {

struct TestMember {
  std::string name;
  std::string key;  // sk-sluice-…
};

// A new member (a name no earlier run used: members persist in the test database) with `role`
// ("member" or "admin") and one key; `flags` are more `users add` flags ("--group contractors").
// Fails the test when sluicectl does.
TestMember newMember(const std::string& base, const std::string& role = "member", const std::string& flags = "");

}  // namespace sluice::test
