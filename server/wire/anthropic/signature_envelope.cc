#include "server/wire/anthropic/signature_envelope.h"

namespace sluice::wire::anthropic {

namespace {
constexpr std::string_view kPrefix = "sluice:";
}  // namespace

std::string wrapSignature(std::optional<catalog::Wire> wire, std::string_view reasoning_id, std::string_view payload) {
  if (!wire || *wire == catalog::Wire::Anthropic) return std::string(payload);
  std::string wrapped(kPrefix);
  wrapped += catalog::toString(*wire);
  wrapped += ':';
  wrapped += reasoning_id;
  wrapped += ':';
  wrapped += payload;
  return wrapped;
}

UnwrappedSignature unwrapSignature(std::string_view text) {
  UnwrappedSignature plain{catalog::Wire::Anthropic, {}, std::string(text)};
  if (!text.starts_with(kPrefix)) return plain;
  std::string_view rest = text.substr(kPrefix.size());
  const auto wire_end = rest.find(':');
  if (wire_end == std::string_view::npos) return plain;
  const auto wire = catalog::parseWire(rest.substr(0, wire_end));
  if (!wire || *wire == catalog::Wire::Anthropic) return plain;
  rest.remove_prefix(wire_end + 1);
  const auto id_end = rest.find(':');
  if (id_end == std::string_view::npos) return plain;
  return UnwrappedSignature{wire, std::string(rest.substr(0, id_end)), std::string(rest.substr(id_end + 1))};
}

}  // namespace sluice::wire::anthropic
