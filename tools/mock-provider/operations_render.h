#pragma once
// OpenAI's endpoints besides chat and responses, answered deterministically from the request so a
// test can predict every byte (but `created`): embeddings, image generations, speech,
// transcriptions and translations (multipart uploads), moderations, rerank. Pure.
// docs/mock-provider.md ("Other OpenAI endpoints") says what each answers.

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/render.h"
#include "tools/mock-provider/route.h"

namespace sluice::mock {

// The answer for `endpoint` (isOperation), or a 400 in OpenAI's shape when the body lacks what
// the endpoint needs. `seq` numbers ids; `created` is the answer's Unix time.
std::expected<Rendered, ErrorSpec> renderOperation(Endpoint endpoint, std::string_view content_type,
                                                   std::string_view body, std::uint64_t seq, std::int64_t created);

// The vector the mock gives `text`: `dimensions` numbers in [-1, 1] with 6 decimals, each from
// FNV-1a 64 of "<text>#<k>".
std::vector<double> mockEmbedding(std::string_view text, int dimensions);

// One field of a multipart/form-data body.
struct FormField {
  std::string name;
  std::optional<std::string> filename;
  std::string content_type;
  std::string value;
};
// The fields of a whole multipart/form-data body; nullopt when the Content-Type names no boundary
// or the body is not framed by it.
std::optional<std::vector<FormField>> parseMultipart(std::string_view content_type, std::string_view body);

}  // namespace sluice::mock
