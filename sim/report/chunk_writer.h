// A result file of millions of rows, formatted straight into one reused buffer and handed to the
// stream a chunk at a time (one write per chunk): no string per field or row, and no bounds
// check per character. The buffer stays bounded, about a chunk plus the longest row, because
// the run's records already fill memory when the writers run (docs/performance.md).
#pragma once

#include <cstddef>
#include <ostream>
#include <vector>

namespace dlsim {

class ChunkWriter {
public:
  static constexpr std::size_t kChunk = std::size_t{1} << 16;
  // Room kept past a full chunk, so that rows of up to this many bytes never move the buffer.
  static constexpr std::size_t kSlack = std::size_t{1} << 12;

  explicit ChunkWriter(std::ostream& out) : out_(out), buf_(kChunk + kSlack) {}

  // Where to write a row of at most `n` bytes; then end_row(the row's end).
  char* row(std::size_t n) {
    if (buf_.size() - used_ < n) make_room(n);
    return buf_.data() + used_;
  }
  void end_row(const char* end) {
    used_ = static_cast<std::size_t>(end - buf_.data());
    if (used_ >= kChunk) flush();
  }
  // Writes what the buffer holds. Call it after the last row: the destructor does not, so that
  // a stream error is the caller's to see (the stream's state) rather than lost in unwinding.
  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(used_));
    used_ = 0;
  }

private:
  void make_room(std::size_t n) {
    flush();
    if (buf_.size() < n) buf_.resize(n); // one row longer than a chunk and the slack
  }

  std::ostream& out_;
  std::vector<char> buf_;
  std::size_t used_ = 0;
};

} // namespace dlsim
