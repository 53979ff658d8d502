#include "server/protection/json_texts.h"

#include <algorithm>
#include <array>
#include <functional>
#include <string>

namespace sluice::protection {

namespace {

constexpr std::array<std::string_view, 9> kPayloadKeys = {"image", "image_url", "url",       "data",  "b64_json",
                                                         "file",  "file_data", "input_audio", "audio"};

// Calls `visit` with every maskable string of `value`, in document order.
void eachText(wire::Json& value, std::span<const std::string_view> skip, const std::function<void(std::string&)>& visit) {
  if (value.is_string()) {
    visit(value.get_ref<std::string&>());
    return;
  }
  if (value.is_array()) {
    for (auto& item : value) eachText(item, skip, visit);
    return;
  }
  if (!value.is_object()) return;
  for (auto& [key, member] : value.items()) {
    const auto named = [&](std::string_view name) { return name == key; };
    if (std::ranges::any_of(skip, named) || std::ranges::any_of(kPayloadKeys, named)) continue;
    eachText(member, skip, visit);
  }
}

}  // namespace

std::expected<MaskResult, MaskFailure> maskJsonTexts(wire::Json& document, const Detector& detector,
                                                     std::span<const std::string_view> skip, const MaskLimits& limits) {
  Masker masker(detector, limits);
  bool failed = false;
  eachText(document, skip, [&](std::string& text) {
    if (!failed && !masker.reserve(text)) failed = true;
  });
  eachText(document, skip, [&](std::string& text) {
    if (!failed && !masker.mask(text)) failed = true;
  });
  if (failed) return std::unexpected(MaskFailure{masker.failure()});
  return masker.finish();
}

}  // namespace sluice::protection
