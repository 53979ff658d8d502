#pragma once
// multipart/form-data bodies (uploads to /v1/audio/transcriptions and /v1/audio/translations)
// relayed as they arrive, with only the `model` field's value rewritten. Pure: bytes in, bytes out,
// fed in pieces of any size (a piece may end anywhere: inside a delimiter, a header, the value).
//
//   MultipartModelRewriter scan(boundary, std::nullopt);     // finds the client's model
//   MultipartModelRewriter rewrite(boundary, "whisper-1");   // the same body, model rewritten
//   rewrite.feed(piece, &out);  …  rewrite.finish();
//
// Memory is bounded whatever arrives: a part's header block (limits.max_header_bytes) and the
// model value (limits.max_model_bytes) are the only bytes held; the rest passes at once.

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::wire {

struct MultipartLimits {
  size_t max_header_bytes = 16u << 10;  // one part's header block
  size_t max_model_bytes = 1024;        // the model field's value
  size_t max_parts = 1000;
};

// The boundary of a `multipart/form-data` Content-Type (quoted or not); nullopt when the type is
// something else, or the boundary is missing or not 1–70 of RFC 2046's boundary characters.
std::optional<std::string> multipartBoundary(std::string_view content_type);

class MultipartModelRewriter {
 public:
  // `replacement`: the value the `model` field gets; nullopt only reads (the output is the input).
  MultipartModelRewriter(std::string_view boundary, std::optional<std::string> replacement,
                         MultipartLimits limits = {});

  // Consumes `in` and appends what is ready to `out` (null: nothing kept): every byte as it came
  // except the model field's value, held until its part ends and then replaced. The error (a
  // message for the client) when the body is malformed, a part's headers or the model value are
  // too long, there are too many parts, a part's Content-Disposition is ambiguous (dispositionName)
  // or a second field is named `model` (isModelField); after an error every call returns it again.
  std::expected<void, std::string> feed(std::string_view in, std::string* out);
  // At the end of the body: the error when the closing delimiter never came (or feed() failed).
  std::expected<void, std::string> finish() const;

  // The client's model value, once the model field's part has ended.
  const std::optional<std::string>& model() const { return model_; }
  // The closing delimiter was read (what follows is the epilogue).
  bool closed() const { return state_ == State::Epilogue; }
  size_t consumed() const { return consumed_; }

 private:
  enum class State { Preamble, AfterDelimiter, Headers, Content, Epilogue };
  std::unexpected<std::string> fail(std::string message);
  std::expected<void, std::string> startPart();

  std::string delimiter_;  // CRLF "--" boundary
  std::optional<std::string> replacement_;
  MultipartLimits limits_;
  State state_ = State::Preamble;
  size_t matched_ = 2;     // delimiter bytes matched; the body may open with "--boundary" (no CRLF)
  std::string after_;      // bytes after a delimiter, up to the CRLF that opens the headers
  std::string header_;     // the part's header block so far
  bool holding_ = false;   // inside the model field's value
  std::string value_;      // the model value so far (with any delimiter bytes matched after it)
  bool model_named_ = false;
  std::optional<std::string> model_;
  size_t parts_ = 0;
  size_t consumed_ = 0;
  std::optional<std::string> failed_;
};

// The `name` parameter of a part's Content-Disposition in its header block (CRLF-separated
// lines, names compared without case); nullopt when there is none. Readers disagree on anything
// ambiguous, so a provider could read another name than the gateway did: the error (a message
// for the client) when the block has more than one Content-Disposition line, a folded line, more
// than one `name` parameter (also counted as any reader might, quotes or not) or an encoded
// `name*=` (RFC 7578 §4.2 forbids it).
std::expected<std::optional<std::string>, std::string> dispositionName(std::string_view header_block);

// Whether a field named `name` is the model field: `model` in any case, blanks around it ignored
// (a provider may fold case or trim; either way it must not read a second model).
bool isModelField(std::string_view name);

}  // namespace sluice::wire
