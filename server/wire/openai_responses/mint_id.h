#pragma once
// Deterministic ids for what the gateway shows a Responses client. Pure.

#include <cstddef>
#include <string>
#include <string_view>

namespace sluice::wire::openai_responses {

// "<prefix>_<request id>[_<index>]" with every character outside [A-Za-z0-9_-] replaced by '_'.
std::string mintId(std::string_view prefix, std::string_view request_id);
std::string mintId(std::string_view prefix, std::string_view request_id, size_t index);

}  // namespace sluice::wire::openai_responses
