#define BOOST_TEST_MODULE scim_tests
#include <boost/test/unit_test.hpp>
