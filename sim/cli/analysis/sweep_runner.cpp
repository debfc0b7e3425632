// The sweep's process pool: posix_spawn of `dlsim run`, waitpid, error capture, progress line.
#include "sim/cli/analysis/sweep_runner.h"

#include "sim/cli/analysis/sweep_results.h"
#include "sim/cli/result_json.h"
#include "sim/cli/run_experiment.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <signal.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;

namespace dlsim {

std::string own_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw InputError(fmt::format("/proc/self/exe: cannot find the dlsim binary: {}", ec.message()));
  return p.string();
}

namespace {

std::string read_whole(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string log_file(const std::string& dir, const SweepRun& run) {
  return (fs::path(sweep_run_dir(dir, run)) / "dlsim.log").string();
}

// The reason a run failed, in one line, from its log: dlsim's "error:" lines, else the last line.
std::string failure_reason(const std::string& log, int status) {
  std::vector<std::string> errors;
  std::string last;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    for (const char* prefix : {"dlsim: error: ", "dlsim run: "}) {
      if (line.rfind(prefix, 0) == 0) errors.push_back(line.substr(std::strlen(prefix)));
    }
  }
  std::string reason;
  for (const auto& e : errors)
    reason += (reason.empty() ? "" : "; ") + e;
  if (WIFSIGNALED(status)) {
    std::string sig =
        fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return reason.empty() ? sig : sig + ": " + reason;
  }
  if (reason.empty())
    reason = last.empty() ? fmt::format("exit code {}", WEXITSTATUS(status)) : last;
  return reason;
}

pid_t spawn_run(const std::string& binary, const std::string& dir, const SweepSpec& spec,
                const SweepRun& run) {
  std::string out = sweep_run_dir(dir, run);
  std::vector<std::string> args{binary, "run", "-q", "-e", spec.experiment};
  for (const auto& [k, v] : sweep_run_inputs(spec, run).overrides) {
    args.emplace_back("--set");
    std::string set = k;
    set += '=';
    set += v;
    args.push_back(std::move(set));
  }
  args.emplace_back("--out");
  args.push_back(out);
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  std::string log = log_file(dir, run);
  // fork + exec rather than posix_spawn, for PR_SET_PDEATHSIG: a run dies with the sweep that
  // started it (even a sweep killed with SIGKILL) instead of running on unwatched. Everything
  // the child needs is prepared before the fork; the child calls only async-signal-safe
  // functions.
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0)
    throw InputError(fmt::format("{}: cannot start a run: {}", binary, std::strerror(errno)));
  if (pid == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || ::dup2(in, STDIN_FILENO) < 0 || ::dup2(out, STDOUT_FILENO) < 0 ||
        ::dup2(out, STDERR_FILENO) < 0)
      ::_exit(127);
    ::execve(binary.c_str(), argv.data(), environ);
    ::_exit(127);
  }
  return pid;
}

class SweepProgress {
public:
  SweepProgress(std::size_t total, std::size_t done)
      : total_(total), done_(done), tty_(::isatty(STDERR_FILENO)) {}
  void started() {
    ++running_;
    show(false);
  }
  void finished(bool ok) {
    --running_;
    ++done_;
    ++done_now_;
    failed_ += !ok;
    show(false);
  }
  void end() { show(true); }

private:
  void show(bool last) {
    auto now = std::chrono::steady_clock::now();
    // A terminal gets a line redrawn in place; a log file one line every 10 s and the last.
    if (!tty_ && !last && now - printed_ < std::chrono::seconds(10)) return;
    if (tty_ && !last && now - printed_ < std::chrono::milliseconds(100)) return;
    printed_ = now;
    double elapsed = std::chrono::duration<double>(now - start_).count();
    std::size_t left = total_ - done_;
    std::string eta = "";
    if (left > 0 && done_now_ > 0)
      eta = fmt::format(", about {:.0f} s left",
                        elapsed / static_cast<double>(done_now_) * static_cast<double>(left));
    fmt::print(stderr, "{}sweep: {}/{} done, {} running, {} failed{}{}", tty_ ? "\r" : "", done_,
               total_, running_, failed_, eta, tty_ && !last ? "   " : "\n");
    std::fflush(stderr);
  }

  std::size_t total_, done_, running_ = 0, failed_ = 0, done_now_ = 0;
  bool tty_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point printed_{};
};

} // namespace

bool sweep_run_complete(const std::string& dir, const SweepSpec& spec, const SweepRun& run) {
  fs::path d = sweep_run_dir(dir, run);
  if (!path_exists(d / "summary.json")) return false;
  // A summary.json that is not a whole summary (cut short, overwritten by hand) is not a result.
  nlohmann::ordered_json summary;
  try {
    summary = read_result_json((d / "summary.json").string());
  } catch (const InputError&) {
    return false;
  }
  if (!summary.is_object() || !summary.contains("jobs")) return false;
  try {
    return read_whole((d / "run.yaml").string()) ==
           render_run_yaml(load_experiment(sweep_run_inputs(spec, run)));
  } catch (const std::exception&) {
    return false; // inputs that no longer load: run it, and let the run report why
  }
}

SweepTally run_sweep_runs(const std::string& dir, const SweepSpec& spec,
                          const std::vector<std::size_t>& indices, unsigned jobs,
                          const std::string& binary) {
  SweepTally tally;
  std::vector<std::size_t> todo;
  for (std::size_t i : indices) {
    if (sweep_run_complete(dir, spec, spec.runs[i])) {
      ++tally.already_done;
    } else {
      todo.push_back(i);
    }
  }
  SweepProgress progress(indices.size(), tally.already_done);
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < std::max(1U, jobs)) {
      const SweepRun& run = spec.runs[todo[next++]];
      fs::path d = sweep_run_dir(dir, run);
      std::error_code ec;
      fs::create_directories(d, ec);
      if (ec)
        throw InputError(
            fmt::format("{}: cannot create the run directory: {}", d.string(), ec.message()));
      // A stale result or error must not outlive the run that replaces it.
      fs::remove(d / "summary.json", ec);
      fs::remove(d / "error.txt", ec);
      running.emplace(spawn_run(binary, dir, spec, run), run.index);
      progress.started();
    }
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw InputError(fmt::format("sweep: waitpid failed: {}", std::strerror(errno)));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue; // not one of ours
    const SweepRun& run = spec.runs[it->second];
    running.erase(it);
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
              path_exists(fs::path(sweep_run_dir(dir, run)) / "summary.json");
    if (ok) {
      ++tally.ran_ok;
    } else {
      ++tally.failed;
      record_run_error(dir, run, failure_reason(read_whole(log_file(dir, run)), status));
    }
    progress.finished(ok);
  }
  progress.end();
  return tally;
}

} // namespace dlsim
