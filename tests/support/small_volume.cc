#include "tests/support/small_volume.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sluice::test {

namespace {

constexpr const char* kFiller = "filler";

}  // namespace

SmallVolume::SmallVolume(uint64_t bytes) {
  char pattern[] = "/tmp/sluice-small-volume-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  path_ = pattern;
  const std::string options = "size=" + std::to_string(bytes) + ",mode=0700";
  if (::mount("tmpfs", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
    const int error = errno;
    ::rmdir(path_.c_str());
    throw std::runtime_error("cannot mount a " + std::to_string(bytes) + "-byte tmpfs on " + path_ + ": " +
                             std::strerror(error) + " (this test needs root and the right to mount, as CI has)");
  }
  mounted_ = true;
}

SmallVolume::~SmallVolume() {
  if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  ::rmdir(path_.c_str());
}

uint64_t SmallVolume::freeBytes() const {
  struct statvfs info {};
  if (::statvfs(path_.c_str(), &info) != 0) return 0;
  return static_cast<uint64_t>(info.f_bavail) * info.f_frsize;
}

void SmallVolume::fill(uint64_t leave) {
  const std::string filler = file(kFiller);
  const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot open " + filler + ": " + std::strerror(errno));
  const std::string block(4096, 'f');
  while (freeBytes() > leave) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(block.size(), freeBytes() - leave));
    if (::write(fd, block.data(), want) <= 0) {
      const int error = errno;
      ::close(fd);
      if (error == ENOSPC) return;
      throw std::runtime_error("cannot fill " + path_ + ": " + std::strerror(error));
    }
  }
  ::close(fd);
}

void SmallVolume::release() { ::unlink(file(kFiller).c_str()); }

}  // namespace sluice::test
