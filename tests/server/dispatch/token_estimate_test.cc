#include "server/dispatch/token_estimate.h"

#include <boost/test/unit_test.hpp>

using sluice::dispatch::estimateInputTokens;
using sluice::wire::ContentBlock;
using sluice::wire::Message;
using sluice::wire::Request;

BOOST_AUTO_TEST_SUITE(token_estimate)

BOOST_AUTO_TEST_CASE(counts_about_four_bytes_per_token_of_text) {
  Request request;
  ContentBlock system;
  system.text = std::string(40, 's');
  request.system.push_back(system);
  Message user;
  ContentBlock text;
  text.text = std::string(400, 'u');
  user.content.push_back(text);
  request.messages.push_back(user);
  BOOST_TEST(estimateInputTokens(request) == 110);
}

BOOST_AUTO_TEST_CASE(images_are_not_counted_so_the_estimate_errs_low) {
  Request request;
  Message user;
  ContentBlock image;
  image.type = ContentBlock::Type::Image;
  image.image.data = std::string(100000, 'A');
  user.content.push_back(image);
  request.messages.push_back(user);
  BOOST_TEST(estimateInputTokens(request) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
