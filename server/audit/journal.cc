#include "server/audit/journal.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "server/audit/record_json.h"

namespace sluice::audit {

namespace {

int openReadWrite(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "audit journal " + path);
  return fd;
}

uint64_t roundUp(uint64_t size, uint64_t step) { return (size + step - 1) / step * step; }

}  // namespace

Journal::Journal(std::string path) : path_(std::move(path)) {
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
  openMapped();
}

Journal::~Journal() { unmap(); }

void Journal::unmap() {
  if (map_ != nullptr) ::munmap(map_, capacity_);
  map_ = nullptr;
  capacity_ = 0;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Journal::openMapped() {
  fd_ = openReadWrite(path_);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int error = errno;
    unmap();
    throw std::system_error(error, std::generic_category(), "audit journal " + path_);
  }
  const auto length = static_cast<uint64_t>(st.st_size);
  capacity_ = std::max<uint64_t>(roundUp(length, kGrowth), kGrowth);
  if (::ftruncate(fd_, static_cast<off_t>(capacity_)) != 0) {
    const int error = errno;
    unmap();
    throw std::system_error(error, std::generic_category(), "audit journal " + path_);
  }
  void* map = ::mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (map == MAP_FAILED) {
    const int error = errno;
    capacity_ = 0;
    unmap();
    throw std::system_error(error, std::generic_category(), "audit journal " + path_);
  }
  map_ = static_cast<char*>(map);
  // The lines end at the first zero byte (the file's own length, when it was written whole by an
  // older build or a rewrite).
  const void* zero = length > 0 ? std::memchr(map_, 0, length) : nullptr;
  size_ = zero != nullptr ? static_cast<uint64_t>(static_cast<const char*>(zero) - map_) : length;
}

bool Journal::reserve(uint64_t more) {
  // One byte more than the lines: the zero that ends them.
  if (size_ + more < capacity_) return true;
  return resize(roundUp(size_ + more + 1, kGrowth));
}

bool Journal::resize(uint64_t capacity) {
  if (capacity > capacity_ && ::ftruncate(fd_, static_cast<off_t>(capacity)) != 0) return false;
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
  if (map_ == nullptr || !reserve(length)) return;  // disk full: the row still goes to PostgreSQL
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
  if (map_ == nullptr) throw std::system_error(EBADF, std::generic_category(), "audit journal " + path_);
  // In place, in pages already allocated and mapped: a new file each time would cost a page fault
  // per 4 KiB of every line written after it. A process killed while this copies leaves the new
  // lines, a torn one, then older lines up to the old end: all rows the writer already has (a
  // replay inserts a row once) or begins of requests whose rows are in PostgreSQL or the spool
  // (an interrupted row never replaces a real one: same id and created_at).
  uint64_t total = 0;
  for (const auto& line : lines) total += line.size();
  if (total + 1 > capacity_ && !resize(roundUp(total + 1, kGrowth))) {
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
  if (map_ == nullptr) return {};
  return parse(std::string_view(map_, size_));
}

}  // namespace sluice::audit
