#include "server/wire/openai_responses/signature_envelope.h"

namespace sluice::wire::openai_responses {

namespace {

constexpr std::string_view kPrefix = "sluice:";

}  // namespace

std::string wrapSignature(std::optional<catalog::Wire> wire, std::string_view reasoning_id, std::string_view payload) {
  if (!wire || *wire == catalog::Wire::OpenAIResponses) return std::string(payload);
  std::string out(kPrefix);
  out += catalog::toString(*wire);
  out += ':';
  out += reasoning_id;
  out += ':';
  out += payload;
  return out;
}

UnwrappedSignature unwrapSignature(std::string_view text) {
  UnwrappedSignature plain;
  plain.payload = std::string(text);
  if (!text.starts_with(kPrefix)) return plain;
  std::string_view rest = text.substr(kPrefix.size());
  const auto wire_end = rest.find(':');
  if (wire_end == std::string_view::npos) return plain;
  const auto wire = catalog::parseWire(rest.substr(0, wire_end));
  if (!wire || *wire == catalog::Wire::OpenAIResponses) return plain;
  rest = rest.substr(wire_end + 1);
  const auto id_end = rest.find(':');
  if (id_end == std::string_view::npos) return plain;
  UnwrappedSignature out;
  out.wire = *wire;
  out.reasoning_id = std::string(rest.substr(0, id_end));
  out.payload = std::string(rest.substr(id_end + 1));
  out.wrapped = true;
  return out;
}

}  // namespace sluice::wire::openai_responses
