#include "server/audit/spool.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "server/log/json_log.h"

namespace sluice::audit {

namespace {

constexpr int kMaxSiblings = 63;

std::system_error ioError(const std::string& what, const std::string& path) {
  return std::system_error(errno, std::generic_category(), what + " " + path);
}

std::string candidate(const std::string& base, int index) {
  return index == 0 ? base : base + "." + std::to_string(index);
}

uint64_t fileSize(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return 0;
  return static_cast<uint64_t>(info.st_size);
}

void writeAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw ioError("cannot write", path);
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
}

// Bytes [from, to) of fd.
std::string readRange(int fd, uint64_t from, uint64_t to, const std::string& path) {
  std::string data(to - from, '\0');
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t got = ::pread(fd, data.data() + done, data.size() - done, static_cast<off_t>(from + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw ioError("cannot read", path);
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  data.resize(done);
  return data;
}

// Cuts a torn last line (a crash in the middle of an append) so the next append starts clean.
void dropTornTail(int fd, const std::string& path) {
  const uint64_t size = fileSize(fd);
  if (size == 0) return;
  uint64_t end = size;
  constexpr uint64_t kBlock = 64 * 1024;
  while (end > 0) {
    const uint64_t from = end > kBlock ? end - kBlock : 0;
    const std::string block = readRange(fd, from, end, path);
    const size_t newline = block.rfind('\n');
    if (newline != std::string::npos) {
      end = from + newline + 1;
      break;
    }
    end = from;
  }
  if (end == size) return;
  log::warn("audit spool: dropping a torn last line", {{"path", path}, {"bytes", size - end}});
  if (::ftruncate(fd, static_cast<off_t>(end)) != 0) throw ioError("cannot truncate", path);
  ::fdatasync(fd);
}

void syncDirectory(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

Spool::Spool(std::string base_path, std::string path, int fd)
    : base_path_(std::move(base_path)), path_(std::move(path)), fd_(fd) {}

Spool::~Spool() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<Spool> Spool::open(const std::string& path) {
  std::error_code ignored;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  for (int index = 0; index <= kMaxSiblings; ++index) {
    const std::string name = candidate(path, index);
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error("cannot open the audit spool " + name + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      continue;  // a live process owns this one
    }
    // A crash during discardPrefix may leave the replacement half-written; the original is whole.
    std::filesystem::remove(name + ".tmp", ignored);
    dropTornTail(fd, name);
    return std::unique_ptr<Spool>(new Spool(path, name, fd));
  }
  throw std::runtime_error("every audit spool " + path + "[.1-" + std::to_string(kMaxSiblings) +
                           "] is held by another process");
}

void Spool::append(std::string_view lines) {
  std::lock_guard lock(mutex_);
  const uint64_t before = fileSize(fd_);
  try {
    writeAll(fd_, lines, path_);
    if (::fdatasync(fd_) != 0) throw ioError("cannot fsync", path_);
  } catch (...) {
    // Never leave half a line behind: the next append would glue onto it.
    if (::ftruncate(fd_, static_cast<off_t>(before)) != 0) {
      log::error("audit spool: cannot cut a failed append", {{"path", path_}});
    }
    throw;
  }
}

uint64_t Spool::size() const {
  std::lock_guard lock(mutex_);
  return fileSize(fd_);
}

Spool::Chunk Spool::read(uint64_t offset, size_t max_lines) const {
  std::lock_guard lock(mutex_);
  Chunk chunk;
  chunk.next_offset = offset;
  const uint64_t size = fileSize(fd_);
  constexpr uint64_t kBlock = 256 * 1024;
  std::string pending;
  uint64_t position = offset;
  while (chunk.lines.size() < max_lines && position < size) {
    const std::string block = readRange(fd_, position, std::min(size, position + kBlock), path_);
    if (block.empty()) break;
    position += block.size();
    pending += block;
    size_t start = 0;
    for (;;) {
      const size_t newline = pending.find('\n', start);
      if (newline == std::string::npos || chunk.lines.size() >= max_lines) break;
      if (newline > start) chunk.lines.emplace_back(pending, start, newline - start);
      chunk.next_offset += newline + 1 - start;
      start = newline + 1;
    }
    pending.erase(0, start);
  }
  return chunk;
}

void Spool::discardPrefix(uint64_t consumed) {
  std::lock_guard lock(mutex_);
  const uint64_t size = fileSize(fd_);
  if (consumed == 0) return;
  if (consumed >= size) {
    if (::ftruncate(fd_, 0) != 0) throw ioError("cannot truncate", path_);
    ::fdatasync(fd_);
    return;
  }
  const std::string rest = readRange(fd_, consumed, size, path_);
  const std::string temporary = path_ + ".tmp";
  const int fd = ::open(temporary.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw ioError("cannot create", temporary);
  try {
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) throw ioError("cannot lock", temporary);
    writeAll(fd, rest, temporary);
    if (::fdatasync(fd) != 0) throw ioError("cannot fsync", temporary);
    if (::rename(temporary.c_str(), path_.c_str()) != 0) throw ioError("cannot rename over", path_);
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  syncDirectory(path_);
  ::close(fd_);
  fd_ = fd;
}

size_t Spool::adoptOrphans() {
  size_t adopted = 0;
  for (int index = 0; index <= kMaxSiblings; ++index) {
    const std::string name = candidate(base_path_, index);
    if (name == path_) continue;
    const int fd = ::open(name.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    try {
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && fileSize(fd) > 0) {
        std::string data = readRange(fd, 0, fileSize(fd), name);
        const size_t end = data.rfind('\n');
        data.resize(end == std::string::npos ? 0 : end + 1);
        size_t lines = 0;
        for (const char c : data) lines += c == '\n';
        append(data);
        if (::ftruncate(fd, 0) != 0) throw ioError("cannot truncate", name);
        ::unlink(name.c_str());
        adopted += lines;
        log::info("audit spool: adopted the rows of an orphaned spool", {{"from", name}, {"into", path_}, {"rows", lines}});
      }
    } catch (const std::exception& error) {
      log::error("audit spool: cannot adopt an orphaned spool", {{"path", name}, {"error", error.what()}});
    }
    ::close(fd);
  }
  return adopted;
}

}  // namespace sluice::audit
