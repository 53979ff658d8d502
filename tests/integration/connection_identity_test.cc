// Identity from the connection, end to end: the real gateway serving HTTPS (--tls-cert, --tls-key,
// --client-ca) in front of the mock provider and a real PostgreSQL, driven by a real TLS client
// (curl with OpenSSL). Certificates are made at run time with the openssl command line in a
// temporary directory: a client CA, client certificates it signed, and a foreign CA's certificate.

#define BOOST_TEST_MODULE connection_identity_tests
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::auditRow;
using sluice::test::capture;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;
namespace fs = std::filesystem;

// CallOptions are written with designated initializers naming only what a call sets.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace {

const std::string kMessages = R"({"model":"claude-haiku-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";

std::string unique(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000) + "-" +
         std::to_string(counter++);
}

std::string run(const std::string& command) {
  int code = -1;
  std::string out = capture(command + " 2>&1", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, command + "\n" + out);
  return out;
}

std::string sluicectl(const std::string& args, int* code) {
  return capture(sluice::test::binPath("sluicectl") + " --database-url '" + testDatabaseUrl() + "' " + args + " 2>&1",
                 code);
}

std::string lastLine(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const size_t at = text.rfind('\n');
  return at == std::string::npos ? text : text.substr(at + 1);
}

// The certificates of one test run. Private keys live only in the temporary directory.
struct Pki {
  fs::path dir;
  std::string server_cert, server_key;  // for 127.0.0.1 (self-signed; the client trusts it)
  std::string client_ca;                // the CA the gateway trusts for clients

  Pki() {
    dir = fs::temp_directory_path() / unique("sluice-tls");
    fs::create_directories(dir);
    const std::string d = dir.string();
    server_cert = d + "/server.pem";
    server_key = d + "/server.key";
    client_ca = d + "/client-ca.pem";
    run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 "
        "-addext subjectAltName=IP:127.0.0.1 -keyout " + server_key + " -out " + server_cert);
    makeCa("client-ca");
    makeCa("foreign-ca");
  }
  ~Pki() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  void makeCa(const std::string& name) {
    const std::string d = dir.string();
    run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj '/CN=" + name +
        "' -keyout " + d + "/" + name + ".key -out " + d + "/" + name + ".pem");
  }

  // A client certificate for `cn` (with optional SANs, "URI:…,email:…") signed by `ca`; returns the
  // path prefix: PREFIX.pem and PREFIX.key.
  std::string client(const std::string& cn, const std::string& ca = "client-ca", const std::string& san = "") {
    const std::string d = dir.string();
    const std::string prefix = d + "/" + unique("client");
    std::ofstream(prefix + ".ext") << "extendedKeyUsage=clientAuth\n" << (san.empty() ? "" : "subjectAltName=" + san + "\n");
    run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj '/CN=" + cn + "' -keyout " + prefix +
        ".key -out " + prefix + ".csr");
    run("openssl x509 -req -days 2 -in " + prefix + ".csr -CA " + d + "/" + ca + ".pem -CAkey " + d + "/" + ca +
        ".key -CAcreateserial -extfile " + prefix + ".ext -out " + prefix + ".pem");
    return prefix;
  }
};

Pki& pki() {
  static Pki instance;
  return instance;
}

// A copy of the shipped catalog with `lines` added under `gateway:`.
std::string catalogWith(const std::string& lines) {
  const fs::path dir = fs::temp_directory_path() / unique("sluice-it-tls-catalog");
  fs::copy(sluice::test::sourceDir() + "/services", dir, fs::copy_options::recursive);
  std::ifstream in(dir / "ai/gateway.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string anchor = "gateway:\n";
  const size_t at = yaml.find(anchor);
  BOOST_REQUIRE(at != std::string::npos);
  yaml.insert(at + anchor.size(), lines);
  std::ofstream(dir / "ai/gateway.yaml") << yaml;
  return dir.string();
}

GatewayOptions tlsOptions(const std::string& identity_lines) {
  GatewayOptions options;
  options.auth = true;
  options.services = catalogWith(identity_lines);
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/" + unique("sluice-it-tls-spool"), "--tls-cert", pki().server_cert, "--tls-key",
                        pki().server_key, "--client-ca", pki().client_ca, "--head-timeout-ms", "1500"};
  return options;
}

struct Reply {
  int exit_code = -1;  // curl's: 0 when an HTTP answer came back
  int status = 0;      // 0 when none did
  std::string body;
  std::string headers;
  std::string transcript;  // curl's diagnostics

