// Fuzz target: data protection's masker (every detector on, a vault), then the restorer over what
// it masked. Byte 0 picks the shape (% 4): the rest as one message text; as several texts split at
// byte 0x1F; as a request body of wire (byte 0 / 4) % 4, masked and encoded for that wire; as a JSON
// document masked as an operation's body. Invariants (aborts otherwise): the detector's spans are
// in bounds, ordered and apart; a masked text restores to the original byte for byte. The replay
// also holds it to a CPU cost per byte on large inputs.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "server/protection/json_texts.h"
#include "server/protection/masker.h"
#include "server/protection/restorer.h"
#include "server/wire/json_parse.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

using namespace sluice;

const protection::Detector& detector() {
  using protection::Kind;
  static const protection::Detector d = *protection::Detector::create(
      {Kind::Email, Kind::Phone, Kind::PaymentCard, Kind::Iban, Kind::ApiKey, Kind::Jwt, Kind::PrivateKey,
       Kind::Password, Kind::UrlCredentials, Kind::IpAddress},
      {"Acme Rocket Corp", "Project Nimbus", "ab", "-.-."});
  return d;
}

void checkSpans(std::string_view text) {
  size_t covered = 0;
  for (const protection::Span& span : detector().find(text)) {
    if (span.length == 0 || span.offset < covered || span.end() > text.size()) std::abort();
    covered = span.end();
  }
}

void maskTexts(const std::vector<std::string>& originals) {
  wire::Request request;
  for (const std::string& text : originals) {
    checkSpans(text);
    wire::Message message;
    message.content.push_back(wire::ContentBlock::ofText(text));
    request.messages.push_back(std::move(message));
  }
  const auto result = protection::maskRequest(request, detector());
  if (!result) return;  // a limit: the request would not be sent
  for (size_t i = 0; i < originals.size(); ++i) {
    const std::string& sent = request.messages[i].content[0].text;
    if (protection::restoreText(sent, result->mapping) != originals[i]) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (selector % 4) {
    case 0:
      maskTexts({std::string(body)});
      break;
    case 1: {
      std::vector<std::string> texts;
      size_t from = 0;
      for (size_t at = body.find('\x1f'); texts.size() < 64; at = body.find('\x1f', from)) {
        texts.emplace_back(body.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
        if (at == std::string_view::npos) break;
        from = at + 1;
      }
      maskTexts(texts);
      break;
    }
    case 2: {
      const catalog::Wire wire = fuzz::wireFrom(selector / 4);
      auto request = wire::decodeRequest(wire, body);
      if (!request) return 0;
      wire::EncodeOptions options;
      options.upstream_model = "m";
      if (protection::maskRequest(*request, detector())) (void)wire::encodeRequest(wire, *request, options);
      break;
    }
    default: {
      wire::Json document = wire::parseJsonText(body);
      if (!document.is_object()) return 0;
      const std::string_view skip[] = {"model"};
      if (protection::maskJsonTexts(document, detector(), skip)) (void)wire::dumpJsonText(document);
      break;
    }
  }
  return 0;
}
