#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "server/config/catalog_loader.h"
#include "server/protection/detectors.h"

namespace fs = std::filesystem;

namespace sluice::config {
namespace {

// A services directory with one provider and one model, and a vault file beside it.
struct ServicesDir {
  fs::path path = fs::temp_directory_path() /
                  ("sluice-loader-" + std::to_string(::getpid()) + "-" +
                   std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  fs::path vault = path / "vault.txt";

  explicit ServicesDir(const std::string& data_protection) {
    fs::create_directories(path / "ai");
    write("ai/credentials.yaml", "credentials:\n  mock:\n    kind: platform\n    secret: env:MOCK_KEY\n");
    write("ai/providers.yaml",
          "providers:\n  mock:\n    credential: mock\n    trust: public\n    endpoints:\n"
          "      api: { wire: anthropic, url: http://127.0.0.1:9 }\n");
    write("ai/models.yaml", "models:\n  m: {}\n");
    write("ai/deployments.yaml", "deployments:\n  m: [mock/api]\n");
    write("ai/gateway.yaml", "gateway:\n  default_model: m\n" + data_protection);
  }
  ~ServicesDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  void write(const fs::path& relative, const std::string& text) const { std::ofstream(path / relative) << text; }
  std::string vaultKey() const { return "  data_protection:\n    mask: [email]\n    vault: file:" + vault.string() + "\n"; }
  catalog::CompileResult load() const { return loadCatalog(path.string(), {{"MOCK_KEY", "k"}}); }
};

std::string everything(const catalog::CompileResult& result) {
  std::string out;
  for (const auto& diagnostic : result.diagnostics) out += diagnostic.format() + "\n";
  return out;
}

BOOST_AUTO_TEST_SUITE(catalog_loader)

BOOST_AUTO_TEST_CASE(every_catalog_mask_kind_is_a_detector_kind) {
  for (std::string_view name : catalog::kMaskKinds) {
    const auto kind = protection::kindFromString(name);
    BOOST_TEST_REQUIRE(kind.has_value(), name);
    BOOST_TEST(protection::toString(*kind) == name);
    BOOST_TEST((*kind != protection::Kind::Vault));
  }
}

BOOST_AUTO_TEST_CASE(a_catalog_without_data_protection_gets_no_detector) {
  ServicesDir dir("");
  const auto result = dir.load();
  BOOST_TEST_REQUIRE(result.ok(), everything(result));
  BOOST_TEST(!result.catalog->data_protection.has_value());
}

BOOST_AUTO_TEST_CASE(the_detector_is_compiled_once_with_the_kinds_and_the_vault) {
  ServicesDir dir("");
  dir.write("ai/gateway.yaml", "gateway:\n  default_model: m\n" + dir.vaultKey());
  dir.write("vault.txt", "# customers\nAcme Corp\n");
  const auto result = dir.load();
  BOOST_TEST_REQUIRE(result.ok(), everything(result));
  const auto& detector = result.catalog->data_protection->detector;
  BOOST_TEST_REQUIRE(detector != nullptr);
  BOOST_TEST(detector->enabled(protection::Kind::Email));
  BOOST_TEST(!detector->enabled(protection::Kind::Phone));
  const auto spans = detector->find("mail ann@example.com about Acme Corp, call +44 20 7946 0958");
  BOOST_TEST_REQUIRE(spans.size() == 2u);
  BOOST_TEST((spans[0].kind == protection::Kind::Email));
  BOOST_TEST((spans[1].kind == protection::Kind::Vault));
}

BOOST_AUTO_TEST_CASE(a_reload_reads_the_vault_again) {
  ServicesDir dir("");
  dir.write("ai/gateway.yaml", "gateway:\n  default_model: m\n" + dir.vaultKey());
  dir.write("vault.txt", "Acme Corp\n");
  const auto first = dir.load();
  dir.write("vault.txt", "Initech\n");
  const auto second = dir.load();
  BOOST_TEST_REQUIRE((first.ok() && second.ok()));
  BOOST_TEST(first.catalog->data_protection->detector->find("Initech").empty());
  BOOST_TEST(second.catalog->data_protection->detector->find("Initech").size() == 1u);
  BOOST_TEST(second.catalog->data_protection->detector->find("Acme Corp").empty());
}

BOOST_AUTO_TEST_CASE(a_vault_the_detector_refuses_fails_the_load_without_showing_entries) {
  ServicesDir dir("");
  dir.write("ai/gateway.yaml", "gateway:\n  default_model: m\n" + dir.vaultKey());
  dir.write("vault.txt", "Acme Corp\n" + std::string(1500, 'Q') + "\n");
  const auto result = dir.load();
  BOOST_TEST(!result.ok());
  const std::string text = everything(result);
  BOOST_TEST(text.find("gateway.yaml:5:12: error: vault of data_protection is refused") != std::string::npos, text);
  BOOST_TEST(text.find("QQQQ") == std::string::npos, text);
  BOOST_TEST(text.find("Acme") == std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(a_missing_vault_file_fails_the_load) {
  ServicesDir dir("");
  dir.write("ai/gateway.yaml", "gateway:\n  default_model: m\n" + dir.vaultKey());
  const auto result = dir.load();
  BOOST_TEST(!result.ok());
  BOOST_TEST(everything(result).find("could not be read") != std::string::npos, everything(result));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::config
