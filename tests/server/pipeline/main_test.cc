#define BOOST_TEST_MODULE pipeline_tests
#include <boost/test/unit_test.hpp>