  std::string header(const std::string& name) const {
    std::istringstream lines(headers);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.size() > name.size() && strncasecmp(line.c_str(), name.c_str(), name.size()) == 0 &&
          line[name.size()] == ':') {
        std::string value = line.substr(name.size() + 1);
        while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
        while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
        return value;
      }
    }
    return "";
  }
  json parsed() const { return json::parse(body); }
};

struct CallOptions {
  std::string certificate;  // PREFIX of Pki::client, "" for none
  std::string interface;    // the source address, "" for the default (127.0.0.1)
  std::vector<std::pair<std::string, std::string>> headers;
  std::string method = "POST";
  std::string body = kMessages;
};

// One HTTPS request with curl: the server's certificate is verified against the test's own.
Reply call(Gateway& gateway, const std::string& path, const CallOptions& options) {
  const std::string d = pki().dir.string();
  const std::string id = unique("call");
  const std::string body_file = d + "/" + id + ".body";
  const std::string out_file = d + "/" + id + ".out";
  const std::string head_file = d + "/" + id + ".head";
  std::ofstream(body_file) << options.body;
  std::string command = "curl -sS --max-time 15 --cacert " + pki().server_cert + " -o " + out_file + " -D " +
                        head_file + " -w '%{http_code}' -X " + options.method;
  if (!options.certificate.empty()) {
    command += " --cert " + options.certificate + ".pem --key " + options.certificate + ".key";
  }
  if (!options.interface.empty()) command += " --interface " + options.interface;
  for (const auto& [name, value] : options.headers) command += " -H '" + name + ": " + value + "'";
  if (options.method == "POST") command += " -H 'Content-Type: application/json' --data-binary @" + body_file;
  command += " https://127.0.0.1:" + std::to_string(gateway.process().port()) + path + " 2>" + d + "/" + id + ".err";
  Reply reply;
  const std::string code = capture(command, &reply.exit_code);
  reply.status = std::atoi(code.c_str());
  std::ifstream out(out_file), head(head_file), err(d + "/" + id + ".err");
  std::stringstream body, headers, transcript;
  body << out.rdbuf();
  headers << head.rdbuf();
  transcript << err.rdbuf();
  reply.body = body.str();
  reply.headers = headers.str();
  reply.transcript = transcript.str();
  return reply;
}

double metric(Gateway& gateway, const std::string& series) {
  const Reply scraped =
      call(gateway, "/metrics", {.headers = {{"Authorization", std::string("Bearer ") + sluice::test::kOpsToken}},
                                 .method = "GET", .body = ""});
  BOOST_REQUIRE_MESSAGE(scraped.status == 200, scraped.transcript + scraped.body);
  std::istringstream lines(scraped.body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with(series + " ")) return std::stod(line.substr(series.size() + 1));
  }
  BOOST_FAIL("no series " + series);
  return 0;
}

struct Member {
  std::string name;
  std::string key;
};

