// The documents that name the gateway's metrics (docs/metrics.md, the Grafana dashboard, the
// alert rules) against what GatewayMetrics renders.

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "server/metrics/gateway_metrics.h"

using sluice::metrics::GatewayMetrics;
using sluice::metrics::Registry;
using sluice::metrics::RequestFigures;

namespace {

bool contains(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

bool wordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

RequestFigures servedRequest() {
  RequestFigures r;
  r.route = "chat";
  r.model = "claude-sonnet";
  r.served_provider = "anthropic";
  r.client_wire = "openai-chat";
  r.outcome = "ok";
  r.status = 200;
  r.time_to_first_token_seconds = 0.5;
  r.usage_known = true;
  r.input_tokens = 100;
  r.output_tokens = 41;
  return r;
}

std::string readSourceFile(const std::string& relative) {
  const char* root = std::getenv("SLUICE_SOURCE_DIR");
  BOOST_REQUIRE_MESSAGE(root != nullptr, "SLUICE_SOURCE_DIR is not set");
  std::ifstream in(std::string(root) + "/" + relative);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " << relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every gateway_/gen_ai_/sluice_metrics_ name a document mentions (file names such as
// gateway_metrics.h aside), with the _bucket/_sum/_count suffixes of histogram samples taken off.
// NOTE: a scanner rather than std::regex, which g++ 12 -O2 with sanitizers warns about.
std::set<std::string> mentionedNames(const std::string& text) {
  std::set<std::string> names;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i > 0 && wordChar(text[i - 1])) continue;
    const std::string_view rest = std::string_view(text).substr(i);
    if (!rest.starts_with("gateway_") && !rest.starts_with("gen_ai_") && !rest.starts_with("sluice_metrics_")) continue;
    size_t end = i;
    while (end < text.size() && (std::islower(static_cast<unsigned char>(text[end])) != 0 ||
                                 std::isdigit(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) {
      ++end;
    }
    if (end < text.size() && wordChar(text[end])) continue;
    const std::string_view after = std::string_view(text).substr(end);
    bool file_name = false;
    for (const char* extension : {".h", ".cc", ".md", ".json", ".yml"}) {
      const std::string_view ext(extension);
      if (after.starts_with(ext) && (after.size() == ext.size() || !wordChar(after[ext.size()]))) file_name = true;
    }
    if (file_name || text[end - 1] == '_') continue;  // a file, or a prefix such as "the gen_ai_ families"
    std::string found = text.substr(i, end - i);
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      if (found.ends_with(suffix)) {
        found.resize(found.size() - std::string_view(suffix).size());
        break;
      }
    }
    names.insert(found);
    i = end;
  }
  return names;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gateway_metrics_docs)

BOOST_AUTO_TEST_CASE(the_document_scanner_finds_metric_names_and_skips_files_and_prefixes) {
  const std::set<std::string> names = mentionedNames(
      "rate(gateway_requests_total[5m]) gen_ai_client_token_usage_bucket{le=\"1\"} `gateway_metrics.h` "
      "the gen_ai_ families, xgateway_nope sum by (gen_ai_request_model) gateway_typo_total");
  BOOST_TEST((names == std::set<std::string>{"gateway_requests_total", "gen_ai_client_token_usage",
                                             "gen_ai_request_model", "gateway_typo_total"}));
}

BOOST_AUTO_TEST_CASE(dashboard_alert_rules_and_docs_only_name_families_and_labels_that_exist) {
  Registry registry;
  GatewayMetrics metrics(registry);
  metrics.recordRequest(servedRequest());
  const std::string text = registry.render();
  for (const char* document : {"docs/grafana-dashboard.json", "docs/prometheus-alerts.yml", "docs/metrics.md"}) {
    const std::set<std::string> names = mentionedNames(readSourceFile(document));
    BOOST_TEST(!names.empty());
    for (const std::string& name : names) {
      BOOST_TEST_CONTEXT(document << " mentions " << name) {
        const bool family = contains(text, "# TYPE " + name + " ");
        const bool label = contains(text, "{" + name + "=\"") || contains(text, "," + name + "=\"");
        BOOST_TEST((family || label) == true);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_dashboard_is_grafana_json_whose_panels_all_query) {
  const nlohmann::json dashboard = nlohmann::json::parse(readSourceFile("docs/grafana-dashboard.json"));
  BOOST_TEST(dashboard.at("uid").get<std::string>() == "sluice-gateway");
  BOOST_TEST(dashboard.at("schemaVersion").get<int>() >= 30);
  std::set<int> ids;
  size_t queries = 0;
  for (const auto& panel : dashboard.at("panels")) {
    const std::string title = panel.at("title").get<std::string>();
    BOOST_TEST_CONTEXT(title) {
      BOOST_TEST(ids.insert(panel.at("id").get<int>()).second);
      const auto& grid = panel.at("gridPos");
      BOOST_TEST(grid.at("x").get<int>() + grid.at("w").get<int>() <= 24);
      if (panel.at("type") == "row") continue;
      BOOST_TEST(!panel.at("targets").empty());
      for (const auto& target : panel.at("targets")) {
        BOOST_TEST(!target.at("expr").get<std::string>().empty());
        ++queries;
      }
    }
  }
  BOOST_TEST(queries >= 20u);
}

BOOST_AUTO_TEST_CASE(metrics_md_documents_every_family) {
  Registry registry;
  GatewayMetrics metrics(registry);
  const std::string text = registry.render();
  const std::string doc = readSourceFile("docs/metrics.md");
  size_t families = 0;
  for (size_t at = text.find("# TYPE "); at != std::string::npos; at = text.find("\n# TYPE ", at + 1)) {
    const size_t begin = text.find("TYPE ", at) + 5;
    const std::string name = text.substr(begin, text.find(' ', begin) - begin);
    ++families;
    BOOST_TEST_CONTEXT(name) { BOOST_TEST(contains(doc, "`" + name + "`") == true); }
  }
  BOOST_TEST(families >= 40u);
}

BOOST_AUTO_TEST_SUITE_END()
