#define BOOST_TEST_MODULE metrics_tests
#include <boost/test/unit_test.hpp>
