// A byte source for the CSV/line readers that reads plain or gzip-compressed files alike
// (zlib's gzread passes plain files through), and turns a truncated or corrupt .gz into an error.
#pragma once

#include <libfccp/csv.h>

#include <array>
#include <memory>
#include <streambuf>
#include <string>

namespace dlsim {

// Opens `file`; an unreadable file is an InputError naming it. Reading a gzip stream that ends
// early or fails its CRC throws an InputError naming the file and zlib's reason.
std::unique_ptr<io::ByteSourceBase> open_plain_or_gzip(const std::string& file);

// A std::streambuf over open_plain_or_gzip, for readers that take a std::istream (the Philly JSON
// parser): every text reader reads plain and gzip files through the same layer.
class PlainOrGzipStreambuf final : public std::streambuf {
public:
  explicit PlainOrGzipStreambuf(const std::string& file) : source_(open_plain_or_gzip(file)) {}

protected:
  int_type underflow() override;

private:
  std::unique_ptr<io::ByteSourceBase> source_;
  std::array<char, 1 << 16> buffer_{};
};

// True when the file starts with the gzip magic bytes (1f 8b).
bool is_gzip_file(const std::string& file);

} // namespace dlsim
