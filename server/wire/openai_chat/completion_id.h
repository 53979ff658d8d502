#pragma once
// The "chatcmpl-..." id shown to Chat clients.

#include <string>
#include <string_view>

#include "server/wire/codec.h"

namespace sluice::wire::openai_chat {

// "chatcmpl-<request id>" so the client's id leads back to the gateway's logs and audit row.
// Without a request id: the provider's id when it already looks like one, else "chatcmpl-" + it.
std::string completionId(const ResponseContext& context, std::string_view provider_id);

}  // namespace sluice::wire::openai_chat
