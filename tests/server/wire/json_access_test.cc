#include "server/wire/json_access.h"

#include <boost/test/unit_test.hpp>

namespace sluice::wire {
namespace {

const Json kObject = Json::parse(R"({"s":"text","n":null,"i":42,"f":4096.0,"half":1.5,"big":18446744073709551615,
  "neg":-7,"b":true,"no":false,"o":{"k":1},"a":[1],"d":"1024","bad":"12x"})");

BOOST_AUTO_TEST_SUITE(json_access)

BOOST_AUTO_TEST_CASE(a_json_null_reads_as_absent_everywhere) {
  BOOST_TEST(member(kObject, "n") == nullptr);
  BOOST_TEST(objectMember(kObject, "n") == nullptr);
  BOOST_TEST(arrayMember(kObject, "n") == nullptr);
  BOOST_TEST(!optionalString(kObject, "n").has_value());
  BOOST_TEST(stringMember(kObject, "n", "fallback") == "fallback");
  BOOST_TEST(!intMember(kObject, "n").has_value());
  BOOST_TEST(!int64Member(kObject, "n").has_value());
  BOOST_TEST(!numberMember(kObject, "n").has_value());
  BOOST_TEST(!boolMember(kObject, "n").has_value());
  BOOST_TEST(!trueMember(kObject, "n"));
}

BOOST_AUTO_TEST_CASE(missing_members_and_non_objects_read_as_absent) {
  BOOST_TEST(member(kObject, "missing") == nullptr);
  BOOST_TEST(member(Json::array(), "s") == nullptr);
  BOOST_TEST(member(Json("s"), "s") == nullptr);
  BOOST_TEST(stringMember(Json(nullptr), "s") == "");
}

BOOST_AUTO_TEST_CASE(a_value_of_another_type_reads_as_absent) {
  BOOST_TEST(!optionalString(kObject, "i").has_value());
  BOOST_TEST(stringMember(kObject, "i", "x") == "x");
  BOOST_TEST(objectMember(kObject, "a") == nullptr);
  BOOST_TEST(arrayMember(kObject, "o") == nullptr);
  BOOST_TEST(!intMember(kObject, "s").has_value());
  BOOST_TEST(!boolMember(kObject, "i").has_value());
  BOOST_TEST(!numberMember(kObject, "s").has_value());
}

BOOST_AUTO_TEST_CASE(values_of_the_right_type_are_read) {
  BOOST_TEST(optionalString(kObject, "s").value_or("") == "text");
  BOOST_TEST(stringMember(kObject, "s") == "text");
  BOOST_TEST(objectMember(kObject, "o") != nullptr);
  BOOST_TEST(arrayMember(kObject, "a") != nullptr);
  BOOST_TEST(boolMember(kObject, "no").value_or(true) == false);
  BOOST_TEST(trueMember(kObject, "b"));
  BOOST_TEST(!trueMember(kObject, "no"));
  BOOST_TEST(numberMember(kObject, "half").value_or(0) == 1.5);
}

BOOST_AUTO_TEST_CASE(integers_are_whole_numbers_that_fit) {
  BOOST_TEST(intMember(kObject, "i").value_or(0) == 42);
  BOOST_TEST(intMember(kObject, "f").value_or(0) == 4096);  // 4096.0 is a whole number
  BOOST_TEST(intMember(kObject, "neg").value_or(0) == -7);
  BOOST_TEST(!intMember(kObject, "half").has_value());
  BOOST_TEST(!intMember(kObject, "big").has_value());  // past int64_t
  BOOST_TEST(!intMember(kObject, "d").has_value());    // a string is not a number here
}

BOOST_AUTO_TEST_CASE(int64_member_also_reads_a_decimal_string) {
  BOOST_TEST(int64Member(kObject, "d").value_or(0) == 1024);
  BOOST_TEST(int64Member(kObject, "i").value_or(0) == 42);
  BOOST_TEST(!int64Member(kObject, "bad").has_value());
  BOOST_TEST(!int64Member(kObject, "s").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire
