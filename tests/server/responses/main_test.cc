#define BOOST_TEST_MODULE responses_tests
#include <boost/test/unit_test.hpp>
