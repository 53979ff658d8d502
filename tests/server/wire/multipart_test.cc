#include "server/wire/multipart.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace sluice::wire {
namespace {

constexpr std::string_view kBoundary = "----formdata-undici-0123456789";

std::string part(std::string_view name, std::string_view value, std::string_view extra_headers = "") {
  return "--" + std::string(kBoundary) + "\r\nContent-Disposition: form-data; name=\"" + std::string(name) + "\"\r\n" +
         std::string(extra_headers) + "\r\n" + std::string(value) + "\r\n";
}

std::string filePart(std::string_view content) {
  return "--" + std::string(kBoundary) +
         "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip.wav\"\r\nContent-Type: audio/wav\r\n\r\n" +
         std::string(content) + "\r\n";
}

std::string closing() { return "--" + std::string(kBoundary) + "--\r\n"; }

// Audio-like content: every byte value, CRs and LFs, and near-misses of the delimiter.
std::string awkwardContent() {
  std::string content;
  for (int byte = 0; byte < 256; ++byte) content += static_cast<char>(byte);
  content += "\r\n--" + std::string(kBoundary.substr(0, 10)) + "x\r\n-\r\r\n--";
  content += "\r\n--" + std::string(kBoundary.substr(0, kBoundary.size() - 1)) + "\r\n\r\n";
  return content;
}

struct Rewritten {
  std::string out;
  std::optional<std::string> model;
  std::optional<std::string> error;
};

// Feeds `body` to a rewriter in the pieces `cuts` makes (offsets, ascending), then finishes.
Rewritten rewrite(std::string_view body, std::optional<std::string> replacement, const std::vector<size_t>& cuts,
                  MultipartLimits limits = {}) {
  MultipartModelRewriter rewriter(kBoundary, std::move(replacement), limits);
  Rewritten result;
  size_t from = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(body.size());
  for (const size_t end : ends) {
    if (auto fed = rewriter.feed(body.substr(from, end - from), &result.out); !fed) {
      result.error = fed.error();
      return result;
    }
    from = end;
  }
  if (auto finished = rewriter.finish(); !finished) result.error = finished.error();
  result.model = rewriter.model();
  return result;
}

BOOST_AUTO_TEST_SUITE(multipart)

BOOST_AUTO_TEST_CASE(the_boundary_is_read_from_the_content_type) {
  BOOST_TEST(multipartBoundary("multipart/form-data; boundary=abc").value_or("") == "abc");
  BOOST_TEST(multipartBoundary("Multipart/Form-Data;boundary=\"a b:c\"").value_or("") == "a b:c");
  BOOST_TEST(multipartBoundary("multipart/form-data; charset=utf-8; boundary=x-1").value_or("") == "x-1");
  BOOST_TEST(!multipartBoundary("application/json").has_value());
  BOOST_TEST(!multipartBoundary("multipart/form-data").has_value());
  BOOST_TEST(!multipartBoundary("multipart/form-data; boundary=").has_value());
  BOOST_TEST(!multipartBoundary("multipart/form-data; boundary=\"a\r\nb\"").has_value());
  BOOST_TEST(!multipartBoundary("multipart/form-data; boundary=" + std::string(71, 'a')).has_value());
  BOOST_TEST(!multipartBoundary("multipart/mixed; boundary=abc").has_value());
}

BOOST_AUTO_TEST_CASE(the_disposition_name_is_found_and_filename_is_not_taken_for_it) {
  const auto name = [](std::string_view block) { return dispositionName(block).value_or("!").value_or(""); };
  BOOST_TEST(name("Content-Disposition: form-data; name=\"model\"") == "model");
  BOOST_TEST(name("content-type: text/plain\r\ncontent-disposition: form-data; filename=\"model\"; name=file") ==
             "file");
  BOOST_TEST(name("Content-Disposition: form-data; name=\"a;b\\\"c\"") == "a;b\"c");
  BOOST_TEST(name("Content-Disposition: form-data; filename=\"a; b.wav\"; name=file") == "file");
  BOOST_TEST_REQUIRE(dispositionName("Content-Type: text/plain").has_value());
  BOOST_TEST(!dispositionName("Content-Type: text/plain")->has_value());
}

// A provider reading the last Content-Disposition, the last `name`, an encoded name or a folded
// line would read another field than the gateway authorised: each is refused before it is sent.
BOOST_AUTO_TEST_CASE(a_part_whose_name_readers_could_disagree_on_is_refused) {
  const std::string more = "a multipart part's Content-Disposition has more than one name";
  const std::pair<const char*, std::string> cases[] = {
      {"Content-Disposition: form-data; name=\"note\"\r\nContent-Disposition: form-data; name=\"model\"",
       "a multipart part has more than one Content-Disposition"},
      {"content-disposition: form-data; name=\"note\"\r\nCONTENT-DISPOSITION : form-data",
       "a multipart part has more than one Content-Disposition"},
      {"Content-Disposition: form-data; name=\"note\"; name=\"model\"", more},
      {"Content-Disposition: form-data; NAME=note; Name = model", more},
      // Our reader sees one name with an escaped quote; one without escapes sees two.
      {"Content-Disposition: form-data; name=\"note\\\"; name=model\"", more},
      {"Content-Disposition: form-data; name*=UTF-8''model",
       "a multipart part's Content-Disposition has name*= (an encoded name); send name=\"...\""},
      {"Content-Disposition: form-data; name*0=mo; name*1=del",
       "a multipart part's Content-Disposition has name*= (an encoded name); send name=\"...\""},
      {"Content-Disposition: form-data;\r\n name=\"model\"", "a multipart part's header continues on a folded line"},
  };
  for (const auto& [block, why] : cases) {
    const auto name = dispositionName(block);
    BOOST_TEST_REQUIRE(!name.has_value(), block);
    BOOST_TEST(name.error() == why, block);
  }
}

BOOST_AUTO_TEST_CASE(a_model_hidden_in_a_second_disposition_line_never_reaches_the_provider) {
  const std::string smuggled = "--" + std::string(kBoundary) +
                               "\r\nContent-Disposition: form-data; name=\"note\"\r\n"
                               "Content-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-pricey\r\n";
  const std::string body = part("model", "whisper-cheap") + smuggled + filePart("RIFF") + closing();
  for (size_t cut = 0; cut <= body.size(); cut += 5) {
    const Rewritten result = rewrite(body, "whisper-1", {cut});
    BOOST_TEST_REQUIRE(result.error.value_or("") == "a multipart part has more than one Content-Disposition",
                       "cut at " << cut);
    BOOST_TEST_REQUIRE(result.out.find("whisper-pricey") == std::string::npos, "cut at " << cut);
  }
}

BOOST_AUTO_TEST_CASE(model_is_matched_without_case_or_blanks) {
  BOOST_TEST(isModelField("model"));
  BOOST_TEST(isModelField("MODEL"));
  BOOST_TEST(isModelField(" Model "));
  BOOST_TEST(!isModelField("models"));
  BOOST_TEST(!isModelField("mode1"));
  const std::string body = part("Model", "whisper-cheap") + part("model", "whisper-pricey") + closing();
  BOOST_TEST(rewrite(body, "x", {}).error.value_or("") == "the multipart body names 'model' more than once");
  const Rewritten upper = rewrite(part("MODEL", "whisper-cheap") + closing(), "whisper-1", {});
  BOOST_TEST(upper.model.value_or("") == "whisper-cheap");
  BOOST_TEST(upper.out == part("MODEL", "whisper-1") + closing());
}

BOOST_AUTO_TEST_CASE(only_the_model_value_changes_whatever_the_pieces) {
  // File first (as the Node SDK sends it when the caller writes it first), then the model.
  const std::string body = "preamble\r\n" + filePart(awkwardContent()) + part("model", "whisper-large") +
                           part("response_format", "json") + closing() + "epilogue";
  const std::string expected = "preamble\r\n" + filePart(awkwardContent()) + part("model", "whisper-1") +
                               part("response_format", "json") + closing() + "epilogue";
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    const Rewritten one = rewrite(body, "whisper-1", {cut});
    BOOST_TEST_REQUIRE(!one.error.has_value(), "cut at " << cut << ": " << one.error.value_or(""));
    BOOST_TEST_REQUIRE(one.out == expected, "cut at " << cut);
    BOOST_TEST_REQUIRE(one.model.value_or("") == "whisper-large", "cut at " << cut);
  }
}

