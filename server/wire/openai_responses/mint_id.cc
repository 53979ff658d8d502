#include "server/wire/openai_responses/mint_id.h"

namespace sluice::wire::openai_responses {

namespace {

std::string cleanId(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    out.push_back(keep ? c : '_');
  }
  return out;
}

}  // namespace

std::string mintId(std::string_view prefix, std::string_view request_id) {
  return std::string(prefix) + "_" + cleanId(request_id);
}

std::string mintId(std::string_view prefix, std::string_view request_id, size_t index) {
  return mintId(prefix, request_id) + "_" + std::to_string(index);
}

}  // namespace sluice::wire::openai_responses
