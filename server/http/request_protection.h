#pragma once
// Data protection for one request (gateway.data_protection, docs/data-protection.md): decides, per
// attempt at bind time, whether it is sent as the client wrote it, masked, or not at all.
//
//   Raw      the endpoint's tier is local or trusted_raw, or the catalog declares no
//            data_protection: today's path, byte for byte
//   Masked   trusted_masked or public: the request's IR with every detected value replaced by a
//            placeholder (masked once per request, reused for every masked attempt), encoded for
//            the endpoint's wire; the answer is restored with mapping()
//   Failed   a masked tier, but the body does not decode into the IR, the catalog has no
//            detector, or a masking limit was passed: the attempt is skipped (fails closed)
//   Blocked  a public endpoint, and the request holds a value of a `block:` kind: skipped
//
// Reasons name what failed (a limit, a kind), never any of the request's text. The masked request
// and the mapping hold the originals' placeholders and the originals themselves: they live with
// the request and are never logged.
// Not thread-safe: one per request.

#include <map>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "server/dispatch/attempt.h"
#include "server/http/client_body.h"
#include "server/protection/masker.h"

namespace sluice::http {

class RequestProtection {
 public:
  enum class Verdict { Raw, Masked, Failed, Blocked };
  struct Decision {
    Verdict verdict = Verdict::Raw;
    std::string reason;  // Failed, Blocked: why, for the ledger and the refusal
  };

  // `catalog` and `body` must outlive this object.
  RequestProtection(const catalog::Catalog& catalog, ClientBody& body) : catalog_(catalog), body_(body) {}

  // What to do with `attempt`; masks the request on the first masked attempt.
  Decision decide(const dispatch::Attempt& attempt);

  // After a Masked decision: the masked request, and the placeholders to restore (nullptr with
  // `restore: false`).
  const wire::Request& maskedRequest() const { return masked_->request; }
  const protection::Mapping* mapping() const;
  // Occurrences masked per kind (empty when nothing was masked or no masked attempt was decided).
  const std::map<protection::Kind, int>& counts() const;

  // Why the last Failed / Blocked decisions were taken ("" when none was): the refusal when no
  // attempt is left names them.
  const std::string& failedReason() const { return failed_reason_; }
  const std::string& blockedReason() const { return blocked_reason_; }

 private:
  struct Masked {
    wire::Request request;
    protection::MaskResult result;
  };
  void maskOnce();

  const catalog::Catalog& catalog_;
  ClientBody& body_;
  bool tried_ = false;
  std::optional<Masked> masked_;
  std::string failure_;       // why masking failed, once tried
  std::string blocked_kinds_; // the `block:` kinds the request holds, "email, api_key"; "" = none
  std::string failed_reason_;
  std::string blocked_reason_;
};

}  // namespace sluice::http
