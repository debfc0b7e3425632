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

} // namespace

std::unique_ptr<io::ByteSourceBase> open_plain_or_gzip(const std::string& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InputError(file + ": is a directory, expected a file");
  gzFile gz = gzopen(file.c_str(), "rb");
  if (gz == nullptr) {
    throw InputError(file + ": cannot open: " + std::strerror(errno != 0 ? errno : ENOENT));
  }
  gzbuffer(gz, 1U << 17);
  return std::make_unique<GzipByteSource>(file, gz);
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
