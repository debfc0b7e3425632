#include "policies/child_process.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ; // NOLINT: POSIX's, for posix_spawn

namespace dlsim {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

} // namespace

ChildProcess::ChildProcess(const std::string& command) {
  // O_CLOEXEC: the children of other runs (a sweep's, a test's) must not inherit these ends,
  // or this child would never see its stdin close.
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw ActionError(fmt::format("pipe: {}", std::strerror(errno)));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw ActionError(fmt::format("pipe: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO); // dup2 clears O_CLOEXEC
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so that a timeout kills the shell and what it started together; the
  // default SIGPIPE and an empty signal mask, whatever dlsim's are.
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::string sh = "/bin/sh";
  std::string dash_c = "-c";
  std::string cmd = command;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
  int rc = ::posix_spawn(&pid_, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  if (rc != 0) {
    close_fd(to_child_);
    close_fd(from_child_);
    pid_ = -1;
    throw ActionError(fmt::format("cannot start {}: {}", quote_input(command), std::strerror(rc)));
  }
}

ChildProcess::~ChildProcess() {
  close_fd(to_child_);
  if (pid_ > 0 && !reap(std::chrono::milliseconds(2000))) kill_now();
  close_fd(from_child_);
}

bool ChildProcess::write_line(std::string_view line) {
  if (to_child_ < 0) return false;
  // A write to a child that exited raises SIGPIPE, which would kill dlsim: block it on this
  // thread for the write and take back the one the write raised, so that the caller gets false
  // and reports the exit instead.
  sigset_t pipe_only;
  sigset_t old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  bool ok = true;
  auto send = [&](const char* p, std::size_t n) {
    while (ok && n > 0) {
      ssize_t w = ::write(to_child_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        ok = false;
        break;
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  };
  send(line.data(), line.size());
  send("\n", 1);
  if (!ok) {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &zero) > 0) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

ChildProcess::ReadStatus ChildProcess::read_line(std::string& line,
                                                 std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (std::size_t nl = buffer_.find('\n', scanned_); nl != std::string::npos) {
      line.assign(buffer_, 0, nl);
      buffer_.erase(0, nl + 1);
      scanned_ = 0;
      return ReadStatus::kLine;
    }
    scanned_ = buffer_.size();
    if (buffer_.size() > kMaxLine) return ReadStatus::kTooLong;
    if (from_child_ < 0) return ReadStatus::kClosed;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ReadStatus::kTimeout;
    pollfd p{from_child_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return ReadStatus::kTimeout;
    char chunk[1 << 16];
    ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close_fd(from_child_);
      return ReadStatus::kClosed;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

bool ChildProcess::reap(std::chrono::milliseconds grace) {
  if (status_) return true;
  if (pid_ <= 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      status_ = status;
      return true;
    }
    if (r < 0 && errno != EINTR) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string ChildProcess::exit_description(std::chrono::milliseconds grace) {
  if (!reap(grace)) return "still running";
  if (WIFEXITED(*status_)) return fmt::format("exited with status {}", WEXITSTATUS(*status_));
  if (WIFSIGNALED(*status_)) return fmt::format("killed by signal {}", WTERMSIG(*status_));
  return "ended";
}

void ChildProcess::kill_now() {
  if (pid_ <= 0 || status_) return;
  ::kill(-pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  status_ = status;
}

} // namespace dlsim
