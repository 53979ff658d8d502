#define BOOST_TEST_MODULE cli_tests
#include <boost/test/unit_test.hpp>
