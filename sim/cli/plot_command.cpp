// `dlsim plot RUN_DIR...`: the data files and gnuplot script of plot_data.h, then gnuplot run on
// the script as a child process (docs/outputs.md#dlsim-plot).
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/plot_data.h"
#include "sim/engine/error.h"
#include "sim/report/writers.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace dlsim {

namespace {

// The gnuplot to run: $DLSIM_GNUPLOT, else `gnuplot` on PATH. Empty when there is none.
std::string find_gnuplot() {
  if (const char* given = std::getenv("DLSIM_GNUPLOT"); given && *given)
    return ::access(given, X_OK) == 0 ? given : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

// Runs `gnuplot plot.gp` in `dir`; its messages go to our stderr.
void run_gnuplot(const std::string& gnuplot, const fs::path& dir) {
  pid_t pid = ::fork();
  if (pid < 0) throw InputError(fmt::format("cannot start gnuplot: {}", std::strerror(errno)));
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    ::execl(gnuplot.c_str(), "gnuplot", "plot.gp", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw InputError(fmt::format("waiting for gnuplot: {}", std::strerror(errno)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw InputError(fmt::format("gnuplot ({}) failed on {} (exit status {})", gnuplot,
                                 (dir / "plot.gp").string(),
                                 WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
}

} // namespace

int command_plot(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim plot RUN_DIR... [options]\n\nPlots result directories of `dlsim run` with gnuplot "
      "(Debian: gnuplot-nox):\nJCT CDF (every RUN_DIR on one chart), utilization per device "
      "kind and jobs\nover time, and a Gantt chart of the devices of the first RUN_DIR (from "
      "its\nevents.csv) for small runs. Writes the data files, plot.gp and the pictures\nto the "
      "output directory.\n\nOptions");
  o.add_options()("out,o", po::value<std::string>(),
                  "output directory (default: the first RUN_DIR with -plots appended)")(
      "format", po::value<std::string>()->default_value("both"),
      "png, svg or both")("gantt", po::value<std::string>()->default_value("auto"),
                          "auto (on up to 128 devices and 2,000 jobs), on or off")(
      "no-render", po::bool_switch(), "write the data files and plot.gp only; do not run gnuplot")(
      "quiet,q", po::bool_switch(), "print nothing on success")("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("run", po::value<std::vector<std::string>>());
  po::variables_map vm;
  if (!parse_command_line(args, o, hidden, -1, vm)) return 0;
  if (!vm.count("run")) throw po::error("give at least one RUN_DIR");
  const auto& dirs = vm["run"].as<std::vector<std::string>>();
  std::string format = vm["format"].as<std::string>();
  std::vector<std::string> formats;
  if (format == "png" || format == "both") formats.emplace_back("png");
  if (format == "svg" || format == "both") formats.emplace_back("svg");
  if (formats.empty())
    throw po::error(fmt::format("--format expects png, svg or both, got '{}'", format));
  std::string gantt_mode = vm["gantt"].as<std::string>();
  if (gantt_mode != "auto" && gantt_mode != "on" && gantt_mode != "off")
    throw po::error(fmt::format("--gantt expects auto, on or off, got '{}'", gantt_mode));
  bool render = !vm["no-render"].as<bool>();
  bool quiet = vm["quiet"].as<bool>();

  // gnuplot is looked for first, so that a missing one fails before any file is written.
  std::string gnuplot = render ? find_gnuplot() : "";
  if (render && gnuplot.empty()) {
    throw InputError("gnuplot not found on PATH (nor $DLSIM_GNUPLOT): install it (Debian: "
                     "apt-get install gnuplot-nox), or give --no-render for the data files and "
                     "plot.gp only");
  }

  std::vector<PlotRun> runs;
  runs.reserve(dirs.size());
  for (const auto& d : dirs)
    runs.push_back(read_plot_run(d));
  const PlotRun& first = runs.front();
  bool gantt = false;
  if (gantt_mode == "on") {
    if (!first.has_events) {
      throw InputError(fmt::format("{}: no events.csv, which the Gantt chart needs (rerun with "
                                   "`dlsim run --events on`)",
                                   first.dir));
    }
    gantt = true;
  } else if (gantt_mode == "auto") {
    gantt = first.has_events && first.devices <= kGanttAutoMaxDevices &&
            first.jobs <= kGanttAutoMaxJobs;
  }

  std::string given_out = vm.count("out") ? vm["out"].as<std::string>() : "";
  fs::path first_dir = fs::path(first.dir).lexically_normal();
  if (!first_dir.has_filename()) first_dir = first_dir.parent_path(); // "results/x/"
  fs::path out = given_out.empty() ? fs::path(first_dir.string() + "-plots") : fs::path(given_out);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out))
    throw InputError(fmt::format("{}: cannot create the output directory{}", out.string(),
                                 ec ? ": " + ec.message() : ""));

  auto write = [&](const std::string& name, const std::string& text) {
    write_file_atomically((out / name).string(), [&](std::ostream& s) { s << text; });
  };
  write("jct_cdf.dat", jct_cdf_data(runs));
  write("utilization.dat", utilization_data(runs));
  write("queue.dat", queue_data(runs));
  if (gantt) write("gantt.dat", gantt_data(first));
  // The FGD paper's Fig. 9a when every run measured GPU sharing (report.fragmentation).
  const bool allocation =
      std::all_of(runs.begin(), runs.end(), [](const PlotRun& r) { return !r.allocation.empty(); });
  if (allocation) write("allocation.dat", allocation_data(runs));
  write("plot.gp", plot_script(runs, formats, gantt, allocation));
  if (render) run_gnuplot(gnuplot, out);
  if (!quiet) {
    std::string charts = "jct_cdf, utilization, queue";
    if (allocation) charts += ", allocation";
    if (gantt) charts += ", gantt";
    if (render)
      fmt::print("plots ({}) as {} in {}/\n", charts, fmt::join(formats, " and "), out.string());
    else
      fmt::print("data files and plot.gp in {}/ (run `gnuplot plot.gp` there)\n", out.string());
  }
  return 0;
}

} // namespace dlsim
