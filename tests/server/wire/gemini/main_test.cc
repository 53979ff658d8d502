#define BOOST_TEST_MODULE wire_gemini_tests
#include <boost/test/unit_test.hpp>
