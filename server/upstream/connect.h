#pragma once
// Opening a connection to a provider. Internal to the upstream client.

#include <memory>

#include "server/upstream/link.h"
#include "server/upstream/url.h"

namespace sluice::upstream {

// Connects to `target` within `timeout_ms`: the host is resolved (on a helper thread when on a
// fiber: DNS may take long), every address it resolves to is tried in order, and the socket gets
// TCP_NODELAY and the fiber or blocking mode of the calling thread. For https the TLS handshake
// completes within the same time (tls.h). Throws TransportError{Connect} when the name does not
// resolve, no address accepts or the time runs out; {Tls} from the handshake.
std::unique_ptr<Link> connectTo(const Target& target, int timeout_ms);

}  // namespace sluice::upstream
