#pragma once
// Gemini 3 checks thought signatures: the functionCall parts it signed must come back in the next
// request's history carrying that same thoughtSignature, on that same part, or the request is
// refused with 400 INVALID_ARGUMENT "Function call is missing a thought_signature in functionCall
// parts. ...". The mock keeps the same check, so a gateway that loses a signature, or puts it on
// another part, fails against the mock as it would against Gemini.
//
// What the mock signed is remembered per process: every Gemini answer it sends (rendered or
// replayed from a recording) is scanned for functionCall parts with a thoughtSignature, each
// keyed by the function's name and its position among the answer's calls. A later request's
// model turn whose call at that position has that name must carry one of the signatures handed
// out for it. Calls the mock never signed (history from another model, the gateway's
// "skip_thought_signature_validator") are not checked. Thread-safe.

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/mock-provider/error_spec.h"

namespace sluice::mock {

struct SignedCall {
  std::string name;
  int position = 0;  // among the answer's function calls, from 0
  std::string signature;
};

// The signed function calls of one Gemini answer: a generateContent body, a streamGenerateContent
// JSON array, or SSE text ("data: {...}" lines). A call streamed in pieces (Vertex partialArgs)
// counts once, signed when any of its pieces is.
std::vector<SignedCall> signedCalls(std::string_view answer);

// The signature the mock's own answers put on a function call: base64 of
// "sluice-mock-thought-signature/<model>/<seq>/<position>/<name>".
std::string mintCallSignature(std::string_view model, std::uint64_t seq, int position, std::string_view name);

class ThoughtSignatures {
 public:
  void remember(const std::vector<SignedCall>& calls);
  // Gemini's 400 for the first call of a model turn in `request_body` (contents[].parts[]) that
  // the mock signed and that comes back without one of its signatures ("Corrupted thought
  // signature." when it carries another one); nullopt when there is none. Signatures compare as
  // base64 in either alphabet, padding ignored (the google-genai SDK re-encodes them URL-safe).
  std::optional<ErrorSpec> check(std::string_view request_body) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::set<std::string>> issued_;  // (name, position) -> signatures
};

}  // namespace sluice::mock
