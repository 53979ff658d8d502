#define BOOST_TEST_MODULE wire_openai_chat_tests
#include <boost/test/unit_test.hpp>
