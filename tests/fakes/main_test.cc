#define BOOST_TEST_MODULE fake_transport_tests
#include <boost/test/unit_test.hpp>