Member addMember(const std::string& base, const std::string& flags = "") {
  Member member{unique(base), ""};
  int code = -1;
  const std::string added = sluicectl("users add " + member.name + " --role member " + flags, &code);
  BOOST_REQUIRE_MESSAGE(code == 0, added);
  const std::string created = sluicectl("keys create " + member.name, &code);
  BOOST_REQUIRE_MESSAGE(code == 0, created);
  member.key = lastLine(created);
  return member;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(connection_identity)

BOOST_AUTO_TEST_CASE(a_certificate_signed_by_the_client_ca_serves_its_member_and_keys_still_work_under_either) {
  Gateway gateway(tlsOptions("  identity: either\n"));
  const Member alice = addMember("tls-alice");
  int code = -1;
  const std::string mapped = sluicectl("users cert-subject add " + alice.name + " cn:" + alice.name, &code);
  BOOST_REQUIRE_MESSAGE(code == 0, mapped);
  const Member bob = addMember("tls-bob");
  const std::string alice_cert = pki().client(alice.name);

  // The certificate alone, no key: served as alice, and the audit row says so.
  const Reply served = call(gateway, "/v1/messages", {.certificate = alice_cert});
  BOOST_REQUIRE_MESSAGE(served.status == 200, served.transcript + served.body);
  const json row = auditRow(testDatabaseUrl(), served.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["user_name"] == alice.name);
  BOOST_TEST((row["api_key_id"].is_null() || row["api_key_id"] == ""));
  BOOST_TEST(row["route_match"].get<std::string>().ends_with(";identity:certificate"));
  BOOST_TEST(row["outcome"] == "ok");

  // A header cannot override the certificate, nor a key presented with it.
  const Reply with_key = call(gateway, "/v1/messages", {.certificate = alice_cert, .headers = {{"x-api-key", bob.key}}});
  BOOST_REQUIRE_EQUAL(with_key.status, 200);
  BOOST_TEST(auditRow(testDatabaseUrl(), with_key.header("x-sluice-request-id"))["user_name"] == alice.name);
  const json upstream = gateway.mockJson("/_mock/last")["headers"];
  BOOST_TEST(upstream.dump().find(bob.key) == std::string::npos);  // the caller's key never reaches a provider
  BOOST_TEST(upstream["x-api-key"] == "mock-anthropic-key");

  // Under `either` a client without a certificate still uses its key, over the same HTTPS.
  const Reply by_key = call(gateway, "/v1/chat/completions",
                            {.headers = {{"Authorization", "Bearer " + bob.key}},
                             .body = R"({"model":"claude-haiku-5-5","messages":[{"role":"user","content":"hi"}]})"});
  BOOST_REQUIRE_MESSAGE(by_key.status == 200, by_key.transcript + by_key.body);
  const json key_row = auditRow(testDatabaseUrl(), by_key.header("x-sluice-request-id"));
  BOOST_TEST(key_row["user_name"] == bob.name);
  BOOST_TEST(key_row["route_match"].get<std::string>().find("identity:") == std::string::npos);
  BOOST_TEST(call(gateway, "/v1/messages", {}).status == 401);

  // A certificate the client CA signed but that stands for no member (and no key): 401.
  const Reply stranger = call(gateway, "/v1/messages", {.certificate = pki().client(unique("nobody"))});
  BOOST_TEST(stranger.status == 401);
  BOOST_TEST(stranger.parsed()["error"]["error_key"] == "invalid_identity");

  // GET /v1/models identifies the same way.
  BOOST_TEST(call(gateway, "/v1/models", {.certificate = alice_cert, .method = "GET", .body = ""}).status == 200);
}

BOOST_AUTO_TEST_CASE(a_foreign_certificate_is_refused_at_the_handshake) {
  Gateway gateway(tlsOptions("  identity: either\n"));
  const std::string victim_cn = unique("tls-foreign-victim");
  const Member alice = addMember("tls-foreign", "--cert-subject cn:" + victim_cn);
  const double before = metric(gateway, "gateway_tls_handshake_failures_total{reason=\"certificate_refused\"}");
  // The same CN as a mapped member, signed by another CA: no HTTP answer at all.
  const Reply refused = call(gateway, "/v1/messages", {.certificate = pki().client(victim_cn, "foreign-ca")});
  BOOST_TEST(refused.status == 0);
  BOOST_TEST(refused.exit_code != 0);
  BOOST_TEST_MESSAGE("curl: " + refused.transcript);
  BOOST_TEST(metric(gateway, "gateway_tls_handshake_failures_total{reason=\"certificate_refused\"}") == before + 1);
  BOOST_TEST(call(gateway, "/v1/messages", {.headers = {{"x-api-key", alice.key}}}).status == 200);
}

BOOST_AUTO_TEST_CASE(identity_certificate_refuses_a_client_without_one_at_the_handshake) {
  Gateway gateway(tlsOptions("  identity: certificate\n"));
  const Member carol = addMember("tls-carol");
  int code = -1;
  BOOST_REQUIRE(sluicectl("users cert-subject add " + carol.name + " email:" + carol.name + "@corp.example", &code)
                    .find("now identifies") != std::string::npos);
  const Reply no_certificate = call(gateway, "/v1/messages", {.headers = {{"x-api-key", carol.key}}});
  BOOST_TEST(no_certificate.status == 0);
  BOOST_TEST(no_certificate.exit_code != 0);
  // Mapped by a subjectAltName e-mail; a key is not needed, and not taken instead.
  const Reply served =
      call(gateway, "/v1/messages", {.certificate = pki().client("any-cn", "client-ca", "email:" + carol.name + "@corp.example")});
  BOOST_REQUIRE_MESSAGE(served.status == 200, served.transcript + served.body);
  BOOST_TEST(auditRow(testDatabaseUrl(), served.header("x-sluice-request-id"))["user_name"] == carol.name);
  const Reply unmapped =
      call(gateway, "/v1/messages", {.certificate = pki().client(unique("unmapped")), .headers = {{"x-api-key", carol.key}}});
  BOOST_TEST(unmapped.status == 401);
  BOOST_TEST(unmapped.parsed()["error"]["error_key"] == "invalid_identity");
}

BOOST_AUTO_TEST_CASE(a_proxy_header_counts_only_from_a_trusted_address) {
  Gateway gateway(tlsOptions("  identity: either\n"
                             "  trusted_proxies: { header: X-Forwarded-Email, from: [127.0.0.2/32], match: email }\n"));
  const Member dave = addMember("tls-dave");
  int code = -1;
  BOOST_REQUIRE(sluicectl("users cert-subject add " + dave.name + " email:" + dave.name + "@corp.example", &code)
                    .find("now identifies") != std::string::npos);
  const std::string claim = dave.name + "@corp.example";

  // From 127.0.0.1 (not a proxy) the header is ignored: no key, 401.
  const Reply spoofed = call(gateway, "/v1/messages", {.headers = {{"X-Forwarded-Email", claim}}});
  BOOST_TEST(spoofed.status == 401);
  BOOST_TEST(spoofed.parsed()["error"]["error_key"] == "invalid_api_key");

  // The same header from the proxy's address names the member.
  const Reply proxied =
      call(gateway, "/v1/messages", {.interface = "127.0.0.2", .headers = {{"X-Forwarded-Email", claim},
                                                                          {"Authorization", "Bearer sk-from-the-user"}}});
  BOOST_REQUIRE_MESSAGE(proxied.status == 200, proxied.transcript + proxied.body);
  const json row = auditRow(testDatabaseUrl(), proxied.header("x-sluice-request-id"));
  BOOST_TEST(row["user_name"] == dave.name);
  BOOST_TEST(row["route_match"].get<std::string>().ends_with(";identity:proxy"));
  const json upstream = gateway.mockJson("/_mock/last")["headers"];
  BOOST_TEST(upstream.dump().find(claim) == std::string::npos);  // the identity header is not forwarded
  BOOST_TEST(upstream.dump().find("sk-from-the-user") == std::string::npos);

  // A proxy naming nobody is refused; a proxy without the header leaves identity to keys.
  const Reply nobody =
      call(gateway, "/v1/messages", {.interface = "127.0.0.2", .headers = {{"X-Forwarded-Email", "nobody@corp.example"}}});
  BOOST_TEST(nobody.status == 401);
  BOOST_TEST(nobody.parsed()["error"]["error_key"] == "invalid_identity");
  BOOST_TEST(call(gateway, "/v1/messages", {.interface = "127.0.0.2", .headers = {{"x-api-key", dave.key}}}).status ==
             200);

  // A certificate wins over a trusted proxy's header.
  const std::string erin_cn = unique("tls-erin");
  const Member erin = addMember("tls-erin", "--cert-subject cn:" + erin_cn);
  const Reply both = call(gateway, "/v1/messages",
                          {.certificate = pki().client(erin_cn), .interface = "127.0.0.2",
                           .headers = {{"X-Forwarded-Email", claim}}});
  BOOST_REQUIRE_MESSAGE(both.status == 200, both.transcript + both.body);
  BOOST_TEST(auditRow(testDatabaseUrl(), both.header("x-sluice-request-id"))["user_name"] == erin.name);
}

BOOST_AUTO_TEST_CASE(a_stalled_handshake_is_cut_at_the_head_deadline) {
  Gateway gateway(tlsOptions("  identity: either\n"));
  const double before = metric(gateway, "gateway_tls_handshake_failures_total{reason=\"timeout\"}");
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  BOOST_REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(gateway.process().port()));
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  BOOST_REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  // The first bytes of a ClientHello record, then nothing more: a slowloris handshake.
  const unsigned char partial[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01};
  BOOST_REQUIRE(::send(fd, partial, sizeof partial, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof partial));
  const auto started = std::chrono::steady_clock::now();
  pollfd item{fd, POLLIN, 0};
  BOOST_REQUIRE(::poll(&item, 1, 10000) == 1);
  char byte = 0;
  const ssize_t got = ::recv(fd, &byte, 1, 0);
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  ::close(fd);
  BOOST_TEST(got <= 0);  // closed, nothing answered
  BOOST_TEST(waited.count() < 4000);  // --head-timeout-ms 1500, with room for a loaded machine
  BOOST_TEST(metric(gateway, "gateway_tls_handshake_failures_total{reason=\"timeout\"}") == before + 1);
}

BOOST_AUTO_TEST_SUITE_END()
