#define BOOST_TEST_MODULE cloud_tests
#include <boost/test/unit_test.hpp>
