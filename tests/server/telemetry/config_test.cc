#include <boost/test/unit_test.hpp>

#include <map>

#include "server/telemetry/config.h"

using namespace sluice::telemetry;

namespace {

Environment env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    const auto found = values.find(std::string(name));
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(telemetry_config)

BOOST_AUTO_TEST_CASE(without_an_endpoint_nothing_is_exported) {
  const TraceExport config = readTraceExport(env({}));
  BOOST_TEST(!config.enabled);
  BOOST_TEST(config.service_name == "sluice");
}

BOOST_AUTO_TEST_CASE(the_generic_endpoint_gets_the_traces_path_and_the_specific_one_is_used_as_is) {
  BOOST_TEST(readTraceExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}})).url ==
             "http://collector:4318/v1/traces");
  BOOST_TEST(readTraceExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/base/"}})).url ==
             "http://collector:4318/base/v1/traces");
  const TraceExport specific = readTraceExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"},
                                                    {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://t.example/x"}}));
  BOOST_TEST(specific.url == "https://t.example/x");
  BOOST_TEST(specific.enabled);
}

BOOST_AUTO_TEST_CASE(the_sdk_disabled_or_an_unserved_protocol_turns_export_off) {
  BOOST_TEST(!readTraceExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, {"OTEL_SDK_DISABLED", "TRUE"}})).enabled);
  const TraceExport grpc = readTraceExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317"},
                                                {"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}}));
  BOOST_TEST(!grpc.enabled);
  BOOST_TEST(grpc.warnings.size() == 1u);
  BOOST_TEST(readTraceExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://c"}})).enabled == false);
  BOOST_TEST((readTraceExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"},
                                   {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"}})).protocol == Protocol::Json));
}

BOOST_AUTO_TEST_CASE(headers_and_resource_attributes_are_percent_decoded_lists) {
  const TraceExport config = readTraceExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"},
                                                  {"OTEL_EXPORTER_OTLP_HEADERS", "api-key=abc%3D%3D, x-team = ml ,=bad,noequals"},
                                                  {"OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,service.name=edge"}}));
  BOOST_REQUIRE(config.headers.size() == 2u);
  BOOST_TEST(config.headers[0].first == "api-key");
  BOOST_TEST(config.headers[0].second == "abc==");
  BOOST_TEST(config.headers[1].first == "x-team");
  BOOST_TEST(config.headers[1].second == "ml");
  BOOST_TEST(config.warnings.size() == 1u);  // two entries without a name: one warning, no values in it
  BOOST_TEST(config.warnings[0].find("abc") == std::string::npos);
  BOOST_TEST(config.service_name == "edge");  // from the resource attributes
  BOOST_TEST(readTraceExport(env({{"OTEL_RESOURCE_ATTRIBUTES", "service.name=edge"}, {"OTEL_SERVICE_NAME", "gw"}}))
                 .service_name == "gw");  // OTEL_SERVICE_NAME wins
}

BOOST_AUTO_TEST_CASE(samplers_timeouts_and_batch_sizes_are_read_and_bad_values_keep_the_defaults) {
  const TraceExport ratio = readTraceExport(env({{"OTEL_TRACES_SAMPLER", "parentbased_traceidratio"},
                                                 {"OTEL_TRACES_SAMPLER_ARG", "0.25"},
                                                 {"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"},
                                                 {"OTEL_BSP_MAX_QUEUE_SIZE", "100"},
                                                 {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "500"}}));
  BOOST_TEST(ratio.sampler.parent_based);
  BOOST_TEST((ratio.sampler.root == SamplerKind::TraceIdRatio));
  BOOST_TEST(ratio.sampler.ratio == 0.25);
  BOOST_TEST(ratio.timeout_ms == 2500);
  BOOST_TEST(ratio.max_queue == 100u);
  BOOST_TEST(ratio.max_batch == 100u);  // never above the queue
  const TraceExport bad = readTraceExport(env({{"OTEL_TRACES_SAMPLER", "sometimes"},
                                               {"OTEL_EXPORTER_OTLP_TIMEOUT", "soon"},
                                               {"OTEL_BSP_SCHEDULE_DELAY", "-5"}}));
  BOOST_TEST(bad.sampler.parent_based);
  BOOST_TEST((bad.sampler.root == SamplerKind::AlwaysOn));
  BOOST_TEST(bad.timeout_ms == 10000);
  BOOST_TEST(bad.schedule_delay_ms == 5000);
  BOOST_TEST(bad.warnings.size() == 3u);
  const TraceExport off = readTraceExport(env({{"OTEL_TRACES_SAMPLER", "always_off"}}));
  BOOST_TEST(!off.sampler.parent_based);
  BOOST_TEST((off.sampler.root == SamplerKind::AlwaysOff));
}

BOOST_AUTO_TEST_CASE(audit_logs_go_to_their_own_endpoint_always_or_to_the_generic_one_on_request) {
  BOOST_TEST(!readLogExport(env({})).enabled);
  const LogExport generic = readLogExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}}));
  BOOST_TEST(generic.enabled);
  BOOST_TEST(!generic.own_endpoint);  // only while the catalog says audit_logs: true
  BOOST_TEST(generic.url == "http://collector:4318/v1/logs");
  BOOST_TEST(generic.schedule_delay_ms == 1000);
  const LogExport own = readLogExport(env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"},
                                           {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "https://logs.example/ingest"},
                                           {"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/json"},
                                           {"OTEL_EXPORTER_OTLP_HEADERS", "k=generic"},
                                           {"OTEL_EXPORTER_OTLP_LOGS_HEADERS", "k=logs"},
                                           {"OTEL_BLRP_MAX_QUEUE_SIZE", "100"},
                                           {"OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", "500"},
                                           {"OTEL_BSP_MAX_QUEUE_SIZE", "7"}}));
  BOOST_TEST(own.own_endpoint);
  BOOST_TEST(own.url == "https://logs.example/ingest");
  BOOST_TEST((own.protocol == Protocol::Json));
  BOOST_REQUIRE(own.headers.size() == 1u);
  BOOST_TEST(own.headers[0].second == "logs");
  BOOST_TEST(own.max_queue == 100u);  // OTEL_BLRP_*, not OTEL_BSP_*
  BOOST_TEST(own.max_batch == 100u);  // never more than the queue
  const LogExport off = readLogExport(env({{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://c/v1/logs"}, {"OTEL_SDK_DISABLED", "true"}}));
  BOOST_TEST(!off.enabled);
  BOOST_TEST(!off.own_endpoint);
  const LogExport bad = readLogExport(env({{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "collector:4318"}}));
  BOOST_TEST(!bad.enabled);
  BOOST_REQUIRE(bad.warnings.size() == 1u);
  BOOST_TEST(bad.warnings[0] == "the OTLP logs endpoint is not an http:// or https:// URL; logs are not exported");
}

BOOST_AUTO_TEST_SUITE_END()
