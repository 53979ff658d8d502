#include "tools/mock-provider/operations_render.h"

#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

Json answer(Endpoint endpoint, const std::string& body) {
  auto rendered = renderOperation(endpoint, "application/json", body, 7, 1700000000);
  BOOST_TEST_REQUIRE(rendered.has_value(), body);
  return Json::parse(rendered->body);
}

BOOST_AUTO_TEST_SUITE(operations_render)

BOOST_AUTO_TEST_CASE(operation_paths_are_routed_on_the_openai_wire) {
  for (const char* path : {"/v1/embeddings", "/openai/v1/images/generations", "/v1/audio/speech",
                           "/v1/audio/transcriptions", "/v1/audio/translations", "/x/v1/moderations", "/v1/rerank"}) {
    const auto route = matchRoute(path);
    BOOST_TEST_REQUIRE(route.has_value(), path);
    BOOST_TEST(isOperation(route->endpoint), path);
    BOOST_TEST((route->wire == Wire::OpenAiChat));
  }
  BOOST_TEST(!isOperation(matchRoute("/v1/chat/completions")->endpoint));
}

BOOST_AUTO_TEST_CASE(embeddings_are_deterministic_per_input_and_count_tokens) {
  const Json one = answer(Endpoint::Embeddings, R"({"model":"e","input":["hello","hello world"],"dimensions":3})");
  BOOST_TEST(one["data"].size() == 2);
  BOOST_TEST(one["data"][0]["embedding"].size() == 3);
  BOOST_TEST(one["data"][0]["embedding"] == Json(mockEmbedding("hello", 3)));
  BOOST_TEST(one["data"][1]["embedding"] != one["data"][0]["embedding"]);
  BOOST_TEST(one["usage"]["prompt_tokens"] == 2 + 3);  // ceil(5/4) + ceil(11/4)
  BOOST_TEST(one["model"] == "e");
  const Json again = answer(Endpoint::Embeddings, R"({"model":"e","input":"hello","dimensions":3})");
  BOOST_TEST(again["data"][0]["embedding"] == one["data"][0]["embedding"]);
  for (const double value : mockEmbedding("anything", 64)) BOOST_TEST((value >= -1.0 && value <= 1.0));
}

BOOST_AUTO_TEST_CASE(images_moderations_and_rerank_answer_from_the_request) {
  const Json images = answer(Endpoint::ImageGenerations, R"({"model":"i","prompt":"p","n":2,"response_format":"url"})");
  BOOST_TEST(images["data"].size() == 2);
  BOOST_TEST(images["data"][1]["url"] == "https://mock-provider.invalid/images/7-1.png");
  const Json moderation = answer(Endpoint::Moderations, R"({"model":"m","input":["fine","I hate this"]})");
  BOOST_TEST(moderation["results"][0]["flagged"] == false);
  BOOST_TEST(moderation["results"][1]["categories"]["hate"] == true);
  const Json rerank = answer(Endpoint::Rerank, R"({"model":"r","query":"Red apple","documents":["pear",{"text":"an apple, red"},"apple"],"top_n":2,"return_documents":true})");
  BOOST_TEST(rerank["results"].size() == 2);
  BOOST_TEST(rerank["results"][0]["index"] == 1);
  BOOST_TEST(rerank["results"][0]["relevance_score"] == 1.0);
  BOOST_TEST(rerank["results"][0]["document"]["text"] == "an apple, red");
  BOOST_TEST(rerank["results"][1]["relevance_score"] == 0.5);
}

BOOST_AUTO_TEST_CASE(speech_is_binary_of_the_formats_type) {
  auto rendered = renderOperation(Endpoint::AudioSpeech, "application/json", R"({"model":"t","input":"hi","response_format":"flac"})", 1, 0);
  BOOST_TEST_REQUIRE(rendered.has_value());
  BOOST_TEST(rendered->content_type == "audio/flac");
  BOOST_TEST(rendered->body.size() == std::string("MOCKAUDIO/flac/").size() + 256 + 2);
  BOOST_TEST(rendered->body.ends_with("hi"));
  BOOST_TEST(!renderOperation(Endpoint::AudioSpeech, "", R"({"model":"t","input":"hi","response_format":"ogg"})", 1, 0));
}

BOOST_AUTO_TEST_CASE(transcriptions_read_the_multipart_upload) {
  const std::string type = "multipart/form-data; boundary=XyZ";
  const std::string body =
      "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n" +
      std::string(32000, 'a') + "\r\n--XyZ\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--XyZ--\r\n";
  auto rendered = renderOperation(Endpoint::AudioTranscriptions, type, body, 1, 0);
  BOOST_TEST_REQUIRE(rendered.has_value());
  const Json json = Json::parse(rendered->body);
  BOOST_TEST(json["text"].get<std::string>().starts_with("Mock transcription of a.wav: 32000 bytes, fnv "));
  BOOST_TEST(json["usage"]["seconds"] == 2);
  const auto fields = parseMultipart(type, body);
  BOOST_TEST_REQUIRE(fields.has_value());
  BOOST_TEST(fields->size() == 2);
  BOOST_TEST((*fields)[0].filename.value_or("") == "a.wav");
  BOOST_TEST((*fields)[1].value == "whisper-1");
  const auto missing = renderOperation(Endpoint::AudioTranscriptions, type, "--XyZ--\r\n", 1, 0);
  BOOST_TEST_REQUIRE(!missing.has_value());
  BOOST_TEST(missing.error().param.value_or("") == "file");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::mock
