#include "server/identity/certificate_subject.h"

#include <boost/test/unit_test.hpp>

namespace sluice::identity {
namespace {

BOOST_AUTO_TEST_SUITE(certificate_subject)

BOOST_AUTO_TEST_CASE(subjects_are_stored_in_one_form_per_kind) {
  BOOST_TEST(parseCertSubject("cn:alice").value() == "cn:alice");
  BOOST_TEST(parseCertSubject("CN=alice").value() == "cn:alice");  // OpenSSL's spelling
  BOOST_TEST(parseCertSubject("CN:Alice Smith").value() == "cn:Alice Smith");  // a CN keeps its case
  BOOST_TEST(parseCertSubject("uri:spiffe://corp.example/ns/ml/sa/batch").value() ==
             "uri:spiffe://corp.example/ns/ml/sa/batch");
  BOOST_TEST(parseCertSubject("URI:spiffe://corp/Alice").value() == "uri:spiffe://corp/Alice");
  BOOST_TEST(parseCertSubject("email:Alice@Corp.Example").value() == "email:alice@corp.example");
}

BOOST_AUTO_TEST_CASE(other_texts_are_refused_with_what_was_expected) {
  for (std::string_view bad : {"alice", "dn:CN=alice", "cn:", "email:", "email:alice", "email:a@b@c", "email:@corp",
                               "email:alice @corp.example", "ou:engineering"}) {
    const auto parsed = parseCertSubject(bad);
    BOOST_TEST(!parsed.has_value(), bad);
  }
  BOOST_TEST(parseCertSubject("alice").error().find("expected cn:NAME") != std::string::npos);
  BOOST_TEST(!parseCertSubject("cn:al\nice").has_value());
  BOOST_TEST(!parseCertSubject("cn:" + std::string(kMaxSubjectValue + 1, 'a')).has_value());
  BOOST_TEST(parseCertSubject("cn:" + std::string(kMaxSubjectValue, 'a')).has_value());
}

BOOST_AUTO_TEST_CASE(a_certificate_offers_its_cn_then_uris_then_emails) {
  CertificateNames names;
  names.common_name = "alice";
  names.uris = {"spiffe://corp/alice"};
  names.emails = {"Alice@Corp.Example", "alice@corp.example"};  // the same address twice: once
  const std::vector<std::string> expected = {"cn:alice", "uri:spiffe://corp/alice", "email:alice@corp.example"};
  BOOST_TEST(subjectsOf(names) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_stored_subject_matches_the_same_certificate_name) {
  // What `users add --cert-subject` stores is exactly what subjectsOf() offers for that name.
  CertificateNames names;
  names.common_name = "build-bot";
  names.emails = {"Bot@CI.example"};
  const auto offered = subjectsOf(names);
  for (std::string_view written : {"CN=build-bot", "cn:build-bot", "email:bot@ci.example", "EMAIL:BOT@CI.EXAMPLE"}) {
    const auto stored = parseCertSubject(written);
    BOOST_REQUIRE(stored.has_value());
    BOOST_TEST((std::find(offered.begin(), offered.end(), *stored) != offered.end()), written);
  }
  BOOST_TEST((std::find(offered.begin(), offered.end(), parseCertSubject("cn:Build-Bot").value()) == offered.end()));
}

BOOST_AUTO_TEST_CASE(unusable_names_offer_nothing_and_many_are_bounded) {
  CertificateNames names;
  names.common_name = std::string("ali\x01") + "ce";
  names.emails = {"not-an-address", ""};
  BOOST_TEST(subjectsOf(names).empty());
  for (int i = 0; i < 40; ++i) names.uris.push_back("urn:example:" + std::to_string(i));
  BOOST_TEST(subjectsOf(names).size() == kMaxNamesPerKind);
}

BOOST_AUTO_TEST_CASE(a_proxy_email_header_is_matched_as_an_email_subject) {
  BOOST_TEST(emailSubject("Alice@Corp.Example") == "email:alice@corp.example");
  BOOST_TEST(emailSubject("alice").empty());
  BOOST_TEST(emailSubject("alice@corp.example, bob@corp.example").empty());
  BOOST_TEST(emailSubject("").empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::identity
