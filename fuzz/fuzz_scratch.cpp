// Scratch directory for the fuzz targets.
#include "fuzz/fuzz_scratch.h"

#include "sim/engine/utf8.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace dlsim::fuzz {

namespace {

// $TMPDIR when set, else /dev/shm (tmpfs) when it can be written, else /tmp. A memory file
// system matters for pai2020's tables, rewritten for every input: on ext4, rewriting a file
// through truncation forces its write-back on close (auto_da_alloc), which took about 40 % of
// fuzz_pai2020's time.
std::string base_dir() {
  const char* tmp = std::getenv("TMPDIR");
  if (tmp != nullptr && *tmp != '\0') return tmp;
  if (::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  return "/tmp";
}

std::string make_dir() {
  std::string pattern = base_dir() + "/dlsim-fuzz-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  std::string dir(buf.data());
  static std::string to_remove;
  to_remove = dir;
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(to_remove, ec);
  });
  return dir;
}

} // namespace

const std::string& scratch_dir() {
  static const std::string dir = make_dir();
  return dir;
}

std::string memory_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  static std::map<std::string, int> fds;
  auto it = fds.find(name);
  if (it == fds.end()) {
    int fd = ::memfd_create(name.c_str(), 0);
    if (fd < 0) throw std::runtime_error("memfd_create failed for " + name);
    it = fds.emplace(name, fd).first;
  }
  int fd = it->second;
  // Overwrite, then cut to the new size: the file keeps its pages from one input to the next
  // (truncating to 0 first freed them, and the write allocated and zeroed them again).
  for (std::size_t done = 0; done < size;) {
    ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) throw std::runtime_error("short write to memfd " + name);
    done += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0)
    throw std::runtime_error("ftruncate failed for " + name);
  return "/proc/self/fd/" + std::to_string(fd);
}

std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  std::string path = scratch_dir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  if (size > 0 && std::fwrite(data, 1, size, f) != size)
    throw std::runtime_error("short write to " + path);
  std::fclose(f);
  return path;
}

std::vector<std::string_view> split_input(const std::uint8_t* data, std::size_t size,
                                          std::size_t parts) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> out;
  while (out.size() + 1 < parts) {
    auto sep = rest.find("\n%%\n");
    if (sep == std::string_view::npos) break;
    out.push_back(rest.substr(0, sep));
    rest.remove_prefix(sep + 4);
  }
  out.push_back(rest);
  return out;
}

std::string input_dir(const std::string& sub, const std::vector<std::string>& files,
                      const std::vector<std::string_view>& pieces) {
  std::string dir = scratch_dir() + "/" + sub;
  std::error_code ec;
  std::filesystem::create_directory(dir, ec);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (i < pieces.size()) {
      write_input(sub + "/" + files[i], reinterpret_cast<const std::uint8_t*>(pieces[i].data()),
                  pieces[i].size());
    } else {
      std::filesystem::remove(dir + "/" + files[i], ec);
    }
  }
  return dir;
}

void require_utf8(std::string_view text, const std::string& what) {
  std::string problem = utf8_problem(text);
  if (problem.empty()) return;
  std::cerr << "fuzz: " << what << " is " << problem << "\n";
  std::abort();
}

std::string file_in_dir(const std::string& sub, const std::string& name, const std::uint8_t* data,
                        std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  return input_dir(sub, {name}, {text}) + "/" + name;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace dlsim::fuzz
