#define BOOST_TEST_MODULE admin_tests
#include <boost/test/unit_test.hpp>
