#define BOOST_TEST_MODULE audit_tests
#include <boost/test/unit_test.hpp>
