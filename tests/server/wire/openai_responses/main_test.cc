#define BOOST_TEST_MODULE wire_openai_responses_tests
#include <boost/test/unit_test.hpp>
