#pragma once
// Data protection for one request (gateway.data_protection, docs/data-protection.md): decides, per
// attempt before it is bound, whether it is sent as the client wrote it, masked, or not at all.
// The same for every endpoint: what is masked is the profile's (Profile::maskOnce).
//
//   Raw      the endpoint's tier is local or trusted_raw, or the catalog declares no
//            data_protection: the client's body, byte for byte
//   Masked   trusted_masked or public: the request with every detected value replaced by a
//            placeholder (masked once per request, reused for every masked attempt); the answer is
//            restored with mapping() where the profile restores
//   Failed   a masked tier, but the profile could not mask the request (it does not decode, the
//            catalog has no detector, a masking limit was passed): the attempt is skipped
//   Blocked  a public endpoint, and the request holds a value of a `block:` kind: skipped
//
// Masking is bounded per request (protection::MaskLimits: bytes scanned, CPU time of the masking
// thread, values) and runs off the event loop for large bodies (kInlineMaskBytes).
// Reasons name what failed (a limit, a kind), never any of the request's text. The mapping holds
// the originals: it lives with the request and is never logged.
// Not thread-safe: one per request.

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "server/dispatch/attempt.h"
#include "server/protection/masker.h"

namespace sluice::pipeline {

class Profile;

class RequestProtection {
 public:
  enum class Verdict { Raw, Masked, Failed, Blocked };
  struct Decision {
    Verdict verdict = Verdict::Raw;
    std::string reason;  // Failed, Blocked: why, for the ledger and the refusal
  };

  // A body larger than this is masked on a compute thread (net::fiber::compute) while the
  // request's fiber waits, so the event loop goes on serving other connections (and /healthz);
  // smaller ones are masked in place, where the hand-over would cost more than the work.
  static constexpr size_t kInlineMaskBytes = 64 * 1024;

  // `catalog` and `profile` must outlive this object. `body_bytes`: the size of the body read
  // (what decides where it is masked).
  RequestProtection(const catalog::Catalog& catalog, Profile& profile, size_t body_bytes = 0)
      : catalog_(catalog), profile_(profile), body_bytes_(body_bytes) {}

  // What to do with `attempt`; has the profile mask the request on the first masked attempt.
  Decision decide(const dispatch::Attempt& attempt);

  // After a Masked decision: the placeholders to restore (nullptr with `restore: false`).
  const protection::Mapping* mapping() const;
  // Occurrences masked per kind (empty when nothing was masked or no masked attempt was decided).
  const std::map<protection::Kind, int>& counts() const;

  // Why the last Failed / Blocked decisions were taken ("" when none was): the refusal when no
  // attempt is left names them.
  const std::string& failedReason() const { return failed_reason_; }
  const std::string& blockedReason() const { return blocked_reason_; }

 private:
  void maskOnce();

  const catalog::Catalog& catalog_;
  Profile& profile_;
  size_t body_bytes_;
  bool tried_ = false;
  std::optional<protection::MaskResult> masked_;
  std::string failure_;        // why masking failed, once tried
  std::string blocked_kinds_;  // the `block:` kinds the request holds, "email, api_key"; "" = none
  std::string failed_reason_;
  std::string blocked_reason_;
};

}  // namespace sluice::pipeline
