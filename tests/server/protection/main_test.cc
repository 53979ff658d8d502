#define BOOST_TEST_MODULE protection_tests
#include <boost/test/unit_test.hpp>
