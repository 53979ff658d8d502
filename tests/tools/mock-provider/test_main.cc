#define BOOST_TEST_MODULE mock_provider_tests
#include <boost/test/unit_test.hpp>
