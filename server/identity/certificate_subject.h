#pragma once
// How a verified TLS client certificate (or a trusted proxy's header) names a member: the rules.
// A member declares one or more subjects (`sluicectl users add NAME --cert-subject ...`), each of
// one kind:
//
//   cn:VALUE      the certificate's subject common name equals VALUE (exactly)
//   uri:VALUE     one of its subjectAltName URIs equals VALUE (exactly), e.g. a SPIFFE id
//   email:VALUE   one of its subjectAltName e-mail addresses (or the subject's emailAddress)
//                 equals VALUE, compared without case; also what a trusted proxy's header is
//                 matched against with `match: email`
//
// A certificate maps to the member whose subject matches one of its names; a certificate whose
// names match two different members maps to none (ambiguous: refused). Pure: no I/O.

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::identity {

// Longest subject value kept; a certificate name longer than this matches nothing.
inline constexpr size_t kMaxSubjectValue = 512;
// Names of one certificate considered, per kind (SAN URIs, SAN e-mails); the rest are ignored.
inline constexpr size_t kMaxNamesPerKind = 16;

// What a verified certificate says about its holder, as the TLS layer read it.
struct CertificateNames {
  std::string common_name;          // the subject's CN ("" when none)
  std::vector<std::string> uris;    // subjectAltName URIs
  std::vector<std::string> emails;  // subjectAltName rfc822Names, then the subject's emailAddress
};

// A subject as an operator writes it ("cn:alice", "CN=alice", "uri:spiffe://corp/alice",
// "email:Alice@Corp.example") → its stored form ("cn:alice", "uri:…", "email:alice@corp.example").
// The error says what was expected; it may quote the text (a subject is not a secret).
std::expected<std::string, std::string> parseCertSubject(std::string_view text);

// The stored forms a certificate can match, in order: cn:, then each uri:, then each email:.
// Values that are empty, too long or hold control characters are left out; at most
// kMaxNamesPerKind of each SAN kind.
std::vector<std::string> subjectsOf(const CertificateNames& names);

// The stored form of an e-mail address a trusted proxy sent ("email:alice@corp.example"), or ""
// when it is not one address (empty, no or several '@', spaces, control characters, too long).
std::string emailSubject(std::string_view email);

}  // namespace sluice::identity
