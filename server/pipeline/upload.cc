#include "server/pipeline/upload.h"

#include <algorithm>
#include <istream>

#include "server/http/request.h"
#include "server/http/server_request.h"

namespace sluice::pipeline {

using namespace http;  // NOTE: the front end's request, response and helpers, as before the move

namespace {

// One read from the client: large enough to keep an upload moving, small enough to hold per request.
constexpr size_t kPiece = 64u << 10;

}  // namespace

Upload::Upload(Request& request, std::string boundary, size_t max_bytes, BodyBudget::Lease& lease)
    : request_(request), boundary_(std::move(boundary)), max_bytes_(max_bytes), lease_(lease) {
  if (request_.head().hasContentLength()) {
    declared_ = static_cast<uint64_t>(std::max<Poco::Int64>(0, request_.head().getContentLength64()));
  }
}

bool Upload::readPiece(std::string& piece) {
  if (ended_) return false;
  std::istream& in = request_.head().stream();
  size_t want = kPiece;
  if (declared_) want = static_cast<size_t>(std::min<uint64_t>(want, *declared_ - std::min(*declared_, read_)));
  if (want == 0) {
    ended_ = true;
    return false;
  }
  const size_t at = piece.size();
  piece.resize(at + want);
  in.read(piece.data() + at, static_cast<std::streamsize>(want));
  const auto got = static_cast<size_t>(in.gcount());
  piece.resize(at + got);
  read_ += got;
  if (got == 0) ended_ = true;
  return got > 0;
}

std::optional<wire::ApiError> Upload::endedBadly() const {
  const BodyReader& reader = request_.head().body();
  if (reader.failed() || (declared_ && read_ < *declared_)) {
    return wire::ApiError::make(408, wire::error_keys::kRequestTimeout, "the request body stopped before its end");
  }
  return std::nullopt;
}

std::expected<void, wire::ApiError> Upload::readHead() {
  const auto tooLarge = [&] {
    return wire::ApiError::make(413, wire::error_keys::kRequestTooLarge,
                                "request body exceeds " + std::to_string(max_bytes_) + " bytes");
  };
  if (declared_ && *declared_ > max_bytes_) return std::unexpected(tooLarge());
  if (!lease_.grow(kPiece)) {
    return std::unexpected(wire::ApiError::make(503, wire::error_keys::kOverloaded,
                                                "the gateway holds too many request bodies right now; retry shortly"));
  }
  wire::MultipartModelRewriter scan(boundary_, std::nullopt);
  std::string piece;
  for (;;) {
    piece.clear();
    if (!readPiece(piece)) break;
    if (read_ > max_bytes_) return std::unexpected(tooLarge());
    if (!lease_.grow(piece.size())) {
      return std::unexpected(wire::ApiError::make(503, wire::error_keys::kOverloaded,
                                                  "the gateway holds too many request bodies right now; retry shortly"));
    }
    held_ += piece;
    if (auto fed = scan.feed(piece, nullptr); !fed) return std::unexpected(wire::ApiError::invalidRequest(fed.error()));
    if (scan.model()) break;
  }
  if (ended_) {
    if (auto bad = endedBadly()) return std::unexpected(*bad);
    if (auto finished = scan.finish(); !finished) {
      return std::unexpected(wire::ApiError::invalidRequest(finished.error()));
    }
    whole_ = true;
  }
  if (!scan.model() || scan.model()->empty()) {
    return std::unexpected(wire::ApiError::invalidRequest("the form has no 'model' field", "model"));
  }
  model_ = *scan.model();
  return {};
}

std::expected<std::string, wire::ApiError> Upload::beginAttempt(const std::string& upstream_model) {
  rewriter_.emplace(boundary_, upstream_model);
  std::string body;
  body.reserve(held_.size() + upstream_model.size());
  if (auto fed = rewriter_->feed(held_, &body); !fed) return std::unexpected(wire::ApiError::invalidRequest(fed.error()));
  if (whole_) {
    if (auto finished = rewriter_->finish(); !finished) {
      return std::unexpected(wire::ApiError::invalidRequest(finished.error()));
    }
  }
  return body;
}

std::optional<uint64_t> Upload::length() const {
  if (!declared_) return std::nullopt;
  return *declared_ - std::min<uint64_t>(*declared_, held_.size());
}

bool Upload::next(std::string& out) {
  for (;;) {
    piece_.clear();
    if (!readPiece(piece_)) {
      if (auto bad = endedBadly()) throw UploadFailed(*bad, true);
      if (auto finished = rewriter_->finish(); !finished) {
        throw UploadFailed(wire::ApiError::invalidRequest(finished.error()), false);
      }
      return false;
    }
    started_ = true;
    if (read_ > max_bytes_) {
      throw UploadFailed(wire::ApiError::make(413, wire::error_keys::kRequestTooLarge,
                                              "request body exceeds " + std::to_string(max_bytes_) + " bytes"),
                         false);
    }
    const size_t before = out.size();
    if (auto fed = rewriter_->feed(piece_, &out); !fed) {
      throw UploadFailed(wire::ApiError::invalidRequest(fed.error()), false);
    }
    if (out.size() > before) return true;
  }
}

}  // namespace sluice::pipeline
