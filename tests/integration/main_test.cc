#define BOOST_TEST_MODULE server_integration_tests
#include <boost/test/unit_test.hpp>
