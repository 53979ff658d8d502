#include "server/wire/anthropic/message_id.h"

namespace sluice::wire::anthropic {

std::string messageId(std::string_view ir_id, std::string_view request_id) {
  if (ir_id.starts_with("msg_")) return std::string(ir_id);
  std::string id = "msg_";
  if (!request_id.empty()) {
    id += request_id;
  } else if (!ir_id.empty()) {
    id += ir_id;
  } else {
    id += "0";
  }
  return id;
}

}  // namespace sluice::wire::anthropic
