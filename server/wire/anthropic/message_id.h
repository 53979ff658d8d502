#pragma once
// The id an Anthropic client is shown for a message.

#include <string>
#include <string_view>

namespace sluice::wire::anthropic {

// `ir_id` when it already is an Anthropic message id ("msg_..."); otherwise "msg_" followed by
// the gateway's request id (or by the provider's id when there is no request id), so the client
// always sees the shape it expects and the id leads back to the audit row.
std::string messageId(std::string_view ir_id, std::string_view request_id);

}  // namespace sluice::wire::anthropic
