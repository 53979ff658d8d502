#pragma once
// The client address an audit row names (Record::client_address). Pure: text in, text out.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::audit {

inline constexpr size_t kMaxClientAddress = 64;

// `peer`: the connection's peer address as text ("" when unknown). `from_trusted_proxy`: that peer
// is one of gateway.trusted_proxies' addresses. `forwarded_for`: the request's X-Forwarded-For
// values as sent. Behind a trusted proxy, the last address of the last value (the one the proxy
// itself appended: anything before it is what the client claimed); otherwise, or when that entry
// is not an IP address, the peer. At most kMaxClientAddress bytes.
std::string clientAddress(std::string_view peer, bool from_trusted_proxy, const std::vector<std::string>& forwarded_for);

}  // namespace sluice::audit
