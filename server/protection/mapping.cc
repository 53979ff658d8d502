#include "server/protection/mapping.h"

#include <cassert>
#include <utility>

#include "server/protection/placeholder.h"

namespace sluice::protection {

void Mapping::assign(Kind kind, int number, std::string original) {
  assert(number >= 1 && number <= kMaxPlaceholderNumber && !original.empty());
  auto& list = originals_[static_cast<size_t>(kind)];
  if (static_cast<size_t>(number) > list.size()) list.resize(number);
  assert(list[number - 1].empty());
  list[number - 1] = std::move(original);
  ++size_;
}

}  // namespace sluice::protection
