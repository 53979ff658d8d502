#pragma once
// The placeholders minted for one request and the values they stand for: what restoring the answer
// needs. A value of the request, built by maskRequest; read-only afterwards. Holds the originals
// (secrets), so it lives as long as the request and is never logged or stored.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "server/protection/detectors.h"

namespace sluice::protection {

class Mapping {
 public:
  // Records that ⟦KIND_number⟧ stands for `original`. Precondition: 1 <= number <=
  // kMaxPlaceholderNumber, `original` not empty, the placeholder not yet assigned.
  void assign(Kind kind, int number, std::string original);

  // The original behind ⟦KIND_number⟧, or nullptr when this request did not mint it.
  const std::string* original(Kind kind, int number) const {
    const auto& list = originals_[static_cast<size_t>(kind)];
    if (number < 1 || static_cast<size_t>(number) > list.size()) return nullptr;
    const std::string& value = list[number - 1];
    return value.empty() ? nullptr : &value;
  }

  // Number of placeholders minted.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  // Per kind, the original of number N at [N - 1]; an empty string for a number not minted (one the
  // client's own text already used).
  std::array<std::vector<std::string>, kKindCount> originals_;
  size_t size_ = 0;
};

}  // namespace sluice::protection
