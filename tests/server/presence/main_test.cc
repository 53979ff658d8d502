#define BOOST_TEST_MODULE presence_tests
#include <boost/test/unit_test.hpp>
