// Fuzz target: the gateway's JSON reader (parseJsonText) against nlohmann's parse on the same text,
// and its writer (dumpJsonText) against nlohmann's dump.
// Both must fail, or both give the same value: the same types all the way down (an unsigned number
// is not a signed one), the same members in the same order, the same strings and the same numbers
// to the bit.
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "server/wire/json_parse.h"

namespace {

using sluice::wire::Json;

bool same(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::object: {
      if (a.size() != b.size()) return false;
      auto i = a.items().begin();
      auto j = b.items().begin();
      for (; i != a.items().end(); ++i, ++j) {
        if (i.key() != j.key() || !same(i.value(), j.value())) return false;
      }
      return true;
    }
    case Json::value_t::array:
      if (a.size() != b.size()) return false;
      for (size_t k = 0; k < a.size(); ++k) {
        if (!same(a[k], b[k])) return false;
      }
      return true;
    case Json::value_t::number_float: {
      const double x = a.get<double>();
      const double y = b.get<double>();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    default: return a == b;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Past the bound only the gateway's reader refuses (nlohmann would recurse); not compared.
  if (sluice::wire::nestsDeeperThan(text)) return 0;
  const Json ours = sluice::wire::parseJsonText(text);
  const Json theirs = Json::parse(text, nullptr, false);
  if (ours.is_discarded() != theirs.is_discarded()) std::abort();
  if (!ours.is_discarded() && !same(ours, theirs)) std::abort();
  // The writer: what nlohmann's dump writes, for the value read and for the text as one string
  // (which need not be UTF-8: nlohmann replaces what is broken).
  if (!ours.is_discarded() && sluice::wire::dumpJsonText(ours) != theirs.dump(-1, ' ', false, Json::error_handler_t::replace)) {
    std::abort();
  }
  const Json as_string(std::string{text});
  if (sluice::wire::dumpJsonText(as_string) != as_string.dump(-1, ' ', false, Json::error_handler_t::replace)) std::abort();
  return 0;
}
