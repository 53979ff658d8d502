#include "server/audit/journal.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "server/audit/record_json.h"
#include "server/log/json_log.h"

namespace sluice::audit {

namespace {

int openReadWrite(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "audit journal " + path);
  return fd;
}

uint64_t roundUp(uint64_t size, uint64_t step) { return (size + step - 1) / step * step; }

// How many bytes of `fd`, from its start and at most `limit`, come before the first zero byte.
// With pread: a hole reads as zeros and is never allocated or faulted on.
uint64_t linesLength(int fd, uint64_t limit, const std::string& path) {
  std::string block(64u << 10, '\0');
  uint64_t offset = 0;
  while (offset < limit) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(block.size(), limit - offset));
    const ssize_t got = ::pread(fd, block.data(), want, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "audit journal " + path);
    }
    if (got == 0) break;
    if (const void* zero = std::memchr(block.data(), 0, static_cast<size_t>(got))) {
      return offset + static_cast<uint64_t>(static_cast<const char*>(zero) - block.data());
    }
    offset += static_cast<uint64_t>(got);
  }
  return offset;
}

// posix_fallocate answers its error rather than setting errno.
int reserveRange(int fd, uint64_t from, uint64_t length) {
  int error = 0;
  do {
    error = ::posix_fallocate(fd, static_cast<off_t>(from), static_cast<off_t>(length));
  } while (error == EINTR);
  return error;
}

