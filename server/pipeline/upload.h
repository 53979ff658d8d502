#pragma once
// The client's multipart upload on /v1/audio/transcriptions and /v1/audio/translations, streamed
// to the provider rather than held whole: the body is read only as far as its `model` field (those
// bytes are held, within the request's size limit and the process-wide body budget), the plan is
// made from that model, and then each attempt sends the held bytes with the model rewritten,
// followed by the rest of the upload as it arrives (wire::MultipartModelRewriter rewriting on the
// way, so a second `model` field or an oversized part header still fails the request).
//
// A body that ended within the held bytes is whole: any number of attempts may send it (failover
// as for JSON bodies). Otherwise the rest can be sent once: after an attempt has taken streamed
// bytes (started()), no other attempt may follow.
// Not thread-safe: one per request, on its thread or fiber.

#include <cstdint>
#include <expected>
#include <optional>
#include <stdexcept>
#include <string>

#include "server/http/body_budget.h"
#include "server/upstream/transport.h"
#include "server/wire/api_error.h"
#include "server/wire/multipart.h"
#include "server/pipeline/http_types.h"

namespace sluice::pipeline {


// Thrown by the upload's BodySource while an attempt streams it: the client's side failed (it
// left, stopped, sent more than the limit or a malformed body). Never a TransportError, so the
// provider is not blamed; `client_gone` when the client is no longer there to answer.
class UploadFailed : public std::runtime_error {
 public:
  UploadFailed(wire::ApiError error, bool client_gone)
      : std::runtime_error(error.message), error_(std::move(error)), client_gone_(client_gone) {}
  const wire::ApiError& error() const { return error_; }
  bool clientGone() const { return client_gone_; }

 private:
  wire::ApiError error_;
  bool client_gone_;
};

class Upload : public upstream::BodySource {
 public:
  // The held bytes and the piece buffer are taken from `lease`; the body may be at most
  // `max_bytes` in all. `request` and `lease` must outlive the upload.
  Upload(Request& request, std::string boundary, size_t max_bytes, BodyBudget::Lease& lease);

  // Reads up to the end of the model field's part (or of the body). The refusal: 413 over the
  // limit, 503 overloaded when the budget has no room, 408 when the body stopped short, 400 for a
  // malformed body or one without a `model` field.
  std::expected<void, wire::ApiError> readHead();
  const std::string& model() const { return model_; }
  bool whole() const { return whole_; }
  bool started() const { return started_; }

  // The bytes an attempt sends first (the held ones, model rewritten to `upstream_model`); when
  // the upload is not whole this BodySource then produces the rest for that attempt. 400 when
  // the held body is malformed (whole bodies are checked to their end).
  std::expected<std::string, wire::ApiError> beginAttempt(const std::string& upstream_model);

  // upstream::BodySource, for the attempt begun last. next() throws UploadFailed.
  std::optional<uint64_t> length() const override;
  bool next(std::string& out) override;

 private:
  // Reads one piece of the client's body into `piece`; false at its end.
  bool readPiece(std::string& piece);
  // The refusal for a body that ended, or nothing when it ended well.
  std::optional<wire::ApiError> endedBadly() const;

  Request& request_;
  std::string boundary_;
  size_t max_bytes_;
  BodyBudget::Lease& lease_;
  std::optional<uint64_t> declared_;  // the client's Content-Length
  std::string held_;
  uint64_t read_ = 0;                 // client bytes read so far
  std::string model_;
  bool whole_ = false;
  bool started_ = false;
  bool ended_ = false;
  std::optional<wire::MultipartModelRewriter> rewriter_;  // of the attempt begun last
  std::string piece_;
};

}  // namespace sluice::pipeline