BOOST_AUTO_TEST_CASE(two_cuts_anywhere_and_byte_by_byte_give_the_same_body) {
  const std::string body = part("model", "m") + filePart("\r\n--" + std::string(kBoundary.substr(0, 5))) + closing();
  const std::string expected = part("model", "upstream-model-name") +
                               filePart("\r\n--" + std::string(kBoundary.substr(0, 5))) + closing();
  for (size_t first = 0; first <= body.size(); ++first) {
    for (size_t second = first; second <= body.size(); second += 7) {
      const Rewritten two = rewrite(body, "upstream-model-name", {first, second});
      BOOST_TEST_REQUIRE(two.out == expected, "cuts at " << first << ", " << second);
    }
  }
  std::vector<size_t> every;
  for (size_t i = 1; i < body.size(); ++i) every.push_back(i);
  BOOST_TEST(rewrite(body, "upstream-model-name", every).out == expected);
}

BOOST_AUTO_TEST_CASE(reading_only_passes_every_byte_and_finds_the_model) {
  const std::string body = part("model", "whisper-1") + filePart(awkwardContent()) + closing();
  for (size_t cut = 0; cut <= body.size(); cut += 3) {
    const Rewritten read = rewrite(body, std::nullopt, {cut});
    BOOST_TEST_REQUIRE(read.out == body, "cut at " << cut);
    BOOST_TEST_REQUIRE(read.model.value_or("") == "whisper-1");
  }
}

