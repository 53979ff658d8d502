#include "catalog/diagnostic.h"

#include <boost/test/unit_test.hpp>

namespace sluice::catalog {
namespace {

BOOST_AUTO_TEST_SUITE(diagnostic)

BOOST_AUTO_TEST_CASE(format_names_file_line_column_and_severity) {
  Diagnostic error{Severity::Error, "services/ai/models.yaml", 12, 5, "unknown key 'pricng'"};
  BOOST_TEST(error.format() == "services/ai/models.yaml:12:5: error: unknown key 'pricng'");
  Diagnostic warning{Severity::Warning, "services/ai/credentials.yaml", 4, 13, "unconfigured"};
  BOOST_TEST(warning.format() == "services/ai/credentials.yaml:4:13: warning: unconfigured");
}

BOOST_AUTO_TEST_CASE(format_without_a_line_names_only_the_file) {
  Diagnostic missing{Severity::Error, "services/ai/gateway.yaml", 0, 0, "missing file"};
  BOOST_TEST(missing.format() == "services/ai/gateway.yaml: error: missing file");
}

BOOST_AUTO_TEST_CASE(has_errors_ignores_warnings) {
  std::vector<Diagnostic> diagnostics = {{Severity::Warning, "f", 1, 1, "w"}};
  BOOST_TEST(!hasErrors(diagnostics));
  diagnostics.push_back({Severity::Error, "f", 2, 1, "e"});
  BOOST_TEST(hasErrors(diagnostics));
  BOOST_TEST(!hasErrors({}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
