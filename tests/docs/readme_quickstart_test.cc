// The Compose quickstart README.md gives (compose.yaml at the repository's root), read without
// Docker: the file is valid YAML, names files that exist, and gives the gateway every variable the
// shipped catalog reads, with every provider URL on the compose network's mock provider, so that
// `docker compose up` serves every shipped model. The services and the port README's commands name
// are there, and the one-shot that prints the admin key waits for a gateway that has migrated.

#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "catalog/compiler.h"
#include "tests/docs/repository_files.h"

namespace sluice::docs {
namespace {

constexpr const char* kCompose = "compose.yaml";

YAML::Node composeFile() {
  try {
    return YAML::Load(repositoryFile(kCompose));
  } catch (const YAML::Exception& e) {
    BOOST_FAIL(kCompose << " is not valid YAML: " << e.what());
  }
  return {};
}

// A service's key, also when it comes from a `<<: *anchor` merge (yaml-cpp keeps `<<` as a key).
YAML::Node field(const YAML::Node& service, const std::string& key) {
  if (service[key]) return service[key];
  if (service["<<"] && service["<<"][key]) return service["<<"][key];
  return {};
}

YAML::Node service(const YAML::Node& compose, const std::string& name) {
  const YAML::Node found = compose["services"][name];
  BOOST_REQUIRE_MESSAGE(found && found.IsMap(), kCompose << " has no service " << name);
  return found;
}

bool exists(const std::string& relative) {
  return std::filesystem::exists(std::filesystem::path(SLUICE_SOURCE_DIR) / relative);
}

// KEY=value lines of an env file (comments and blank lines skipped).
void readEnvFile(const std::string& relative, std::map<std::string, std::string>& into) {
  std::istringstream lines(repositoryFile(relative));
  for (std::string line; std::getline(lines, line);) {
    const auto equals = line.find('=');
    if (line.empty() || line.front() == '#' || equals == std::string::npos) continue;
    into[line.substr(0, equals)] = line.substr(equals + 1);
  }
}

// What the gateway's container gets: its env_file(s), then its `environment:`.
std::map<std::string, std::string> gatewayEnvironment(const YAML::Node& gateway) {
  std::map<std::string, std::string> env;
  for (const YAML::Node& file : field(gateway, "env_file")) {
    const std::string path = file.IsMap() ? file["path"].as<std::string>() : file.as<std::string>();
    BOOST_REQUIRE_MESSAGE(exists(path), "the gateway's env_file " << path << " does not exist");
    readEnvFile(path, env);
  }
  for (const auto& entry : field(gateway, "environment")) env[entry.first.as<std::string>()] = entry.second.as<std::string>();
  return env;
}

std::string dependsOn(const YAML::Node& service, const std::string& on) {
  const YAML::Node condition = field(service, "depends_on")[on]["condition"];
  return condition ? condition.as<std::string>() : "";
}

BOOST_AUTO_TEST_SUITE(readme_quickstart)

BOOST_AUTO_TEST_CASE(compose_builds_the_image_from_the_repository_dockerfile) {
  const YAML::Node compose = composeFile();
  for (const char* name : {"mock", "gateway", "admin-key"}) {
    const YAML::Node build = field(service(compose, name), "build");
    BOOST_REQUIRE_MESSAGE(build, name << " has no build:");
    const std::string context = build["context"].as<std::string>();
    const std::string dockerfile = build["dockerfile"].as<std::string>();
    BOOST_TEST(context == ".", name << " builds from " << context << ", not the repository's root");
    BOOST_TEST(exists(dockerfile), name << "'s dockerfile " << dockerfile << " does not exist");
  }
  BOOST_TEST(field(service(compose, "postgres"), "image").as<std::string>().starts_with("postgres:15"));
}

BOOST_AUTO_TEST_CASE(readme_names_the_commands_service_and_port_compose_provides) {
  const YAML::Node compose = composeFile();
  const std::string readme = repositoryFile("README.md");
  BOOST_TEST(readme.find("docker compose up -d --build") != std::string::npos, "README.md: the Compose command");
  const std::regex run_line(R"(docker compose run --rm ([a-z0-9-]+))");
  std::smatch run;
  BOOST_REQUIRE_MESSAGE(std::regex_search(readme, run, run_line), "README.md: no `docker compose run --rm SERVICE`");
  const YAML::Node one_shot = service(compose, run[1]);
  BOOST_TEST(dependsOn(one_shot, "gateway") == "service_healthy",
             run[1] << " must wait for a healthy gateway (migrations applied) before it adds a member");
  bool published = false;
  for (const YAML::Node& port : field(service(compose, "gateway"), "ports")) {
    published = published || port.as<std::string>() == "127.0.0.1:8080:8080";
  }
  BOOST_TEST(published, "the gateway publishes 127.0.0.1:8080:8080, the address README.md uses");
  BOOST_TEST(readme.find("localhost:8080") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_gateway_gets_every_variable_the_shipped_catalog_reads) {
  const YAML::Node compose = composeFile();
  const auto env = gatewayEnvironment(service(compose, "gateway"));
  const catalog::CatalogSources sources = shippedCatalogSources();
  for (const std::string& name : catalog::variablesReferenced(sources)) {
    BOOST_TEST(env.contains(name), "the quickstart's gateway does not set " << name << ", which services/ reads");
  }
  for (const std::string& name : catalog::secretVariables(sources)) {
    BOOST_TEST(env.contains(name), "the quickstart's gateway has no " << name << ": its credential's deployments would be skipped");
  }
}

BOOST_AUTO_TEST_CASE(every_provider_url_is_the_mock_service_on_the_port_it_listens_on) {
  const YAML::Node compose = composeFile();
  const YAML::Node mock_command = field(service(compose, "mock"), "command");
  std::string listen;
  for (size_t i = 0; i + 1 < mock_command.size(); ++i) {
    if (mock_command[i].as<std::string>() == "--listen") listen = mock_command[i + 1].as<std::string>();
  }
  BOOST_REQUIRE_MESSAGE(!listen.empty(), "the mock service has no --listen");
  const std::string mock_origin = "http://mock:" + listen.substr(listen.rfind(':') + 1);
  int urls = 0;
  for (const auto& [name, value] : gatewayEnvironment(service(compose, "gateway"))) {
    if (!name.ends_with("_BASE_URL")) continue;
    ++urls;
    BOOST_TEST((value == mock_origin || value.starts_with(mock_origin + "/")), name << "=" << value << " is not " << mock_origin);
  }
  BOOST_TEST(urls > 0, "the quickstart points no provider at the mock");
}

BOOST_AUTO_TEST_CASE(the_database_url_names_the_postgres_service_and_its_credentials) {
  const YAML::Node compose = composeFile();
  const YAML::Node postgres = field(service(compose, "postgres"), "environment");
  const std::string expected = "postgresql://" + postgres["POSTGRES_USER"].as<std::string>() + ":" +
                               postgres["POSTGRES_PASSWORD"].as<std::string>() + "@postgres:5432/" +
                               postgres["POSTGRES_DB"].as<std::string>();
  for (const char* name : {"gateway", "admin-key"}) {
    const YAML::Node url = field(service(compose, name), "environment")["SLUICE_DATABASE_URL"];
    BOOST_REQUIRE_MESSAGE(url, name << " has no SLUICE_DATABASE_URL");
    BOOST_TEST(url.as<std::string>() == expected, name << "'s SLUICE_DATABASE_URL");
  }
  BOOST_TEST(dependsOn(service(compose, "gateway"), "postgres") == "service_healthy");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::docs
