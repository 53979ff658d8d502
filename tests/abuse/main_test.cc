#define BOOST_TEST_MODULE abuse_tests
#include <boost/test/unit_test.hpp>
