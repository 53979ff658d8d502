#pragma once
// The audit journal: what a replica killed outright (SIGKILL, the OOM killer, a crash) needs so
// that every request it served, and every request it was serving, still leaves its row.
//
// Lines copied into a shared memory mapping of the file: no system call per line, and the page
// cache keeps them when the process dies (a machine that loses power loses the last seconds, as
// the database's own commit would). The file grows in steps of kGrowth bytes (kMinGrowth when a
// whole step does not fit on the volume); what follows the last line is zero bytes, which load()
// stops at. A line is one of:
//   B<TAB><COPY line>  a request began (or got further): the row it leaves if the process dies
//                      now, outcome `interrupted`, as COPY text (record_json.h); a later B of the
//                      same id replaces an earlier one
//   R<TAB><COPY line>  a request ended: its row, until the writer has it in PostgreSQL or the spool
//   {"b":<row JSON>}   and {"r":<row JSON>}: the same with the row as JSON (rows recovered from a
//                      spool or an older journal; {"r":{"id":…,"abandoned":true}} ends a request
//                      that leaves no row of its own)
// COPY text because it is what the writer sends PostgreSQL on the live path: a request is
// serialised once, not once for the journal and again for the database.
// The writer rewrites the file now and then (compact()) with only what is still open, and on
// start reads what a previous process left (load()) and submits it: ended rows as they are,
// begun-but-never-ended ones as `interrupted`. Inserts are idempotent on (id, created_at), so a
// row already in PostgreSQL is not written twice.
//
// A full volume never costs the process: every byte of the mapping is reserved on disk
// (posix_fallocate) before it is mapped, so a write into it can never fault (a sparse mapping on a
// full disk is SIGBUS). When the journal cannot grow it turns itself off (active() false, logged
// once) and its appends do nothing: the rows still go to PostgreSQL or the spool, only a process
// killed outright meanwhile would lose its unfinished requests. The next rewrite() turns it back
// on when the room is there again. What a previous process left is read with pread(), never
// through the mapping, so a file with holes (an older build's, or a disk that filled) is read
// as zeros, not faulted on.
//
// Thread-safe.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::audit {

class Journal {
 public:
  // Opens (creating) `path` for appending and reads what it holds. Throws std::system_error naming
  // it when the file cannot be opened or read; a volume too full to reserve room leaves the
  // journal off (active() false) instead.
  explicit Journal(std::string path);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& path() const { return path_; }

  // What the file holds: the rows to submit, one row JSON each, in file order; a torn last line
  // is dropped. Ended rows, then the rows of requests that never ended (the last "b"
  // of each id).
  struct Loaded {
    std::vector<std::string> ended;
    std::vector<std::string> interrupted;
  };
  static Loaded parse(std::string_view text);
  // The file's lines now, read from the file (never through the mapping).
  Loaded load() const;

  // Whether appends are journaled now; false after the volume ran out of room (offReason() says
  // why) until a rewrite() found room again.
  bool active() const;
  std::string offReason() const;
  // How often the journal turned itself off since it was opened.
  uint64_t timesTurnedOff() const;

  void appendBegin(std::string_view row_json);
  void appendEnd(std::string_view row_json);
  // Appends a whole line (ending in '\n'), e.g. kBeginCopy + a COPY line.
  void appendLine(std::string_view line) { append(line, {}, {}); }
  // Appends kEndCopy + `copy_line` (which ends in '\n').
  void appendEndCopy(std::string_view copy_line) { append(kEndCopy, copy_line, {}); }
  // Replaces the file's lines with these (already "b"/"r"-wrapped), in place; turns an inactive
  // journal back on when its room can be reserved. Throws std::system_error when there is no
  // room for them (the file then keeps what it held).
  void rewrite(const std::vector<std::string>& lines);
  uint64_t size() const;

  static std::string beginLine(std::string_view row_json);
  static std::string endLine(std::string_view row_json);
  static std::string endCopyLine(std::string_view copy_line);
  static constexpr std::string_view kBeginCopy = "B\t";
  static constexpr std::string_view kEndCopy = "R\t";

  // How much the file (and its mapping) grows at a time; the writer compacts it at half that.
  static constexpr uint64_t kGrowth = 4u << 20;
  // The smaller step taken when a whole kGrowth cannot be reserved (a nearly full volume).
  static constexpr uint64_t kMinGrowth = 64u << 10;

 private:
  void append(std::string_view head, std::string_view body, std::string_view tail);
  // Reads the lines a previous process left (pread), then maps the file when its room can be
  // reserved; size_ is where the lines end (the first zero byte).
  void open();
  // Reserves [0, capacity) on disk for the lines that `needed` bytes hold and maps it: a kGrowth
  // step, else a kMinGrowth one. False (errno set) when the volume has no room for either.
  bool mapReserved(uint64_t needed);
  void unmap();
  // Makes room for `more` bytes past size_: false when the file cannot grow (disk full).
  bool reserve(uint64_t more);
  // Grows (reserved first) or shrinks the file and its mapping to `capacity` bytes; false when
  // the room cannot be reserved.
  bool resize(uint64_t capacity);
  // The volume is full: unmaps, keeps the file as it is (its lines stay valid for a restart).
  void turnOff(int error, std::string_view during);

  std::string path_;
  mutable std::mutex mutex_;
  int fd_ = -1;
  char* map_ = nullptr;    // null while off
  uint64_t capacity_ = 0;  // bytes mapped, all of them reserved on disk
  uint64_t size_ = 0;      // bytes of lines
  std::string off_reason_;
  uint64_t times_off_ = 0;
};

}  // namespace sluice::audit