BOOST_AUTO_TEST_CASE(an_empty_model_value_and_padding_after_a_delimiter_are_kept) {
  const std::string body = "--" + std::string(kBoundary) + "  \t\r\nContent-Disposition: form-data; name=model\r\n\r\n\r\n" +
                           closing();
  const Rewritten result = rewrite(body, "x", {});
  BOOST_TEST(!result.error.has_value());
  BOOST_TEST(result.model.value_or("<none>") == "");
  BOOST_TEST(result.out == "--" + std::string(kBoundary) +
                               "  \t\r\nContent-Disposition: form-data; name=model\r\n\r\nx\r\n" + closing());
}

BOOST_AUTO_TEST_CASE(a_second_model_field_is_refused) {
  const std::string body = part("model", "a") + part("model", "b") + closing();
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    const Rewritten result = rewrite(body, "x", {cut});
    BOOST_TEST_REQUIRE(result.error.value_or("") == "the multipart body names 'model' more than once");
  }
}

BOOST_AUTO_TEST_CASE(part_headers_and_the_model_value_are_bounded) {
  MultipartLimits limits;
  limits.max_header_bytes = 100;
  limits.max_model_bytes = 16;
  const std::string big_header = part("file", "x", "X-Padding: " + std::string(200, 'p') + "\r\n") + closing();
  BOOST_TEST(rewrite(big_header, "m", {}, limits).error.value_or("") == "a multipart part's headers exceed 100 bytes");
  const std::string long_model = part("model", std::string(17, 'm')) + closing();
  BOOST_TEST(rewrite(long_model, "m", {5}, limits).error.value_or("") ==
             "the multipart 'model' field is longer than 16 bytes");
  const std::string fits = part("model", std::string(16, 'm')) + closing();
  BOOST_TEST(!rewrite(fits, "m", {5}, limits).error.has_value());
  limits.max_parts = 2;
  const std::string many = part("a", "1") + part("b", "2") + part("c", "3") + closing();
  BOOST_TEST(rewrite(many, "m", {}, limits).error.value_or("") == "the multipart body has more than 2 parts");
}

BOOST_AUTO_TEST_CASE(malformed_bodies_are_refused) {
  BOOST_TEST(rewrite(part("model", "m"), "x", {}).error.value_or("") ==
             "the multipart body ended before its closing boundary");
  BOOST_TEST(rewrite("--" + std::string(kBoundary) + "x\r\n", "x", {}).error.has_value());
  BOOST_TEST(rewrite("--" + std::string(kBoundary) + "\rX", "x", {}).error.has_value());
  // The boundary may not appear in content (RFC 2046): a delimiter followed by anything else is refused.
  BOOST_TEST(rewrite(part("file", "a\r\n--" + std::string(kBoundary) + "X") + closing(), "x", {}).error.has_value());
  BOOST_TEST(rewrite("no delimiter at all", "x", {}).error.value_or("") ==
             "the multipart body ended before its closing boundary");
}

BOOST_AUTO_TEST_CASE(an_error_sticks) {
  MultipartModelRewriter rewriter(kBoundary, "x");
  std::string out;
  BOOST_TEST(!rewriter.feed("--" + std::string(kBoundary) + "?", &out).has_value());
  BOOST_TEST(!rewriter.feed(closing(), &out).has_value());
  BOOST_TEST(!rewriter.finish().has_value());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire
