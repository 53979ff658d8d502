#define BOOST_TEST_MODULE wire_anthropic_tests
#include <boost/test/unit_test.hpp>
