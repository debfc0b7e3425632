// A scheduler in another process: started with /bin/sh -c COMMAND in its own process group, its
// stdin and stdout joined to pipes, its stderr left as dlsim's. Lines go in and come out; a line
// that does not come within the timeout, or a child that closes its stdout, is reported to the
// caller as what it is, never waited on for ever.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace dlsim {

class ChildProcess {
public:
  // Throws ActionError naming the command when it cannot be started.
  explicit ChildProcess(const std::string& command);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // Closes the child's stdin (its cue to exit), gives it a moment, then kills its group.
  ~ChildProcess();

  // Writes `line` and a newline; false when the child no longer reads (it exited).
  bool write_line(std::string_view line);

  enum class ReadStatus { kLine, kClosed, kTimeout, kTooLong };
  // The next line, without its newline, into `line`: kClosed when the child closed its stdout
  // (it exited or crashed) before a whole line, kTimeout when none came within `timeout`,
  // kTooLong when kMaxLine bytes came without a newline (a runaway writer, not a message).
  static constexpr std::size_t kMaxLine = std::size_t{256} << 20U;
  ReadStatus read_line(std::string& line, std::chrono::milliseconds timeout);

  // How the child ended, once it has ("exited with status 3", "killed by signal 9"), waiting up
  // to `grace` for it; "still running" if it has not. Used for the error message.
  std::string exit_description(std::chrono::milliseconds grace);

  // Kills the child's process group at once (after a timeout or a bad message).
  void kill_now();

private:
  bool reap(std::chrono::milliseconds grace);

  pid_t pid_ = -1;
  int to_child_ = -1;   // the child's stdin
  int from_child_ = -1; // the child's stdout
  std::string buffer_;  // bytes read past the last line returned
  std::size_t scanned_ = 0;
  std::optional<int> status_; // waitpid's status, once reaped
};

} // namespace dlsim
