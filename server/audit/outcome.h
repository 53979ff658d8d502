#pragma once
// How a request ended, as a type: the request path names an Outcome, never a string, and the
// audit row and the metrics take its public name (audit::outcome::k…, docs/audit.md).

#include <string_view>

#include "server/audit/record.h"

namespace sluice::audit {

enum class Outcome {
  Ok,
  ClientGoneMidStream,
  ClientGoneBeforeResponse,
  UpstreamError,
  UpstreamTimeout,
  AllDeploymentsFailed,
  NoDeploymentAvailable,
  UnknownModel,
  RetiredModel,
  InvalidRequest,
  RequestTooLarge,
  ContextWindowExceeded,
  DataProtectionFailed,
  DataProtectionBlocked,
  Unauthenticated,
  AccessDenied,
  GovernanceDenied,
  QuotaExceeded,
  ShuttingDown,
  Overloaded,
  InternalError,
};

// The public name (column `outcome`, label `outcome`).
constexpr std::string_view toString(Outcome value) {
  switch (value) {
    case Outcome::Ok: return outcome::kOk;
    case Outcome::ClientGoneMidStream: return outcome::kClientGoneMidStream;
    case Outcome::ClientGoneBeforeResponse: return outcome::kClientGoneBeforeResponse;
    case Outcome::UpstreamError: return outcome::kUpstreamError;
    case Outcome::UpstreamTimeout: return outcome::kUpstreamTimeout;
    case Outcome::AllDeploymentsFailed: return outcome::kAllDeploymentsFailed;
    case Outcome::NoDeploymentAvailable: return outcome::kNoDeploymentAvailable;
    case Outcome::UnknownModel: return outcome::kUnknownModel;
    case Outcome::RetiredModel: return outcome::kRetiredModel;
    case Outcome::InvalidRequest: return outcome::kInvalidRequest;
    case Outcome::RequestTooLarge: return outcome::kRequestTooLarge;
    case Outcome::ContextWindowExceeded: return outcome::kContextWindowExceeded;
    case Outcome::DataProtectionFailed: return outcome::kDataProtectionFailed;
    case Outcome::DataProtectionBlocked: return outcome::kDataProtectionBlocked;
    case Outcome::Unauthenticated: return outcome::kUnauthenticated;
    case Outcome::AccessDenied: return outcome::kAccessDenied;
    case Outcome::GovernanceDenied: return outcome::kGovernanceDenied;
    case Outcome::QuotaExceeded: return outcome::kQuotaExceeded;
    case Outcome::ShuttingDown: return outcome::kShuttingDown;
    case Outcome::Overloaded: return outcome::kOverloaded;
    case Outcome::InternalError: return outcome::kInternalError;
  }
  return outcome::kInternalError;
}

}  // namespace sluice::audit
