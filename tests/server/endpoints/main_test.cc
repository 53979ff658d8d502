#define BOOST_TEST_MODULE endpoints_tests
#include <boost/test/unit_test.hpp>
