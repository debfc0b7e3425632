// Plain-or-gzip byte source over zlib's gzFile interface.
#include "workloads/formats/zlib_source.h"

#include "sim/engine/error.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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
    if (n > 0) return n;
    // 0 is the end of the data: a clean end only if zlib saw the whole stream (a truncated
    // .gz reports Z_BUF_ERROR, "unexpected end of file"); < 0 is a read or data error.
    int code = Z_OK;
    const char* what = gzerror(gz_, &code);
    if (n < 0 || code != Z_OK) {
      throw InputError(file_ + ": " +
                       (code == Z_BUF_ERROR ? std::string("truncated gzip file (") + what + ")"
                                            : std::string("cannot decompress (") + what + ")"));
    }
    return 0;
  }

private:
  std::string file_;
  gzFile gz_;
};

} // namespace

std::unique_ptr<io::ByteSourceBase> open_plain_or_gzip(const std::string& file) {
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
