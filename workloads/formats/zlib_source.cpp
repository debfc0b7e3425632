// Plain-or-gzip byte source over zlib's gzFile interface.
#include "workloads/formats/zlib_source.h"

#include "sim/engine/error.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace dlsim {

namespace {

class GzipByteSource final : public io::ByteSourceBase {
public:
  GzipByteSource(std::string file, gzFile gz) : file_(std::move(file)), gz_(gz) {}
  GzipByteSource(const GzipByteSource&) = delete;
  GzipByteSource& operator=(const GzipByteSource&) = delete;
  ~GzipByteSource() override { gzclose(gz_); }

  int read(char* buffer, int size) override {
    int n = gzread(gz_, buffer, static_cast<unsigned>(size));
    // zlib hands out what it decoded before an error and records the error: a gzip stream that
    // ends early reports Z_BUF_ERROR ("unexpected end of file") with the last good bytes. Check
    // after every read, since the line reader takes a short read for the end of the file.
    int code = Z_OK;
    std::string what = gzerror(gz_, &code);
    // zlib prefixes its message with the path; the error names the file already.
    if (what.rfind(file_ + ": ", 0) == 0) what.erase(0, file_.size() + 2);
    if (n < 0 || code != Z_OK) {
      throw InputError(file_ + ": " +
                       (code == Z_BUF_ERROR ? "truncated gzip file (" + what + ")"
                                            : "cannot decompress (" + what + ")"));
    }
    return n;
  }

private:
  std::string file_;
  gzFile gz_;
};

// A plain file, read with stdio. zlib's gzread passes plain files through as well, but it sets up
// its buffers (gzbuffer's 128 KiB in, 256 KiB out) for every file it opens: about 0.6 ms per
// open under AddressSanitizer, most of a fuzz input's time (docs/traces.md#fuzzing).
// The bytes read to look for the gzip magic come first (no seek, so pipes work too).
class PlainByteSource final : public io::ByteSourceBase {
public:
  PlainByteSource(std::string file, std::FILE* f, const unsigned char* head, std::size_t head_size)
      : file_(std::move(file)), f_(f), head_size_(head_size) {
    std::memcpy(head_, head, head_size);
  }
  PlainByteSource(const PlainByteSource&) = delete;
  PlainByteSource& operator=(const PlainByteSource&) = delete;
  ~PlainByteSource() override { std::fclose(f_); }

  int read(char* buffer, int size) override {
    std::size_t n = 0;
    const auto want = static_cast<std::size_t>(size);
    while (head_used_ < head_size_ && n < want)
      buffer[n++] = static_cast<char>(head_[head_used_++]);
    n += std::fread(buffer + n, 1, want - n, f_);
    if (std::ferror(f_) != 0) throw InputError(file_ + ": cannot read: " + std::strerror(errno));
    return static_cast<int>(n);
  }

private:
  std::string file_;
  std::FILE* f_;
  unsigned char head_[2] = {0, 0};
  std::size_t head_size_ = 0;
  std::size_t head_used_ = 0;
};

} // namespace

std::unique_ptr<io::ByteSourceBase> open_plain_or_gzip(const std::string& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InputError(file + ": is a directory, expected a file");
  // gzip data is recognised by its magic bytes, as zlib does; anything else is read as is.
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) {
    throw InputError(file + ": cannot open: " + std::strerror(errno != 0 ? errno : ENOENT));
  }
  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, 2, f);
  if (got < 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
    if (std::ferror(f) != 0) {
      std::fclose(f);
      throw InputError(file + ": cannot read: " + std::strerror(errno));
    }
    return std::make_unique<PlainByteSource>(file, f, magic, got);
  }
  std::fclose(f);
  gzFile gz = gzopen(file.c_str(), "rb");
  if (gz == nullptr) {
    throw InputError(file + ": cannot open: " + std::strerror(errno != 0 ? errno : ENOENT));
  }
  gzbuffer(gz, 1U << 17);
  return std::make_unique<GzipByteSource>(file, gz);
}

PlainOrGzipStreambuf::int_type PlainOrGzipStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  int n = source_->read(buffer_.data(), static_cast<int>(buffer_.size()));
  if (n <= 0) return traits_type::eof();
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return traits_type::to_int_type(*gptr());
}

bool is_gzip_file(const std::string& file) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) return false;
  unsigned char magic[2] = {0, 0};
  std::size_t n = std::fread(magic, 1, 2, f);
  std::fclose(f);
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

} // namespace dlsim
