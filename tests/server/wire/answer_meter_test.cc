#include "server/wire/answer_meter.h"

#include <boost/test/unit_test.hpp>

#include <string>

namespace sluice::wire {
namespace {

// The measure of `body` fed in pieces of `size` bytes.
AnswerMeasure measured(std::string_view body, size_t size) {
  AnswerMeter meter;
  for (size_t at = 0; at < body.size(); at += size) meter.feed(body.substr(at, size));
  return meter.measure();
}

BOOST_AUTO_TEST_SUITE(answer_meter)

BOOST_AUTO_TEST_CASE(embedding_usage_is_read_in_any_pieces) {
  const std::string body =
      R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.2]},)"
      R"({"object":"embedding","index":1,"embedding":[0.3,0.4]}],"model":"m","usage":{"prompt_tokens":8,"total_tokens":8}})";
  for (size_t size = 1; size <= body.size(); ++size) {
    const AnswerMeasure measure = measured(body, size);
    BOOST_TEST_REQUIRE(measure.usage.has_value(), "pieces of " << size);
    BOOST_TEST_REQUIRE(measure.usage->input_tokens == 8);
    BOOST_TEST_REQUIRE(measure.usage->output_tokens == 0);
    BOOST_TEST_REQUIRE(measure.data_items == 2);
  }
}

BOOST_AUTO_TEST_CASE(data_items_count_top_level_elements_only) {
  BOOST_TEST(measured(R"({"created":1,"data":[]})", 3).data_items == 0);
  BOOST_TEST(measured(R"({"data":[{"b64_json":"a,b]}"},{"url":"x"},{"nested":[1,2,3]}]})", 2).data_items == 3);
  BOOST_TEST(measured(R"({"data" : [ "a\"],[" , "b" ] , "other":{"data":[1,2,3,4]}})", 1).data_items == 2);
  BOOST_TEST(!measured(R"({"data":[1]})", 1).usage.has_value());
}

BOOST_AUTO_TEST_CASE(image_and_audio_token_usage_is_read) {
  const AnswerMeasure image =
      measured(R"({"data":[{"b64_json":"x"}],"usage":{"input_tokens":50,"output_tokens":4160,"total_tokens":4210}})", 5);
  BOOST_TEST(image.usage->input_tokens == 50);
  BOOST_TEST(image.usage->output_tokens == 4160);
  const AnswerMeasure rerank = measured(R"({"results":[],"usage":{"total_tokens":42}})", 4);
  BOOST_TEST(rerank.usage->input_tokens == 42);
}

BOOST_AUTO_TEST_CASE(transcription_durations_are_read) {
  const AnswerMeasure verbose = measured(R"({"task":"transcribe","duration":6.25,"text":"hi","segments":[]})", 2);
  BOOST_TEST(verbose.duration_seconds.value_or(-1) == 6.25);
  BOOST_TEST(!verbose.usage.has_value());
  const AnswerMeasure plain = measured(R"({"text":"hi","usage":{"type":"duration","seconds":7}})", 3);
  BOOST_TEST(plain.duration_seconds.value_or(-1) == 7.0);
  BOOST_TEST(!plain.usage.has_value());
  BOOST_TEST(!measured(R"({"text":"no duration"})", 3).duration_seconds.has_value());
}

BOOST_AUTO_TEST_CASE(members_inside_others_and_strings_are_not_taken) {
  const AnswerMeasure nested = measured(R"({"x":{"usage":{"prompt_tokens":9}},"text":"\"usage\":{\"prompt_tokens\":3}"})", 1);
  BOOST_TEST(!nested.usage.has_value());
}

BOOST_AUTO_TEST_CASE(a_huge_member_is_walked_not_kept) {
  std::string body = R"({"usage":{"prompt_tokens":1,"pad":")" + std::string(AnswerMeter::kMaxCaptured * 2, 'p') +
                     R"("},"data":[1,2]})";
  const AnswerMeasure measure = measured(body, 1000);
  BOOST_TEST(!measure.usage.has_value());
  BOOST_TEST(measure.data_items == 2);
}

BOOST_AUTO_TEST_CASE(text_that_is_not_json_measures_nothing) {
  const AnswerMeasure measure = measured("just some transcription text, with {braces} and [brackets]", 4);
  BOOST_TEST(!measure.usage.has_value());
  BOOST_TEST(!measure.duration_seconds.has_value());
  BOOST_TEST(measure.data_items == 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire
