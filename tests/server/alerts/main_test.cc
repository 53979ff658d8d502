#define BOOST_TEST_MODULE alerts_tests
#include <boost/test/unit_test.hpp>
