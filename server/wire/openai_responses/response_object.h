#pragma once
// The `response` object a Responses client reads, both as the non-streamed body and inside the
// response.created / in_progress / completed / incomplete / failed events. Fields the gateway
// does not know about the original request (instructions, tools, sampling) are the API's
// defaults or null; clients read status, output, usage and error.

#include <string>
#include <string_view>

#include "server/wire/codec.h"

namespace sluice::wire::openai_responses {

struct ResponseShape {
  std::string id;                 // "resp_..."
  std::string status;             // "in_progress" | "completed" | "incomplete" | "failed"
  std::string incomplete_reason;  // set with status "incomplete"
  Json error;                     // {code, message} with status "failed"; null otherwise
  Json output = Json::array();
  Json usage;                     // usageJson(...) or null
};

Json responseObject(const ResponseContext& context, const ResponseShape& shape);

// The response id shown to the client: minted from the gateway's request id, or `fallback` when
// there is none.
std::string responseIdFor(const ResponseContext& context, std::string_view fallback);

}  // namespace sluice::wire::openai_responses
