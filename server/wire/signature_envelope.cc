#include "server/wire/signature_envelope.h"

namespace sluice::wire {

namespace {

constexpr std::string_view kPrefix = "sluice:";

}  // namespace

std::string wrapSignature(catalog::Wire client, std::optional<catalog::Wire> wire, std::string_view reasoning_id,
                          std::string_view payload) {
  if (!wire || *wire == client) return std::string(payload);
  std::string out(kPrefix);
  out += catalog::toString(*wire);
  out += ':';
  out += reasoning_id;
  out += ':';
  out += payload;
  return out;
}

UnwrappedSignature unwrapSignature(catalog::Wire client, std::string_view text) {
  UnwrappedSignature plain{client, {}, std::string(text), false};
  if (!text.starts_with(kPrefix)) return plain;
  std::string_view rest = text.substr(kPrefix.size());
  const auto wire_end = rest.find(':');
  if (wire_end == std::string_view::npos) return plain;
  const auto wire = catalog::parseWire(rest.substr(0, wire_end));
  if (!wire || *wire == client) return plain;
  rest.remove_prefix(wire_end + 1);
  const auto id_end = rest.find(':');
  if (id_end == std::string_view::npos) return plain;
  return UnwrappedSignature{*wire, std::string(rest.substr(0, id_end)), std::string(rest.substr(id_end + 1)), true};
}

}  // namespace sluice::wire
