#include "server/audit/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace sluice::audit {

namespace {

int openAppend(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "audit journal " + path);
  return fd;
}

bool writeAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Journal::Journal(std::string path) : path_(std::move(path)) {
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
  fd_ = openAppend(path_);
  struct stat st {};
  if (::fstat(fd_, &st) == 0) size_ = static_cast<uint64_t>(st.st_size);
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
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

void Journal::append(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (writeAll(fd_, line)) size_ += line.size();
}

void Journal::appendBegin(std::string_view row_json) { append(beginLine(row_json)); }
void Journal::appendEnd(std::string_view row_json) { append(endLine(row_json)); }

uint64_t Journal::size() const {
  std::lock_guard lock(mutex_);
  return size_;
}

void Journal::rewrite(const std::vector<std::string>& lines) {
  std::lock_guard lock(mutex_);
  const std::string temporary = path_ + ".new";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "audit journal " + temporary);
  uint64_t size = 0;
  bool ok = true;
  for (const auto& line : lines) {
    ok = ok && writeAll(fd, line);
    size += line.size();
  }
  ::close(fd);
  if (!ok || ::rename(temporary.c_str(), path_.c_str()) != 0) {
    ::unlink(temporary.c_str());
    throw std::system_error(errno ? errno : EIO, std::generic_category(), "audit journal rewrite " + path_);
  }
  ::close(fd_);
  fd_ = openAppend(path_);
  size_ = size;
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
    const auto parsed = nlohmann::json::parse(line, nullptr, false);
    if (!parsed.is_object() || parsed.size() != 1) continue;
    const auto& [kind, row] = *parsed.items().begin();
    if (!row.is_object() || !row.contains("id") || !row["id"].is_string()) continue;
    const std::string id = row["id"];
    const std::string text_row = row.dump();
    if (kind == "r") {
      // {"id":…,"abandoned":true}: the request ended without a row of its own.
      if (!ended[id] && !row.contains("abandoned")) loaded.ended.push_back(text_row);
      ended[id] = true;
    } else if (kind == "b") {
      if (!begun.contains(id)) begin_order.push_back(id);
      begun[id] = text_row;
    }
  }
  for (const auto& id : begin_order) {
    if (!ended[id]) loaded.interrupted.push_back(begun[id]);
  }
  return loaded;
}

Journal::Loaded Journal::load() const {
  std::ifstream in(path_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str());
}

}  // namespace sluice::audit
