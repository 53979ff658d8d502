#include <boost/test/unit_test.hpp>

#include <string>

#include "server/wire/openai_chat/unasked_usage_filter.h"

using sluice::wire::openai_chat::UnaskedUsageFilter;
using sluice::wire::openai_chat::filterUnaskedUsage;

BOOST_AUTO_TEST_SUITE(unasked_usage_filter)

namespace {

const std::string kText =
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}],"
    "\"usage\":null}\n\n";
const std::string kFinish =
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},"
    "\"finish_reason\":\"stop\"}],\"usage\":null}\n\n";
const std::string kUsage =
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
    "\"completion_tokens\":2,\"total_tokens\":7}}\n\n";
const std::string kDone = "data: [DONE]\n\n";

}  // namespace

BOOST_AUTO_TEST_CASE(usage_chunk_dropped_and_nulls_removed_keeping_every_other_byte) {
  UnaskedUsageFilter filter;
  const std::string out = filter.feed(kText + kFinish + kUsage + kDone) + filter.finish();
  BOOST_TEST(out ==
             "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
             "\"Hi\"}}]}\n\n"
             "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},"
             "\"finish_reason\":\"stop\"}]}\n\n"
             "data: [DONE]\n\n");
}

BOOST_AUTO_TEST_CASE(events_split_anywhere_come_out_whole_and_in_order) {
  const std::string whole = kText + kFinish + kUsage + kDone;
  UnaskedUsageFilter reference;
  const std::string expected = reference.feed(whole) + reference.finish();
  for (size_t cut = 1; cut < whole.size(); cut += 7) {
    UnaskedUsageFilter filter;
    std::string out = filter.feed(whole.substr(0, cut));
    out += filter.feed(whole.substr(cut));
    out += filter.finish();
    BOOST_TEST(out == expected, "cut at " << cut);
  }
}

BOOST_AUTO_TEST_CASE(an_event_held_until_its_blank_line) {
  UnaskedUsageFilter filter;
  BOOST_TEST(filter.feed(kText.substr(0, kText.size() - 1)).empty());
  BOOST_TEST(!filter.feed("\n").empty());
}

BOOST_AUTO_TEST_CASE(spaced_json_is_reserialised_without_usage) {
  const std::string event = "data: {\"id\": \"c1\", \"choices\": [{\"index\": 0}], \"usage\": null}\n\n";
  BOOST_TEST(filterUnaskedUsage(event) == "data: {\"id\":\"c1\",\"choices\":[{\"index\":0}]}\n\n");
}

BOOST_AUTO_TEST_CASE(usage_on_a_chunk_with_choices_is_removed_not_the_chunk) {
  const std::string event =
      "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":"
      "{\"prompt_tokens\":1}}\r\n\r\n";
  BOOST_TEST(filterUnaskedUsage(event) ==
             "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n");
}

BOOST_AUTO_TEST_CASE(comments_errors_and_non_json_pass_unchanged) {
  for (const std::string& event : {std::string(": keep-alive\n\n"), std::string("data: [DONE]\n\n"),
                                  std::string("data: {\"error\":{\"message\":\"boom\"}}\n\n"),
                                  std::string("event: ping\ndata: not json\n\n")}) {
    BOOST_TEST(filterUnaskedUsage(event) == event);
  }
}

BOOST_AUTO_TEST_SUITE_END()
