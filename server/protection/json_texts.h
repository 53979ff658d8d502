#pragma once
// Masking the texts of a JSON document that is not a chat request: the body of an embeddings,
// moderations, images, speech or rerank call. Every string value is masked, at any depth, except
// what is not text a person wrote: the values of the members named in `skip` (the model, enum-like
// options), file and media payloads ("image", "image_url", "url", "data", "b64_json", "file",
// "file_data", "audio"), whole. A string elsewhere is text even when it starts "data:" (only a data
// URL under a media key is a payload, and those keys are skipped whole). Keys are never touched.
// Pure.

#include <expected>
#include <span>
#include <string_view>

#include "server/protection/masker.h"
#include "server/wire/ir.h"

namespace sluice::protection {

// Masks `document` in place, the strings visited in document order (numbering as maskRequest()
// numbers: the client's own ⟦KIND_N⟧ texts are reserved first). On failure (a limit passed) the
// document is left partly masked and must not be sent.
std::expected<MaskResult, MaskFailure> maskJsonTexts(wire::Json& document, const Detector& detector,
                                                     std::span<const std::string_view> skip,
                                                     const MaskLimits& limits = {});

}  // namespace sluice::protection