uint64_t fileLength(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace

Journal::Journal(std::string path) : path_(std::move(path)) {
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
  open();
}

Journal::~Journal() {
  unmap();
  if (fd_ >= 0) ::close(fd_);
}

void Journal::unmap() {
  if (map_ != nullptr) ::munmap(map_, capacity_);
  map_ = nullptr;
  capacity_ = 0;
}

void Journal::open() {
  fd_ = openReadWrite(path_);
  const uint64_t length = fileLength(fd_);
  try {
    // The lines end at the first zero byte (the file's own length, when it was written whole by an
    // older build or a rewrite).
    size_ = linesLength(fd_, length, path_);
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
  if (!mapReserved(size_ + 1)) turnOff(errno, "opening it");
}

bool Journal::mapReserved(uint64_t needed) {
  for (const uint64_t step : {kGrowth, kMinGrowth}) {
    const uint64_t capacity = std::max(roundUp(needed, step), step);
    if (const int error = reserveRange(fd_, 0, capacity); error != 0) {
      errno = error;
      continue;
    }
    void* map = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (map == MAP_FAILED) return false;
    map_ = static_cast<char*>(map);
    capacity_ = capacity;
    // A longer file (an older build's sparse length, a burst) gives its tail back: past the lines.
    if (fileLength(fd_) > capacity_ && ::ftruncate(fd_, static_cast<off_t>(capacity_)) != 0) {
      // Kept longer; the tail is never read (the lines end at a zero).
    }
    return true;
  }
  return false;
}

void Journal::turnOff(int error, std::string_view during) {
  unmap();
  ++times_off_;
  off_reason_ = "no room for the audit journal on its volume while " + std::string(during) + ": " +
                std::system_category().message(error);
  log::error("audit journal off: a process killed outright now would lose its unfinished requests; rows still go "
             "to PostgreSQL or the spool",
             {{"journal", path_}, {"error", off_reason_}});
}

bool Journal::active() const {
  std::lock_guard lock(mutex_);
  return map_ != nullptr;
}

std::string Journal::offReason() const {
  std::lock_guard lock(mutex_);
  return off_reason_;
}

uint64_t Journal::timesTurnedOff() const {
  std::lock_guard lock(mutex_);
  return times_off_;
}

bool Journal::reserve(uint64_t more) {
  // One byte more than the lines: the zero that ends them.
  if (size_ + more < capacity_) return true;
  const uint64_t needed = size_ + more + 1;
  return resize(roundUp(needed, kGrowth)) || resize(roundUp(needed, kMinGrowth));
}

bool Journal::resize(uint64_t capacity) {
  // Reserved before it is mapped: a page of the mapping without its block on disk would fault
  // (SIGBUS) when the volume is full.
  if (capacity > capacity_) {
    if (const int error = reserveRange(fd_, capacity_, capacity - capacity_); error != 0) {
      errno = error;
      return false;
    }
  }
  void* map = ::mremap(map_, capacity_, capacity, MREMAP_MAYMOVE);
  if (map == MAP_FAILED) return false;
  map_ = static_cast<char*>(map);
  if (capacity < capacity_ && ::ftruncate(fd_, static_cast<off_t>(capacity)) != 0) {
    // The file stays longer than the mapping; its tail is never read (the lines end at a zero).
  }
  capacity_ = capacity;
  return true;
}

std::string Journal::beginLine(std::string_view row_json) {
  std::string line;
  line.reserve(row_json.size() + 8);
  line += "{\"b\":";
  line += row_json;
  line += "}\n";
  return line;
}

std::string Journal::endLine(std::string_view row_json) {
  std::string line;
  line.reserve(row_json.size() + 8);
  line += "{\"r\":";
  line += row_json;
  line += "}\n";
  return line;
}

std::string Journal::endCopyLine(std::string_view copy_line) {
  std::string line;
  line.reserve(copy_line.size() + kEndCopy.size());
  line += kEndCopy;
  line += copy_line;
  return line;
}

void Journal::append(std::string_view head, std::string_view body, std::string_view tail) {
  std::lock_guard lock(mutex_);
  const uint64_t length = head.size() + body.size() + tail.size();
  if (map_ == nullptr) return;  // off: the row still goes to PostgreSQL or the spool
  if (!reserve(length)) {
    turnOff(errno != 0 ? errno : ENOSPC, "growing it");
    return;
  }
  char* at = map_ + size_;
  // The new end first: a process killed while copying leaves a torn last line, which load() drops,
  // never a line that runs on into older bytes.
  at[length] = '\0';
  std::memcpy(at, head.data(), head.size());
  if (!body.empty()) std::memcpy(at + head.size(), body.data(), body.size());
  if (!tail.empty()) std::memcpy(at + head.size() + body.size(), tail.data(), tail.size());
  size_ += length;
}

void Journal::appendBegin(std::string_view row_json) { append("{\"b\":", row_json, "}\n"); }
void Journal::appendEnd(std::string_view row_json) { append("{\"r\":", row_json, "}\n"); }

uint64_t Journal::size() const {
  std::lock_guard lock(mutex_);
  return size_;
}

void Journal::rewrite(const std::vector<std::string>& lines) {
  std::lock_guard lock(mutex_);
  if (fd_ < 0) throw std::system_error(EBADF, std::generic_category(), "audit journal " + path_);
  // In place, in pages already allocated and mapped: a new file each time would cost a page fault
  // per 4 KiB of every line written after it. A process killed while this copies leaves the new
  // lines, a torn one, then older lines up to the old end: all rows the writer already has (a
  // replay inserts a row once) or begins of requests whose rows are in PostgreSQL or the spool
  // (an interrupted row never replaces a real one: same id and created_at).
  uint64_t total = 0;
  for (const auto& line : lines) total += line.size();
  if (map_ == nullptr) {
    // Off: on again only once the room for these lines and the old ones (whose blocks the file
    // still holds) can be reserved with a step to grow into: a volume still full keeps it off,
    // rather than on and off again at every compaction.
    if (!mapReserved(std::max(total, size_) + 1 + kMinGrowth)) {
      throw std::system_error(errno ? errno : ENOSPC, std::generic_category(), "audit journal still off " + path_);
    }
    log::info("audit journal on again", {{"journal", path_}});
    off_reason_.clear();
  } else if (total + 1 > capacity_ && !resize(roundUp(total + 1, kGrowth)) && !resize(roundUp(total + 1, kMinGrowth))) {
    throw std::system_error(errno ? errno : ENOSPC, std::generic_category(), "audit journal rewrite " + path_);
  }
  uint64_t at = 0;
  for (const auto& line : lines) {
    std::memcpy(map_ + at, line.data(), line.size());
    at += line.size();
  }
  map_[total] = '\0';
  size_ = total;
  // A burst grew the file: give the memory back once it is mostly empty again.
  if (capacity_ > kGrowth && total + 1 <= kGrowth / 2) resize(kGrowth);
}

Journal::Loaded Journal::parse(std::string_view text) {
  Loaded loaded;
  std::vector<std::string> begin_order;
  std::unordered_map<std::string, std::string> begun;  // id -> its last begin row
  std::unordered_map<std::string, bool> ended;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) break;  // a torn last line: the process died writing it
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    std::string id;
    std::string text_row;
    bool is_end = false;
    bool abandoned = false;
    if (line.starts_with(kBeginCopy) || line.starts_with(kEndCopy)) {
      is_end = line.starts_with(kEndCopy);
      const std::string_view copy_line = line.substr(kBeginCopy.size());
      try {
        text_row = copyLineToRowJson(copy_line);
      } catch (const std::invalid_argument&) {
        continue;  // a torn line left by a compaction the process died in
      }
      id = copyLineId(copy_line);
      if (id.empty()) continue;
    } else {
      const auto parsed = nlohmann::json::parse(line, nullptr, false);
      if (!parsed.is_object() || parsed.size() != 1) continue;
      const auto& [kind, row] = *parsed.items().begin();
      if (!row.is_object() || !row.contains("id") || !row["id"].is_string()) continue;
      if (kind != "r" && kind != "b") continue;
      is_end = kind == "r";
      abandoned = row.contains("abandoned");
      id = row["id"];
      text_row = row.dump();
    }
    if (is_end) {
      // {"id":…,"abandoned":true}: the request ended without a row of its own.
      if (!ended[id] && !abandoned) loaded.ended.push_back(std::move(text_row));
      ended[id] = true;
    } else {
      if (!begun.contains(id)) begin_order.push_back(id);
      begun[id] = std::move(text_row);
    }
  }
  for (const auto& id : begin_order) {
    if (!ended[id]) loaded.interrupted.push_back(begun[id]);
  }
  return loaded;
}

Journal::Loaded Journal::load() const {
  std::lock_guard lock(mutex_);
  if (fd_ < 0) return {};
  // Read, not looked at through the mapping: the lines are there whether the journal is on or off.
  std::string text(size_, '\0');
  uint64_t done = 0;
  while (done < size_) {
    const ssize_t got = ::pread(fd_, text.data() + done, size_ - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<uint64_t>(got);
  }
  text.resize(done);
  return parse(text);
}

}  // namespace sluice::audit
