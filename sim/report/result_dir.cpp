#include "sim/report/result_dir.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <signal.h>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dlsim {

namespace {

bool process_alive(long pid) {
  if (pid <= 0) return false;
  if (!(::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) return false;
  // A zombie (killed, not yet reaped: a sweep's child while the sweep resumes) answers kill(0)
  // but will never write again: its state in /proc/PID/stat, after the ')' that ends its name,
  // is 'Z'. Without /proc it counts as alive, as before.
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string text;
  std::getline(stat, text);
  const std::size_t close = text.rfind(')');
  return !(close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z');
}

// The pid at the end of `name` after `prefix` ("<prefix><digits>"), or -1.
long pid_suffix(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return -1;
  std::string digits = name.substr(prefix.size());
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stol(digits);
}

bool is_result_file(const std::string& name) {
  return std::find(std::begin(kResultFiles), std::end(kResultFiles), name) !=
         std::end(kResultFiles);
}

fs::path absolute_dir(const std::string& out) {
  if (out.empty()) throw InputError("--out: an empty path");
  fs::path p = fs::absolute(out).lexically_normal();
  if (p.filename().empty()) p = p.parent_path(); // "a/b/" -> "a/b"
  if (p == p.root_path())
    throw InputError(fmt::format("{}: cannot be an output directory (it is the root)", out));
  return p;
}

std::string staging_prefix(const fs::path& out) {
  // fmt rather than operator+: GCC 12 reports a false -Wrestrict in the chained concatenation.
  return fmt::format(".{}.dlsim-new.", out.filename().string());
}

std::string old_prefix(const fs::path& out) {
  return fmt::format(".{}.dlsim-old.", out.filename().string());
}

// A killed run leaves its staging directory (and, on a file system without an atomic exchange,
// possibly the earlier run moved aside): remove the first, put the second back if `out` is gone.
void clean_stale_staging(const fs::path& out) {
  std::error_code ec;
  const long self = ::getpid();
  for (fs::directory_iterator it(out.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (long pid = pid_suffix(name, staging_prefix(out)); pid > 0) {
      if (pid != self && !process_alive(pid)) fs::remove_all(it->path(), ec);
    } else if (pid = pid_suffix(name, old_prefix(out)); pid > 0) {
      if (pid == self || process_alive(pid)) continue;
      std::error_code missing;
      if (!fs::exists(out, missing)) {
        fs::rename(it->path(), out, ec);
      } else {
        fs::remove_all(it->path(), ec);
      }
    }
    ec.clear();
  }
}

// Moves `staging` to `out` when `out` exists: the atomic exchange of Linux's renameat2, else
// (a file system without it, e.g. NFS) two renames with a short window between them.
void swap_into_place(const fs::path& staging, const fs::path& out) {
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, out.c_str(), RENAME_EXCHANGE) == 0) {
    test_kill_point("swapped");
    std::error_code ec;
    fs::remove_all(staging, ec); // now the earlier run
    return;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
    throw InputError(fmt::format("{}: cannot put the new results in place: {}", out.string(),
                                 std::strerror(errno)));
  }
  fs::path old = out.parent_path() / (old_prefix(out) + std::to_string(::getpid()));
  std::error_code ec;
  fs::rename(out, old, ec);
  if (!ec) fs::rename(staging, out, ec);
  if (ec) {
    throw InputError(
        fmt::format("{}: cannot put the new results in place: {}", out.string(), ec.message()));
  }
  fs::remove_all(old, ec);
}

} // namespace

void test_kill_point(std::string_view stage) {
  const char* at = std::getenv("DLSIM_TEST_KILL_AT");
  if (at != nullptr && stage == at) ::raise(SIGKILL);
  const char* stall = std::getenv("DLSIM_TEST_STALL_AT");
  if (stall != nullptr && stage == stall) ::sleep(60);
}

void remove_stale_temporaries(const fs::path& path) {
  std::error_code ec;
  fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::string prefix = path.filename().string() + ".tmp.";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    long pid = pid_suffix(it->path().filename().string(), prefix);
    std::error_code ignored;
    if (pid > 0 && pid != ::getpid() && !process_alive(pid)) fs::remove(it->path(), ignored);
  }
}

ResultDir::ResultDir(const std::string& out) : out_(absolute_dir(out)) {
  std::error_code ec;
  fs::file_status st = fs::status(out_, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw InputError(fmt::format("--out {}: exists and is not a directory", out));
    for (fs::directory_iterator it(out_, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec)) {
        throw InputError(fmt::format(
            "--out {}: holds a directory ({}), so it is not a dlsim result directory; give a new "
            "or empty directory, or one an earlier `dlsim run` wrote",
            out, it->path().filename().string()));
      }
    }
    if (ec) throw InputError(fmt::format("--out {}: cannot read: {}", out, ec.message()));
    if (::access(out_.c_str(), W_OK | X_OK) != 0)
      throw InputError(fmt::format("--out {}: not writable: {}", out, std::strerror(errno)));
  }
  fs::create_directories(out_.parent_path(), ec);
  if (ec)
    throw InputError(fmt::format("--out {}: cannot create the directory {}: {}", out,
                                 out_.parent_path().string(), ec.message()));
  clean_stale_staging(out_);
  staging_ = out_.parent_path() / (staging_prefix(out_) + std::to_string(::getpid()));
  fs::remove_all(staging_, ec); // our own pid's leftover: a pid reused after a killed run
  if (!fs::create_directory(staging_, ec) || ec) {
    throw InputError(fmt::format("--out {}: cannot write in {}: {}", out,
                                 out_.parent_path().string(),
                                 ec ? ec.message() : std::string("it already exists")));
  }
}

ResultDir::~ResultDir() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

std::string ResultDir::file(std::string_view name) const {
  return (staging_ / name).string();
}

void ResultDir::commit() {
  test_kill_point("staged");
  std::error_code ec;
  if (fs::exists(out_, ec)) {
    // Carry over what is not ours: hard links keep a file that is still being written (a
    // sweep's dlsim.log) the same file.
    for (fs::directory_iterator it(out_, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (is_result_file(name) || name.find(".tmp.") != std::string::npos) continue;
      fs::path to = staging_ / name;
      std::error_code link_ec;
      fs::create_hard_link(it->path(), to, link_ec);
      if (link_ec) fs::copy(it->path(), to, fs::copy_options::copy_symlinks, link_ec);
      if (link_ec) {
        throw InputError(fmt::format("{}: cannot carry over into the new results: {}",
                                     it->path().string(), link_ec.message()));
      }
    }
    swap_into_place(staging_, out_);
  } else {
    fs::rename(staging_, out_, ec);
    if (ec) {
      throw InputError(
          fmt::format("{}: cannot put the results in place: {}", out_.string(), ec.message()));
    }
  }
  committed_ = true;
}

} // namespace dlsim
