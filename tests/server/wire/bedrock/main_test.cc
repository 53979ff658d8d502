#define BOOST_TEST_MODULE wire_bedrock_tests
#include <boost/test/unit_test.hpp>
