#include <boost/test/unit_test.hpp>

#include "server/telemetry/trace_context.h"

using namespace sluice::telemetry;

BOOST_AUTO_TEST_SUITE(trace_context)

BOOST_AUTO_TEST_CASE(a_version_00_traceparent_is_read_with_its_sampled_flag_and_tracestate) {
  const auto context = parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "congo=t61rcWkgMzE");
  BOOST_REQUIRE(context);
  BOOST_TEST(context->trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  BOOST_TEST(context->span_id == "00f067aa0ba902b7");
  BOOST_TEST(context->sampled);
  BOOST_TEST(context->trace_state == "congo=t61rcWkgMzE");
  BOOST_TEST(!parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")->sampled);
}

BOOST_AUTO_TEST_CASE(malformed_traceparents_start_a_new_trace) {
  for (const char* bad : {
           "",                                                         // absent
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",   // short
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero span id
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", // 00 with more
           "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // separator
           "00-4bf92f3577b34da6a3ce929d0e0e473x-00f067aa0ba902b7-01"}) {
    BOOST_TEST(!parseTraceparent(bad), bad);
  }
}

BOOST_AUTO_TEST_CASE(a_later_version_is_read_by_its_first_four_fields) {
  BOOST_TEST(parseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra").has_value());
  BOOST_TEST(!parseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x").has_value());
}

BOOST_AUTO_TEST_CASE(a_tracestate_too_long_or_not_printable_is_dropped) {
  const std::string tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  BOOST_TEST(parseTraceparent(tp, std::string(513, 'a'))->trace_state.empty());
  BOOST_TEST(parseTraceparent(tp, "a=b\r\nx: y")->trace_state.empty());
}

BOOST_AUTO_TEST_CASE(new_ids_are_hex_of_the_right_length_and_formatted_back) {
  const std::string trace = newTraceId();
  const std::string span = newSpanId();
  BOOST_TEST(trace.size() == 32u);
  BOOST_TEST(span.size() == 16u);
  BOOST_TEST(trace != newTraceId());
  const std::string header = formatTraceparent(trace, span, true);
  const auto again = parseTraceparent(header);
  BOOST_REQUIRE(again);
  BOOST_TEST(again->trace_id == trace);
  BOOST_TEST(again->span_id == span);
  BOOST_TEST(again->sampled);
  BOOST_TEST(formatTraceparent(trace, span, false).ends_with("-00"));
}

BOOST_AUTO_TEST_SUITE_END()
