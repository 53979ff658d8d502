#include "server/protection/detectors.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace sluice::protection {
namespace {

const std::set<Kind> kAll = {Kind::Email,    Kind::Phone,    Kind::PaymentCard,    Kind::Iban,     Kind::ApiKey, Kind::Jwt,
                             Kind::PrivateKey, Kind::Password, Kind::UrlCredentials, Kind::IpAddress};

const Detector& all() {
  static const Detector detector = *Detector::create(kAll, {});
  return detector;
}

// "kind:value" for each span found, in order.
std::vector<std::string> found(std::string_view text, const Detector& detector = all()) {
  std::vector<std::string> out;
  for (const Span& span : detector.find(text)) {
    out.push_back(std::string(toString(span.kind)) + ":" + std::string(text.substr(span.offset, span.length)));
  }
  return out;
}

std::string one(std::string_view kind, std::string_view value) { return std::string(kind) + ":" + std::string(value); }

void expectOne(std::string_view text, std::string_view kind, std::string_view value) {
  const std::vector<std::string> spans = found(text);
  BOOST_TEST(spans.size() == 1u, text);
  if (spans.size() == 1) BOOST_TEST(spans[0] == one(kind, value), text);
}

void expectNone(std::string_view text) {
  const std::vector<std::string> spans = found(text);
  BOOST_TEST(spans.empty(), text << " -> " << (spans.empty() ? "" : spans[0]));
}

BOOST_AUTO_TEST_SUITE(detectors)

BOOST_AUTO_TEST_CASE(kinds_read_and_write_their_catalog_spelling) {
  for (int k = 0; k < kKindCount; ++k) {
    const Kind kind = static_cast<Kind>(k);
    BOOST_TEST((kindFromString(toString(kind)) == kind));
  }
  BOOST_TEST(toString(Kind::PaymentCard) == "payment_card");
  BOOST_TEST(toString(Kind::UrlCredentials) == "url_credentials");
  BOOST_TEST(toString(Kind::Vault) == "vault");
  BOOST_TEST(!kindFromString("Email").has_value());
  BOOST_TEST(!kindFromString("credit_card").has_value());
}

BOOST_AUTO_TEST_CASE(emails_in_text_code_and_headers) {
  expectOne("Contact alice@example.com for access.", "email", "alice@example.com");
  expectOne("From: \"Bob\" <bob.smith+alerts@mail.corp.example.co.uk>", "email", "bob.smith+alerts@mail.corp.example.co.uk");
  expectOne("user = 'j_doe-99@sub-domain.io'", "email", "j_doe-99@sub-domain.io");
  expectOne("mailto:SUPPORT@EXAMPLE.ORG.", "email", "SUPPORT@EXAMPLE.ORG");
  expectOne("reply to ops%team@internal.corp: thanks", "email", "ops%team@internal.corp");
  expectOne("https://api.example.com/v1/users/carol@example.net/roles", "email", "carol@example.net");
  expectOne("(dave@startup.dev)", "email", "dave@startup.dev");
}

BOOST_AUTO_TEST_CASE(things_with_an_at_sign_that_are_not_emails) {
  expectNone("git@github.com:acme/widgets.git");
  expectNone("ssh://git@github.com/acme/widgets.git");
  expectNone("npm i @types/node @babel/core@7.24.0 lodash@4.17.21");
  expectNone("@app.route('/health')\ndef health(): ...");
  expectNone("icon@2x.png icon@3x.png");
  expectNone("y = x@w.T  # matmul");
  expectNone("out = weights@self.proj.weight");
  expectNone("image: nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31");
  expectNone("user@localhost");
  expectNone("a@b.c and foo@bar..com and .x@y.zz.");
  expectNone("https://alice@example.com/path");
}

BOOST_AUTO_TEST_CASE(phones_in_international_and_national_forms) {
  expectOne("call +1 415 555 2671 now", "phone", "+1 415 555 2671");
  expectOne("tel:+442079460958", "phone", "+442079460958");
  expectOne("Phone: +44 (0)20 7946 0958.", "phone", "+44 (0)20 7946 0958");
  expectOne("+49-30-901820 (Berlin)", "phone", "+49-30-901820");
  expectOne("Office: (555) 123-4567", "phone", "(555) 123-4567");
  BOOST_TEST(found("cell 555-123-4567, home 1-800-555-0199 (free)") ==
             (std::vector<std::string>{"phone:555-123-4567", "phone:1-800-555-0199"}));
  expectOne("London office 020 7946 0958", "phone", "020 7946 0958");
  expectOne("Tel. 0171 123 4567", "phone", "0171 123 4567");
}

BOOST_AUTO_TEST_CASE(numbers_that_are_not_phones) {
  expectNone("5551234567");                       // a bare run of digits
  expectNone("id=4155552671 count=12345678");
  expectNone("version 10.15.7 build 2024-01-15");  // versions and dates
  expectNone("2024-01-15T12:30:45.123+00:00");
  expectNone("555 123 4567");  // spaced 3-3-4: a table row as often as a phone
  expectNone("listen 0.0.0.0:8080; upstream :443");
  expectNone("var_555_123_4567 = 1");
  expectNone("x = y +12;");
  expectNone("1e+10 and 3.0e-12");
  expectNone("(123) 456-7890");  // area code 1xx does not exist
  expectNone("550e8400-e29b-41d4-a716-446655440000");
  expectNone("12345678-1234-1234-1234-123456789012");
  expectNone("deadline: 12/05/2024 14:30");
}

BOOST_AUTO_TEST_CASE(payment_cards_pass_luhn_with_a_known_issuer) {
  expectOne("card 4111 1111 1111 1111 exp 12/29", "payment_card", "4111 1111 1111 1111");
  expectOne("4111-1111-1111-1111", "payment_card", "4111-1111-1111-1111");
  expectOne("pan=5555555555554444;", "payment_card", "5555555555554444");
  expectOne("amex 3782 822463 10005", "payment_card", "3782 822463 10005");
  expectOne("\"371449635398431\"", "payment_card", "371449635398431");
  expectOne("Discover 6011111111111117", "payment_card", "6011111111111117");
  expectOne("JCB 3530111333300000", "payment_card", "3530111333300000");
  expectOne("MC2 2223003122003222", "payment_card", "2223003122003222");
  expectOne("Diners 30569309025904", "payment_card", "30569309025904");
  expectOne("Visa13 4222222222222", "payment_card", "4222222222222");
}

BOOST_AUTO_TEST_CASE(card_shaped_numbers_failing_a_check_are_left) {
  expectNone("4111 1111 1111 1112");  // Luhn fails
  expectNone("5555555555554445");
  expectNone("1234567812345670");      // Luhn passes, no issuer starts with 1
  expectNone("9999999999999995");      // nor with 9
  expectNone("41111111111111111111");  // 20 digits
  expectNone("4111 11111 111 1111");   // not a card grouping
  expectNone("ts=1700000000000000 seq=4111111111111111000");
}

BOOST_AUTO_TEST_CASE(ibans_pass_mod_97) {
  expectOne("IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX", "iban", "DE89 3704 0044 0532 0130 00");
  expectOne("GB82WEST12345698765432", "iban", "GB82WEST12345698765432");
  expectOne("iban: FR1420041010050500013M02606", "iban", "FR1420041010050500013M02606");
  expectOne("NL91ABNA0417164300.", "iban", "NL91ABNA0417164300");
  expectOne("CH93 0076 2011 6238 5295 7", "iban", "CH93 0076 2011 6238 5295 7");
}

BOOST_AUTO_TEST_CASE(iban_shaped_strings_failing_the_checksum_are_left) {
  expectNone("DE89 3704 0044 0532 0130 01");
  expectNone("GB82WEST12345698765433");
  expectNone("DE8937040044053201300");    // one character short
  expectNone("DE893704004405320130000");  // one too many
  expectNone("XX89370400440532013000");   // no such country
  expectNone("ID12345678901234567890");
}

BOOST_AUTO_TEST_CASE(api_keys_of_the_major_vendors) {
  const std::string anthropic = "sk-ant-api03-" + std::string("Xb3kQ9vT2mLp8RzW4nYc6HdF1sJgA7eK0uVoBqNiC5xZtMyE") +
                                "-_aB12cD34eF56gH78iJ90kL12mN34oP56qR78sT90uV12wX-AbCdEfAA";
  expectOne("ANTHROPIC_API_KEY=" + anthropic, "api_key", anthropic);
  expectOne("Authorization: Bearer sk-proj-Qw3rTy8UiOp1AsDfGh5JkLzXcVbNm0QwErTy_uIoP2aS-dFg", "api_key",
            "sk-proj-Qw3rTy8UiOp1AsDfGh5JkLzXcVbNm0QwErTy_uIoP2aS-dFg");
  expectOne("openai.api_key = \"sk-1234567890abcdefghijklmnopqrstuvwxyzABCDEF\"", "api_key",
            "sk-1234567890abcdefghijklmnopqrstuvwxyzABCDEF");
  expectOne("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "api_key", "AKIAIOSFODNN7EXAMPLE");
  expectOne("ASIAY34FZKBOKMUTVV7A", "api_key", "ASIAY34FZKBOKMUTVV7A");
  expectOne("token: ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ", "api_key", "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ");
  expectOne("GITHUB_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
            "api_key", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
  expectOne("glpat-xY7z2AbCdEfGhIjKlMn0", "api_key", "glpat-xY7z2AbCdEfGhIjKlMn0");
  expectOne("SLACK_BOT_TOKEN=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "api_key",
            "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx");
  expectOne("stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "api_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc");
  expectOne("rk_live_51H8a2bC3d4E5f6G7h8I9j0K", "api_key", "rk_live_51H8a2bC3d4E5f6G7h8I9j0K");
  expectOne("key=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW&q=x", "api_key", "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW");
}

BOOST_AUTO_TEST_CASE(key_prefixes_in_ordinary_words_are_left) {
  expectNone("pip install scikit-learn sk-learn; import sklearn");
  expectNone("task-sk-1234567890abcdefghijklmnop");   // inside a longer token
  expectNone("sk-my-very-long-hyphenated-name-v2");  // no random stretch
  expectNone("AKIAIOSFODNN7EXAMPLE1");               // 21 characters
  expectNone("ghp_short");
  expectNone("xoxb-not-a-token");
  expectNone("pk_test_TYooMQauvdEDq54NiTphI7jx");  // a publishable test key is public
}

BOOST_AUTO_TEST_CASE(jwts_have_three_parts) {
  const std::string token =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
      "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
  expectOne("Authorization: Bearer " + token, "jwt", token);
  expectOne("{\"id_token\":\"" + token + "\"}", "jwt", token);
  const std::string unsigned_token = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyMTIzIn0.";
  expectOne("t=" + unsigned_token + " ", "jwt", unsigned_token);
  expectNone("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");                  // one part: base64 JSON
  expectNone("eyJhbGciOiJIUzI1NiJ9.c29tZSBkYXRh.c2lnbmF0dXJl");       // second part is no JSON
}

BOOST_AUTO_TEST_CASE(pem_private_keys_are_masked_whole) {
  const std::string key =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n"
      "aNFx0QvLJnM9rF0kN0yJY3CmE4fwp1qV5Qk6CPk=\n-----END RSA PRIVATE KEY-----";
  expectOne("key.pem:\n" + key + "\ntrailing", "private_key", key);
  const std::string escaped =
      "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----";
  expectOne("{\"private_key\": \"" + escaped + "\\n\"}", "private_key", escaped);
  const std::string openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n";
  expectOne(openssh + "\nnext paragraph", "private_key",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ");
  expectNone("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUd\n-----END CERTIFICATE-----");
  expectNone("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYI\n-----END PUBLIC KEY-----");
}

BOOST_AUTO_TEST_CASE(password_values_after_their_key) {
  expectOne("DB_PASSWORD=hunter2", "password", "hunter2");
  expectOne("password: 'c0rrect horse'", "password", "c0rrect horse");
  expectOne("{\"password\": \"s3cr3t!\", \"user\": \"bob\"}", "password", "s3cr3t!");
  expectOne("{\\\"password\\\": \\\"s3cr3t!\\\"}", "password", "s3cr3t!");
  expectOne("jdbc:postgresql://db/app?user=app&password=Tr0ub4dor&ssl=true", "password", "Tr0ub4dor");
  expectOne("Server=db;Uid=app;Pwd=Winter2024!;", "password", "Winter2024!");
  expectOne("client_secret: 9f8e7d6c5b4a", "password", "9f8e7d6c5b4a");
  expectOne("  passwd = \"letmein\"", "password", "letmein");
  expectOne("'password' => 'hunter22',", "password", "hunter22");
  expectOne("password := \"gopher42\"", "password", "gopher42");
  expectOne("--password=p4ss", "password", "p4ss");
}

BOOST_AUTO_TEST_CASE(password_placeholders_and_code_are_left) {
  expectNone("password=");
  expectNone("password: \"\"");
  expectNone("DB_PASSWORD=${DB_PASSWORD}");
  expectNone("password: <your-password>");
  expectNone("password: ********");
  expectNone("secret: {{ .Values.secret }}");
  expectNone("password = getpass.getpass()");
  expectNone("password = os.environ[\"DB_PASSWORD\"]");
  expectNone("conn = connect(user=user, password=password, host=host)");
  expectNone("def login(username: str, password: str) -> bool:");
  expectNone("password: string;");
  expectNone("const { password: hashedPassword } = req.body;");
  expectNone("if password == \"\":\n    raise ValueError");
  expectNone("Password: the one you chose at sign-up");
  expectNone("PWD=/home/dev/project");
  expectNone("password: null");
  expectNone("kind: Secret\nmetadata:\n  name: db-credentials");
  expectNone("self.password = password");
}

BOOST_AUTO_TEST_CASE(credentials_in_urls) {
  expectOne("DATABASE_URL=postgres://app:Sup3rS3cret@db.internal:5432/app", "url_credentials", "app:Sup3rS3cret");
  expectOne("redis://:p4ssw0rd@cache:6379/0", "url_credentials", ":p4ssw0rd");
  expectOne("https://user:p@ss@example.com/x", "url_credentials", "user:p@ss");
  expectOne("amqp://guest:guest@rabbit/", "url_credentials", "guest:guest");
  expectNone("https://example.com/a@b");
  expectNone("postgres://app@db/app");
  expectNone("postgres://app:${DB_PASSWORD}@db/app");
  // The host after credentials is an address of its own.
  BOOST_TEST(found("mysql://root:toor@10.1.2.3:3306/db") ==
             (std::vector<std::string>{"url_credentials:root:toor", "ip_address:10.1.2.3"}));
}

BOOST_AUTO_TEST_CASE(ip_addresses_v4_and_v6) {
  expectOne("connect to 10.0.12.7:5432", "ip_address", "10.0.12.7");
  BOOST_TEST(found("X-Forwarded-For: 203.0.113.195, 70.41.3.18") ==
             (std::vector<std::string>{"ip_address:203.0.113.195", "ip_address:70.41.3.18"}));
  expectOne("http://192.168.1.20/admin", "ip_address", "192.168.1.20");
  expectOne("ssh deploy@172.16.4.2", "ip_address", "172.16.4.2");
  expectOne("addr 2001:db8:85a3::8a2e:370:7334 up", "ip_address", "2001:db8:85a3::8a2e:370:7334");
  expectOne("[fe80::1ff:fe23:4567:890a]:8080", "ip_address", "fe80::1ff:fe23:4567:890a");
  expectOne("2001:0db8:0000:0000:0000:ff00:0042:8329", "ip_address", "2001:0db8:0000:0000:0000:ff00:0042:8329");
  expectOne("mapped ::ffff:192.0.2.128 ok", "ip_address", "::ffff:192.0.2.128");
}

BOOST_AUTO_TEST_CASE(dotted_and_colon_numbers_that_are_not_addresses) {
  expectNone("version 1.2.3.4");
  expectNone("v1.2.3.4 and 1.2.3.4.5 and 256.1.1.1 and 01.02.03.04");
  expectNone("Mozilla/5.0 (X11) Chrome/120.0.0.0 Safari/537.36");
  expectNone("listen 0.0.0.0 and 127.0.0.1 and 255.255.255.0");
  expectNone("numpy==1.26.4.1");
  expectNone("at 12:30:45 and 23:59:59.999");
  expectNone("mac 00:1a:2b:3c:4d:5e");
  expectNone("std::vector<int> a; Foo::bar(); x[1::2]; y[::2]; dead::beef");
  expectNone("::1 and ::");
  expectNone("1.3.6.1.4.1.2021");  // an OID
}

BOOST_AUTO_TEST_CASE(vault_entries_match_exactly_and_as_whole_words) {
  const auto detector = Detector::create({}, {"Acme Corp", "db-prod-7.internal", "Zoë Müller", "ACME"});
  BOOST_TEST_REQUIRE(detector.has_value());
  BOOST_TEST(found("Ticket from Acme Corp: db-prod-7.internal down", *detector) ==
             (std::vector<std::string>{"vault:Acme Corp", "vault:db-prod-7.internal"}));
  BOOST_TEST(found("ACME and acme and ACMEs and XACME", *detector) == (std::vector<std::string>{"vault:ACME"}));
  BOOST_TEST(found("Kontakt: Zoë Müller.", *detector) == (std::vector<std::string>{"vault:Zoë Müller"}));
  BOOST_TEST(found("acme corp", *detector).empty());
}

BOOST_AUTO_TEST_CASE(vaults_are_refused_when_malformed) {
  BOOST_TEST(!Detector::create({}, {"x"}).has_value());
  BOOST_TEST(!Detector::create({}, {"bad\xC3"}).has_value());
  BOOST_TEST(!Detector::create({}, {std::string(kMaxVaultEntryBytes + 1, 'a')}).has_value());
  const auto refused = Detector::create({}, {"ok entry", "secret\xFF"});
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().find("secret") == std::string::npos);  // the entry is not echoed
  BOOST_TEST(parseVault("# names\nAcme Corp\r\n\n  Globex  \n#x\n") == (std::vector<std::string>{"Acme Corp", "Globex"}));
}

BOOST_AUTO_TEST_CASE(only_enabled_kinds_are_found) {
  const auto emails = Detector::create({Kind::Email}, {});
  BOOST_TEST_REQUIRE(emails.has_value());
  BOOST_TEST(found("a@example.com 10.0.0.1 4111111111111111 password=x1", *emails) ==
             (std::vector<std::string>{"email:a@example.com"}));
  const auto none = Detector::create({}, {});
  BOOST_TEST(none->empty());
  BOOST_TEST(none->find("a@example.com").empty());
}

BOOST_AUTO_TEST_CASE(overlaps_keep_the_first_then_the_longest_then_the_first_kind) {
  std::vector<Span> spans = {{Kind::Password, 10, 5}, {Kind::ApiKey, 10, 5}, {Kind::Email, 2, 9}, {Kind::Phone, 30, 2},
                             {Kind::Vault, 31, 8}};
  resolveOverlaps(spans);
  BOOST_TEST((spans == std::vector<Span>{{Kind::Email, 2, 9}, {Kind::Phone, 30, 2}}));
  spans = {{Kind::Password, 10, 5}, {Kind::ApiKey, 10, 5}};
  resolveOverlaps(spans);
  BOOST_TEST((spans == std::vector<Span>{{Kind::ApiKey, 10, 5}}));
}

BOOST_AUTO_TEST_CASE(many_kinds_in_one_env_file) {
  const std::string env =
      "APP_ENV=production\nDB_HOST=10.20.30.40\nDB_PASSWORD=Qx7!pLm2\nOPENAI_API_KEY=sk-proj-AbCdEf0123456789GhIjKlMnOp\n"
      "ADMIN_EMAIL=root@acme-corp.com\nSENTRY_DSN=https://abc123:def456@o123.ingest.sentry.io/42\nPORT=8080\n";
  const std::vector<std::string> spans = found(env);
  for (const std::string& span : spans) BOOST_TEST_MESSAGE(span);
  BOOST_TEST(spans == (std::vector<std::string>{"ip_address:10.20.30.40", "password:Qx7!pLm2",
                                                     "api_key:sk-proj-AbCdEf0123456789GhIjKlMnOp",
                                                     "email:root@acme-corp.com", "url_credentials:abc123:def456"}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::protection
