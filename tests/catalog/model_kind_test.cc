// `kind:` on a model (chat by default; embedding, image, audio, moderation, rerank), the endpoints
// the other kinds may be deployed on, and their per-unit prices.

#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {

inline std::ostream& operator<<(std::ostream& os, ModelKind v) { return os << toString(v); }

namespace {

using testing::append;
using testing::at;
using testing::baselineSources;
using testing::compileClean;
using testing::edit;
using testing::expectError;

// Adds model `id` of `kind` with `pricing` (YAML flow map, or "" for none), deployed on `endpoint`.
CatalogSources withModel(const std::string& id, const std::string& kind, const std::string& pricing,
                         const std::string& endpoint) {
  CatalogSources sources = baselineSources();
  append(sources.models, "  " + id + ":\n    kind: " + kind + "\n" +
                             (pricing.empty() ? "" : "    pricing: " + pricing + "\n"));
  append(sources.deployments, "  " + id + ": [" + endpoint + "]\n");
  return sources;
}

BOOST_AUTO_TEST_SUITE(model_kind)

BOOST_AUTO_TEST_CASE(a_model_is_a_chat_model_unless_it_says_otherwise) {
  auto catalog = compileClean(baselineSources());
  BOOST_TEST(catalog->model("claude-sonnet-5-5")->kind == ModelKind::Chat);
  BOOST_TEST(catalog->model("deepseek-flash")->kind == ModelKind::Chat);
}

BOOST_AUTO_TEST_CASE(every_kind_is_read) {
  for (const auto& [text, kind] : std::vector<std::pair<std::string, ModelKind>>{
           {"chat", ModelKind::Chat},
           {"embedding", ModelKind::Embedding},
           {"image", ModelKind::Image},
           {"audio", ModelKind::Audio},
           {"moderation", ModelKind::Moderation},
           {"rerank", ModelKind::Rerank}}) {
    auto catalog = compileClean(withModel("m-" + text, text, "", "deepseek/api"));
    BOOST_TEST(catalog->model("m-" + text)->kind == kind, text);
    BOOST_TEST((parseModelKind(toString(kind)) == kind));
  }
}

BOOST_AUTO_TEST_CASE(an_unknown_kind_is_an_error_naming_the_kinds) {
  CatalogSources sources = withModel("text-embed", "embeddings", "", "deepseek/api");
  expectError(compileCatalog(sources), at(sources.models, "embeddings"),
              "kind 'embeddings' of model 'text-embed' must be one of: chat, embedding, image, audio, moderation, "
              "rerank");
}

BOOST_AUTO_TEST_CASE(kind_must_be_a_string) {
  CatalogSources sources = withModel("text-embed", "[embedding]", "", "deepseek/api");
  BOOST_TEST(!compileCatalog(sources).ok());
}

BOOST_AUTO_TEST_CASE(other_kinds_are_deployed_on_openai_style_endpoints_only) {
  // openai-chat and openai-responses endpoints are OpenAI-style base URLs: accepted.
  compileClean(withModel("text-embed", "embedding", "", "deepseek/api"));
  compileClean(withModel("text-embed", "embedding", "", "opencode-go/responses"));
  CatalogSources sources = withModel("text-embed", "embedding", "", "anthropic/api");
  expectError(compileCatalog(sources), at(sources.deployments, "anthropic/api]", 3),
              "model 'text-embed' is of kind embedding and is served on OpenAI's endpoints, but endpoint "
              "'anthropic/api' has wire anthropic; use an openai-chat or openai-responses endpoint");
}

BOOST_AUTO_TEST_CASE(a_chat_model_may_be_deployed_anywhere) {
  compileClean(withModel("chatty", "chat", "", "anthropic/api"));
}

BOOST_AUTO_TEST_CASE(the_default_model_must_be_a_chat_model) {
  CatalogSources sources = withModel("text-embed", "embedding", "", "deepseek/api");
  edit(sources.gateway, "default_model: claude-sonnet-5-5", "default_model: text-embed");
  expectError(compileCatalog(sources), at(sources.gateway, "text-embed"),
              "default_model 'text-embed' is of kind embedding; the default serves requests naming no model on the "
              "chat endpoints, so it must be a chat model");
}

BOOST_AUTO_TEST_CASE(per_unit_prices_are_microdollars_per_unit) {
  auto catalog = compileClean(withModel(
      "img", "image", "{ per_image: 0.04, per_1k_characters: 0.015, per_minute: 0.006, per_request: 0.001 }",
      "deepseek/api"));
  const Pricing& p = catalog->model("img")->pricing;
  BOOST_TEST(p.per_image == 40'000);
  BOOST_TEST(p.per_1k_characters == 15'000);
  BOOST_TEST(p.per_minute == 6'000);
  BOOST_TEST(p.per_request == 1'000);
  BOOST_TEST(p.input_per_million == 0);
  BOOST_TEST(p.output_per_million == 0);
}

BOOST_AUTO_TEST_CASE(other_kinds_need_no_token_prices_but_chat_models_still_do) {
  auto catalog = compileClean(withModel("text-embed", "embedding", "{ input_per_million: 0.02 }", "deepseek/api"));
  BOOST_TEST(catalog->model("text-embed")->pricing.input_per_million == 20'000);
  BOOST_TEST(catalog->model("text-embed")->pricing.output_per_million == 0);
  CatalogSources sources = withModel("chatty", "chat", "{ per_request: 0.01 }", "deepseek/api");
  expectError(compileCatalog(sources), at(sources.models, "pricing: { per_request"),
              "pricing of model 'chatty' needs input_per_million");
}

BOOST_AUTO_TEST_CASE(a_deployment_overrides_per_unit_prices) {
  CatalogSources sources = withModel("img", "image", "{ per_image: 0.04 }", "deepseek/api");
  edit(sources.deployments, "  img: [deepseek/api]\n",
       "  img:\n    - endpoint: deepseek/api\n      pricing: { per_image: 0.02 }\n    - opencode-go/chat\n");
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->deployment("img", "deepseek/api")->pricing.per_image == 20'000);
  BOOST_TEST(catalog->deployment("img", "opencode-go/chat")->pricing.per_image == 40'000);
}

BOOST_AUTO_TEST_CASE(an_unknown_price_key_is_still_an_error) {
  CatalogSources sources = withModel("img", "image", "{ per_picture: 0.04 }", "deepseek/api");
  BOOST_TEST(!compileCatalog(sources).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
