#pragma once
// The identity tables behind their store interfaces, twice: in a fresh PostgreSQL scratch database
// (PgMemberRoster, PgKeyRegistry, PgCredentialLocker and PgKeyDirectory on one pool) and in memory
// (tests/fakes' FakeKeyDirectory, which is all four). Contract tests run the same case over both:
// BOOST_AUTO_TEST_CASE_TEMPLATE(name, Tables, test::IdentityBackends). The PostgreSQL one needs
// $SLUICE_TEST_DATABASE_URL and throws without it (these modules are labelled `integration`).

#include <memory>
#include <tuple>

#include "server/store/pg_credential_locker.h"
#include "server/store/pg_key_directory.h"
#include "server/store/pg_key_registry.h"
#include "server/store/pg_member_roster.h"
#include "tests/fakes/fake_key_directory.h"
#include "tests/server/store/scratch_database.h"

namespace sluice::test {

class PgIdentityTables {
 public:
  PgIdentityTables()
      : database_(std::make_unique<ScratchDatabase>()),
        pool_(std::make_shared<store::ConnectionPool>(database_->url())),
        members_(pool_),
        keys_(pool_),
        credentials_(pool_),
        directory_(std::make_shared<store::PgKeyDirectory>(pool_)) {}

  store::MemberRoster& members() { return members_; }
  store::KeyRegistry& keys() { return keys_; }
  store::CredentialLocker& credentials() { return credentials_; }
  // A directory over the same tables, on a pool of its own (as the gateway's is).
  std::shared_ptr<store::KeyDirectory> directory() { return directory_; }
  // The database, for what only SQL can show (the bytes stored); null in memory.
  const ScratchDatabase* database() const { return database_.get(); }

 private:
  std::unique_ptr<ScratchDatabase> database_;
  std::shared_ptr<store::ConnectionPool> pool_;
  store::PgMemberRoster members_;
  store::PgKeyRegistry keys_;
  store::PgCredentialLocker credentials_;
  std::shared_ptr<store::PgKeyDirectory> directory_;
};

class FakeIdentityTables {
 public:
  store::MemberRoster& members() { return *fake_; }
  store::KeyRegistry& keys() { return *fake_; }
  store::CredentialLocker& credentials() { return *fake_; }
  std::shared_ptr<store::KeyDirectory> directory() { return fake_; }
  const ScratchDatabase* database() const { return nullptr; }

 private:
  std::shared_ptr<fakes::FakeKeyDirectory> fake_ = std::make_shared<fakes::FakeKeyDirectory>();
};

using IdentityBackends = std::tuple<PgIdentityTables, FakeIdentityTables>;

}  // namespace sluice::test
