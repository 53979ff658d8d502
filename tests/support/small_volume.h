#pragma once
// A small volume of its own for a test about full disks: a tmpfs of `bytes` mounted on a fresh
// directory (the tests run as root, as CI does), filled on demand to a few bytes of free space,
// unmounted when destroyed. Fails loudly: the constructor throws std::runtime_error naming why
// (not root, no mount permission in a container) rather than letting the test pass untested.

#include <cstdint>
#include <string>

namespace sluice::test {

class SmallVolume {
 public:
  explicit SmallVolume(uint64_t bytes);
  ~SmallVolume();
  SmallVolume(const SmallVolume&) = delete;
  SmallVolume& operator=(const SmallVolume&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  // Bytes the volume can still give.
  uint64_t freeBytes() const;
  // Writes a filler file until at most `leave` bytes are free. Throws when it cannot write.
  void fill(uint64_t leave);
  // Removes the filler: the space comes back.
  void release();

 private:
  std::string path_;
  bool mounted_ = false;
};

}  // namespace sluice::test
