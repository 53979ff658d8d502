#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/stop_reason.h"

namespace sluice::wire::gemini {
namespace {

BOOST_AUTO_TEST_SUITE(stop_reason)

BOOST_AUTO_TEST_CASE(finish_reasons_map_to_neutral_stop_reasons) {
  BOOST_TEST((stopReasonFor("STOP", false) == StopReason::EndTurn));
  BOOST_TEST((stopReasonFor("STOP", true) == StopReason::ToolUse));
  BOOST_TEST((stopReasonFor("MAX_TOKENS", true) == StopReason::MaxTokens));
  for (const char* filtered : {"SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
                               "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "IMAGE_OTHER"}) {
    BOOST_TEST((stopReasonFor(filtered, false) == StopReason::Refusal), filtered);
  }
  for (const char* other : {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "OTHER",
                            "NO_IMAGE", "FINISH_REASON_UNSPECIFIED", "SOMETHING_NEW", ""}) {
    BOOST_TEST((stopReasonFor(other, false) == StopReason::EndTurn), other);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
