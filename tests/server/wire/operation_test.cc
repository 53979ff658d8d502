#include "server/wire/operation.h"

#include <boost/test/unit_test.hpp>

namespace sluice::wire {
namespace {

BOOST_AUTO_TEST_SUITE(operation)

BOOST_AUTO_TEST_CASE(each_path_names_its_operation_with_or_without_v1) {
  BOOST_TEST((operationForPath("/v1/embeddings") == Operation::Embeddings));
  BOOST_TEST((operationForPath("/embeddings") == Operation::Embeddings));
  BOOST_TEST((operationForPath("/v1/images/generations") == Operation::ImageGenerations));
  BOOST_TEST((operationForPath("/v1/audio/speech") == Operation::Speech));
  BOOST_TEST((operationForPath("/v1/audio/transcriptions") == Operation::Transcriptions));
  BOOST_TEST((operationForPath("/v1/audio/translations") == Operation::Translations));
  BOOST_TEST((operationForPath("/v1/moderations") == Operation::Moderations));
  BOOST_TEST((operationForPath("/v1/rerank") == Operation::Rerank));
  BOOST_TEST(!operationForPath("/v1/chat/completions").has_value());
  BOOST_TEST(!operationForPath("/v1/embeddings/").has_value());
  BOOST_TEST(!operationForPath("/v2/embeddings").has_value());
  BOOST_TEST(!operationForPath("v1/embeddings").has_value());
}

BOOST_AUTO_TEST_CASE(operations_serve_their_kind_on_the_same_path_upstream) {
  for (const Operation operation : {Operation::Embeddings, Operation::ImageGenerations, Operation::Speech,
                                    Operation::Transcriptions, Operation::Translations, Operation::Moderations,
                                    Operation::Rerank}) {
    BOOST_TEST(upstreamPath(operation) == "/" + std::string(toString(operation)));
    BOOST_TEST((operationForPath("/v1" + std::string(upstreamPath(operation))) == operation));
  }
  BOOST_TEST((kindFor(Operation::Speech) == catalog::ModelKind::Audio));
  BOOST_TEST((kindFor(Operation::Rerank) == catalog::ModelKind::Rerank));
  BOOST_TEST(isMultipart(Operation::Transcriptions));
  BOOST_TEST(!isMultipart(Operation::Speech));
}

BOOST_AUTO_TEST_CASE(a_kind_mismatch_names_where_the_model_is_served) {
  BOOST_TEST(kindMismatchMessage("text-embedding-3-small", catalog::ModelKind::Embedding, "/v1/chat/completions") ==
             "model 'text-embedding-3-small' is an embedding model, served on /v1/embeddings, not on "
             "/v1/chat/completions");
  BOOST_TEST(kindMismatchMessage("gpt-5", catalog::ModelKind::Chat, "/v1/rerank") ==
             "model 'gpt-5' is a chat model, served on /v1/messages, /v1/chat/completions and /v1/responses, not "
             "on /v1/rerank");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire
