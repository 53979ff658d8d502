#pragma once
// Sees the body bytes the client is sent, as they go (after the head, without chunk framing): how
// the gateway keeps what it answered without the relay knowing why.

#include <string_view>

namespace sluice::util {

class BodyTap {
 public:
  virtual ~BodyTap() = default;
  // Called on the connection's thread for each run of body bytes written; must not throw.
  virtual void bytes(std::string_view data) = 0;
};

}  // namespace sluice::util
