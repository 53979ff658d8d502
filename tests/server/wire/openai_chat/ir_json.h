#pragma once
// IR values as JSON, so tests can compare whole requests and responses and print the difference.

#include "server/wire/ir.h"

namespace sluice::wire::openai_chat::testing {

Json toJson(const ContentBlock& block);
Json toJson(const Request& request);
Json toJson(const Response& response);

}  // namespace sluice::wire::openai_chat::testing
