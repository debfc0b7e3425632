// dlsim: the command line. The composition root: the only place that wires the simulator core,
// the workloads and the policies together.
#include "sim/cli/analysis/commands.h"
#include "sim/cli/commands.h"
#include "sim/cli/provenance.h"
#include "sim/engine/error.h"

#include "dlsim_version.h"

#include <boost/program_options/errors.hpp>
#include <fmt/format.h>

#include <yaml-cpp/exceptions.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <system_error>
#include <vector>

namespace {

constexpr const char* kUsage =
    R"(dlsim - a discrete-event simulator of deep-learning training clusters

usage: dlsim <command> [options]     (dlsim <command> --help for its options)

commands:
  run         run an experiment (no options: the bundled default experiment)
  validate    check an experiment's inputs and print what was read
  list        list policies, formats, devices, models or placements
  gen-trace   write a synthetic trace
  sweep       run a grid of overrides in parallel (locally, or as a Slurm array)
  compare     compare summary.json or results.csv files with a baseline for regressions
  plot        plot result directories with gnuplot (JCT CDF, utilization, jobs, Gantt)
  table       one row per result directory: policy, differing parameters, metrics
  predict     train and cross-validate GPU-utilization predictors, write one
  calibrate   refit the co-location model (--scaling: the scaling model) and print its errors
  net-solve   share links among given flows (max-min fair) and print rates and routes
  version     print the version and the git commit it was built from

exit codes: 0 ok, 1 bad input, 2 bad usage
)";

} // namespace

namespace {

int run_command(const std::string& command, const std::vector<std::string>& args) {
  try {
    if (command == "run") return dlsim::command_run(args);
    if (command == "validate") return dlsim::command_validate(args);
    if (command == "list") return dlsim::command_list(args);
    if (command == "gen-trace") return dlsim::command_gen_trace(args);
    if (command == "sweep") return dlsim::command_sweep(args);
    if (command == "compare") return dlsim::command_compare(args);
    if (command == "net-solve") return dlsim::command_net_solve(args);
    if (command == "plot") return dlsim::command_plot(args);
    if (command == "table") return dlsim::command_table(args);
    if (command == "predict") return dlsim::command_predict(args);
    if (command == "calibrate") return dlsim::command_calibrate(args);
    if (command == "version" || command == "--version") {
      fmt::print("dlsim {} (commit {})\n", DLSIM_VERSION, dlsim::dlsim_commit());
      return 0;
    }
    fmt::print(stderr, "dlsim: unknown command '{}'\n\n{}", command, kUsage);
    return 2;
  } catch (const boost::program_options::error& e) {
    fmt::print(stderr, "dlsim {}: {}\n(see dlsim {} --help)\n", command, e.what(), command);
    return 2;
  } catch (const dlsim::InputError& e) {
    fmt::print(stderr, "dlsim: error: {}\n", e.what());
    return 1;
  } catch (const dlsim::ActionError& e) {
    fmt::print(stderr, "dlsim: error: {}\n", e.what());
    return 1;
  } catch (const YAML::Exception& e) {
    fmt::print(stderr, "dlsim: error: YAML: {}\n", e.what());
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    // The readers probe paths without throwing (sim/config/path_probe.h); this is the net for a
    // file system call that still refuses a name, so it ends as an error, never an abort.
    if (e.path1().empty())
      fmt::print(stderr, "dlsim: error: {}\n", e.what());
    else
      fmt::print(stderr, "dlsim: error: {}: {}\n", e.path1().string(), e.code().message());
    return 1;
  } catch (const std::system_error& e) {
    // fmt::print to a stream whose write failed (stdout on a full disk or /dev/full).
    fmt::print(stderr, "dlsim: error: cannot write the output: {}\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "dlsim: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    // The last net: an error no layer turned into a message still ends the run as an error,
    // unwinding (so a result directory being staged is removed), never as an abort.
    fmt::print(stderr, "dlsim: error: {}\n", e.what());
    return 1;
  }
}

// stdout is buffered: a write to a full disk or /dev/full can fail at the last flush, after the
// command returned. Checked here, so that an output lost is exit 1, never 0.
int finish_output(int rc) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && std::ferror(stdout) == 0 && !std::cout.bad()) return rc;
  // An earlier write may have failed already (its errno gone): say so without a reason then.
  fmt::print(stderr, "dlsim: error: cannot write to standard output: {}\n",
             error != 0 ? std::strerror(error) : "a write failed (disk full?)");
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return finish_output(args.empty() ? 2 : 0);
  }
  std::string command = args[0];
  args.erase(args.begin());
  return finish_output(run_command(command, args));
}
