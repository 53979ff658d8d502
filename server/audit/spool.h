#pragma once
// The audit spool: an append-only file of JSON lines (one row per line) holding the rows
// PostgreSQL could not take. Appends are fsynced before returning. The writer replays it from the
// front and then discards what it replayed; rows appended meanwhile are kept.
//
// One process owns a spool file at a time (flock). When `path` is held by another live process
// (two replicas on one host), open() takes the first free of path.1 … path.63 instead, and a
// later start adopts the rows of any of these files that no one holds (a crashed replica's).
// Thread-safe.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::audit {

class Spool {
 public:
  // Opens (creating it and its directory) the first free of path, path.1, …; drops a torn last line
  // left by a crash. Throws std::runtime_error naming the file when none can be opened.
  static std::unique_ptr<Spool> open(const std::string& path);
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  const std::string& path() const { return path_; }

  // Appends `lines` (complete lines, each ending in '\n') and fsyncs. Throws std::system_error.
  void append(std::string_view lines);

  uint64_t size() const;

  struct Chunk {
    std::vector<std::string> lines;  // without their '\n'
    uint64_t next_offset = 0;        // where the next read starts
  };
  // Up to `max_lines` complete lines starting at byte `offset`. Throws std::system_error.
  Chunk read(uint64_t offset, size_t max_lines) const;

  // Removes the first `consumed` bytes (lines already replayed), keeping anything after them.
  // Crash-safe: the rest is written to a new file that replaces this one by rename.
  void discardPrefix(uint64_t consumed);

  // Moves the rows of sibling spool files no live process holds (see above) into this one and
  // deletes them; returns how many lines were adopted. Never throws; problems are logged.
  size_t adoptOrphans();

 private:
  Spool(std::string base_path, std::string path, int fd);

  std::string base_path_;
  std::string path_;
  mutable std::mutex mutex_;
  int fd_ = -1;
};

}  // namespace sluice::audit
