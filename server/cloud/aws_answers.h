#pragma once
// What the AWS credential sources answer, read defensively (pure: text in, values out), and the
// rules the chain follows that need no network: which container-credential URLs are allowed, and
// when temporary keys are refreshed. The fetching is aws_chain.h's.
//
// The answers (each body at most kMaxAnswerBytes; anything else is refused with a reason that
// never quotes a key):
//  - STS AssumeRole / AssumeRoleWithWebIdentity: XML, <Credentials> with <AccessKeyId>,
//    <SecretAccessKey>, <SessionToken>, <Expiration> (ISO 8601); an error is
//    <ErrorResponse><Error><Code/><Message/></Error>;
//  - the container endpoint (ECS, EKS Pod Identity): JSON {AccessKeyId, SecretAccessKey, Token,
//    Expiration};
//  - IMDSv2's security-credentials/<role>: the same JSON with "Code": "Success".

#include <chrono>
#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "server/upstream/sigv4.h"

namespace sluice::cloud {

constexpr size_t kMaxAnswerBytes = 64u << 10;

struct TemporaryKeys {
  upstream::aws::Credentials keys;
  std::optional<std::chrono::system_clock::time_point> expiration;  // nullopt: does not expire
};

// "2026-01-02T03:04:05Z", with optional fractional seconds and a Z or ±hh:mm offset.
std::optional<std::chrono::system_clock::time_point> parseIso8601(std::string_view text);

// An STS answer (`status` its HTTP status): the keys, or why not ("STS AssumeRole: AccessDenied:
// <message>", the message cut to 200 characters).
std::expected<TemporaryKeys, std::string> readStsAnswer(std::string_view action, int status, std::string_view body);

// A container-credential or IMDS answer: the keys, or why not. `source` names it in the reason.
std::expected<TemporaryKeys, std::string> readJsonKeys(std::string_view source, int status, std::string_view body);

// Whether AWS_CONTAINER_CREDENTIALS_FULL_URI may be asked: https anywhere, http only to a loopback
// address (127.0.0.0/8, ::1, localhost) or the link-local hosts ECS and EKS Pod Identity use
// (169.254.170.2, 169.254.170.23, fd00:ec2::23). "" when allowed, else why not.
std::string containerUrlRefusal(std::string_view url);

// How long before `expiration` keys fetched at `fetched_at` are refreshed: five minutes, or a
// quarter of their lifetime when that is shorter (keys that live 20 s are refreshed after 15 s).
std::chrono::system_clock::duration refreshLead(std::chrono::system_clock::time_point fetched_at,
                                                std::chrono::system_clock::time_point expiration);

// The form bodies of STS's Query API (Version 2011-06-15), values URL-encoded.
std::string assumeRoleWithWebIdentityBody(std::string_view role_arn, std::string_view session_name,
                                          std::string_view token);
std::string assumeRoleBody(std::string_view role_arn, std::string_view session_name);

}  // namespace sluice::cloud
