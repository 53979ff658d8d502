#include "catalog/zone_rules.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace sluice::catalog {

namespace {

// Reads big-endian integers from a bounded view; every read checks the bytes are there.
class Bytes {
 public:
  explicit Bytes(std::string_view data) : data_(data) {}
  bool has(size_t n) const { return data_.size() - at_ >= n; }
  void skip(size_t n) { at_ += n; }
  int64_t read(size_t width) {  // precondition: has(width)
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i) value = (value << 8) | static_cast<unsigned char>(data_[at_ + i]);
    at_ += width;
    if (width == 4) return static_cast<int32_t>(static_cast<uint32_t>(value));
    return static_cast<int64_t>(value);
  }
  size_t at() const { return at_; }

 private:
  std::string_view data_;
  size_t at_ = 0;
};

struct Header {
  int version = 0;
  int64_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;
};

std::expected<Header, std::string> readHeader(Bytes& in) {
  if (!in.has(44)) return std::unexpected("shorter than a TZif header");
  Header header;
  if (in.read(4) != 0x545A6966) return std::unexpected("not a TZif file");
  header.version = static_cast<int>(in.read(1));
  in.skip(15);
  header.isutcnt = in.read(4);
  header.isstdcnt = in.read(4);
  header.leapcnt = in.read(4);
  header.timecnt = in.read(4);
  header.typecnt = in.read(4);
  header.charcnt = in.read(4);
  for (int64_t count : {header.isutcnt, header.isstdcnt, header.leapcnt, header.timecnt, header.typecnt, header.charcnt}) {
    if (count < 0 || count > static_cast<int64_t>(kMaxZoneTransitions)) return std::unexpected("a count out of range");
  }
  if (header.typecnt == 0) return std::unexpected("no local time types");
  return header;
}

size_t dataBytes(const Header& header, size_t time_width) {
  return static_cast<size_t>(header.timecnt) * (time_width + 1) + static_cast<size_t>(header.typecnt) * 6 +
         static_cast<size_t>(header.charcnt) + static_cast<size_t>(header.leapcnt) * (time_width + 4) +
         static_cast<size_t>(header.isstdcnt) + static_cast<size_t>(header.isutcnt);
}

}  // namespace

int32_t ZoneRules::offsetAt(int64_t utc_seconds) const {
  const auto after = std::upper_bound(transitions.begin(), transitions.end(), utc_seconds,
                                      [](int64_t at, const auto& transition) { return at < transition.first; });
  return after == transitions.begin() ? initial_offset : std::prev(after)->second;
}

int64_t ZoneRules::utcOf(int64_t local_seconds) const {
  // Candidates: the local time read with each offset that is ever in force near it. The earliest
  // instant whose own local reading is the time (or, in a gap, the change itself) wins.
  std::optional<int64_t> best;
  const auto consider = [&](int32_t offset) {
    const int64_t candidate = local_seconds - offset;
    if (candidate + offsetAt(candidate) == local_seconds && (!best || candidate < *best)) best = candidate;
  };
  consider(initial_offset);
  for (const auto& [at, offset] : transitions) {
    if (at > local_seconds + 2 * 86400) break;
    if (at >= local_seconds - 2 * 86400) {
      consider(offsetAt(at - 1));  // the offset the change ended
      consider(offset);
    }
  }
  consider(offsetAt(local_seconds));
  if (best) return *best;
  // A gap: the local time was skipped. The instant of the change that skipped it.
  for (const auto& [at, offset] : transitions) {
    if (at + offset >= local_seconds) return at;
  }
  return local_seconds - offsetAt(local_seconds);
}

std::expected<ZoneRules, std::string> parseTzif(std::string_view name, std::string_view bytes) {
  if (bytes.size() > kMaxZoneFileBytes) return std::unexpected("the zone file of " + std::string(name) + " is too large");
  Bytes in(bytes);
  auto header = readHeader(in);
  if (!header) return std::unexpected("the zone file of " + std::string(name) + " is not valid: " + header.error());
  size_t time_width = 4;
  if (header->version >= '2') {
    // Skip the 32-bit data; the second header and 64-bit data follow.
    const size_t first = dataBytes(*header, 4);
    if (!in.has(first)) return std::unexpected("the zone file of " + std::string(name) + " is truncated");
    in.skip(first);
    header = readHeader(in);
    if (!header) return std::unexpected("the zone file of " + std::string(name) + " is not valid: " + header.error());
    time_width = 8;
  }
  if (!in.has(dataBytes(*header, time_width))) {
    return std::unexpected("the zone file of " + std::string(name) + " is truncated");
  }
  std::vector<int64_t> times(static_cast<size_t>(header->timecnt));
  for (int64_t& time : times) time = in.read(time_width);
  std::vector<size_t> indices(times.size());
  for (size_t& index : indices) index = static_cast<size_t>(in.read(1));
  std::vector<int32_t> offsets(static_cast<size_t>(header->typecnt));
  for (int32_t& offset : offsets) {
    offset = static_cast<int32_t>(in.read(4));
    in.skip(2);  // isdst, abbreviation index
  }
  ZoneRules rules;
  rules.name = std::string(name);
  rules.initial_offset = offsets[0];
  for (size_t i = 0; i < times.size(); ++i) {
    if (indices[i] >= offsets.size()) return std::unexpected("the zone file of " + std::string(name) + " is not valid");
    if (i > 0 && times[i] <= times[i - 1]) return std::unexpected("the zone file of " + std::string(name) + " is not sorted");
    rules.transitions.emplace_back(times[i], offsets[indices[i]]);
  }
  return rules;
}

bool isZoneName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '/' || name.back() == '/') return false;
  size_t part_start = 0;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '/') {
      const std::string_view part = name.substr(part_start, i - part_start);
      if (part.empty() || part == "." || part == ".." || part.front() == '.') return false;
      part_start = i + 1;
      continue;
    }
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '+' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace sluice::catalog
