#define BOOST_TEST_MODULE identity_database_tests
#include <boost/test/unit_test.hpp>
