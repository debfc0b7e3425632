// `dlsim plot RUN_DIR...`: the data files and gnuplot script of plot_data.h, then gnuplot run on
// the script as a child process (docs/outputs.md#dlsim-plot).
#include "sim/cli/analysis/commands.h"
#include "sim/cli/analysis/plot_data.h"
#include "sim/cli/common_options.h"
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
#include <sstream>
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

po::options_description plot_options() {
  po::options_description o(
      "dlsim plot RUN_DIR... [options]\n\nPlots result directories of `dlsim run` with gnuplot "
      "(Debian: gnuplot-nox):\nJCT CDF (every RUN_DIR on one chart), utilization per device "
      "kind and jobs\nover time, a bar chart of metrics normalized to a baseline (--bars), and "
      "a\nGantt chart of the devices of the first RUN_DIR (from its events.csv) for small\n"
      "runs. Writes the data files, plot.gp and the pictures to the output directory.\n\n"
      "Options");
  o.add_options()("out,o", po::value<std::string>(),
                  "output directory (default: the first RUN_DIR with -plots appended)")(
      "label", po::value<std::vector<std::string>>()->composing(),
      "legend label of the RUN_DIRs, one --label per RUN_DIR in order (default: the directory's "
      "name); RUN_DIRs given one label are runs of one configuration (seeds): one colour, one "
      "legend entry, one bar with error bars")(
      "format", po::value<std::string>()->default_value("both"),
      "png, svg, pdf, both (png and svg), all, or a list: png,pdf")(
      "size", po::value<std::string>()->default_value("screen"),
      "screen (900x560), one-column (3.5 x 2.4 in, 8 pt) or two-column (7.16 x 2.8 in)")(
      "logx", po::value<std::string>()->default_value("auto"),
      "the JCT CDF's x axis: auto (log when the JCTs span more than two decades), on or off")(
      "bars", po::value<std::string>(),
      "a bar chart of these summary.json metrics (comma-separated), each normalized to the "
      "--baseline label's mean, with 95% confidence intervals over the runs sharing a label")(
      "baseline", po::value<std::string>(),
      "the label the bars are normalized to (default: the first RUN_DIR's)")(
      "gantt", po::value<std::string>()->default_value("auto"),
      "auto (on up to 128 devices and 2,000 jobs), on or off")(
      "no-render", po::bool_switch(), "write the data files and plot.gp only; do not run gnuplot")(
      "quiet,q", po::bool_switch(), "print nothing on success")("help,h", "this help");
  return o;
}

// --format: png, svg, pdf, both, all or a list, each format once.
std::vector<std::string> parse_formats(const po::variables_map& vm) {
  std::vector<std::string> formats;
  std::string format = vm["format"].as<std::string>();
  if (format == "both") format = "png,svg";
  if (format == "all") format = "png,svg,pdf";
  std::istringstream in(format);
  std::string f;
  while (std::getline(in, f, ',')) {
    if (f != "png" && f != "svg" && f != "pdf")
      throw po::error(fmt::format(
          "--format expects png, svg, pdf, both, all or a list such as png,pdf, got '{}'",
          vm["format"].as<std::string>()));
    if (std::find(formats.begin(), formats.end(), f) == formats.end()) formats.push_back(f);
  }
  if (formats.empty()) throw po::error("--format: give at least one format");
  return formats;
}

// --gantt on needs the first run's events.csv; auto draws it for small runs only.
bool want_gantt(const std::string& gantt_mode, const PlotRun& first) {
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
  return gantt;
}

// --out, else the first RUN_DIR with -plots appended; created.
fs::path plot_out_dir(const po::variables_map& vm, const PlotRun& first) {
  std::string given_out = vm.count("out") ? vm["out"].as<std::string>() : "";
  fs::path first_dir = fs::path(first.dir).lexically_normal();
  if (!first_dir.has_filename()) first_dir = first_dir.parent_path(); // "results/x/"
  fs::path out = given_out.empty() ? fs::path(first_dir.string() + "-plots") : fs::path(given_out);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out))
    throw InputError(fmt::format("{}: cannot create the output directory{}", out.string(),
                                 ec ? ": " + ec.message() : ""));

  return out;
}

void print_plot_done(const PlotOptions& options, bool bars, bool render, const fs::path& out) {
  std::vector<std::string> charts{"jct_cdf", "utilization", "queue"};
  if (options.allocation) charts.emplace_back("allocation");
  if (bars) charts.emplace_back("bars");
  if (options.gantt) charts.emplace_back("gantt");
  if (render)
    fmt::print("plots ({}) as {} in {}/\n", fmt::join(charts, ", "),
               fmt::join(options.formats, " and "), out.string());
  else
    fmt::print("data files and plot.gp in {}/ (run `gnuplot plot.gp` there)\n", out.string());
}

} // namespace

int command_plot(const std::vector<std::string>& args) {
  const po::options_description o = plot_options();
  po::options_description hidden;
  hidden.add_options()("run", po::value<std::vector<std::string>>());
  po::variables_map vm;
  if (!parse_command_line(args, o, hidden, -1, vm)) return 0;
  if (!vm.count("run")) throw po::error("give at least one RUN_DIR");
  const auto& dirs = vm["run"].as<std::vector<std::string>>();
  PlotOptions options;
  options.formats = parse_formats(vm);
  options.size = vm["size"].as<std::string>();
  if (options.size != "screen" && options.size != "one-column" && options.size != "two-column")
    throw po::error(
        fmt::format("--size expects screen, one-column or two-column, got '{}'", options.size));
  const std::string logx = vm["logx"].as<std::string>();
  if (logx != "auto" && logx != "on" && logx != "off")
    throw po::error(fmt::format("--logx expects auto, on or off, got '{}'", logx));
  std::vector<std::string> labels;
  if (vm.count("label")) {
    labels = vm["label"].as<std::vector<std::string>>();
    if (labels.size() != dirs.size())
      throw po::error(fmt::format("give one --label per RUN_DIR: {} labels for {} RUN_DIRs",
                                  labels.size(), dirs.size()));
  }
  if (vm.count("bars")) {
    std::istringstream in(vm["bars"].as<std::string>());
    std::string m;
    while (std::getline(in, m, ','))
      if (!m.empty()) options.bar_metrics.push_back(m);
    if (options.bar_metrics.empty()) throw po::error("--bars: give at least one metric");
  } else if (vm.count("baseline")) {
    throw po::error("--baseline goes with --bars");
  }
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
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    runs.push_back(read_plot_run(dirs[i]));
    if (!labels.empty()) runs.back().label = labels[i];
  }
  const PlotRun& first = runs.front();
  options.log_x = logx == "on" || (logx == "auto" && jct_spans_decades(runs));
  options.baseline = vm.count("baseline") ? vm["baseline"].as<std::string>() : first.label;
  // The bar chart's data first: a wrong metric or baseline fails before any file is written.
  const std::string bars =
      options.bar_metrics.empty() ? "" : bars_data(runs, options.bar_metrics, options.baseline);
  const bool gantt = want_gantt(gantt_mode, first);
  options.gantt = gantt;

  const fs::path out = plot_out_dir(vm, first);
  auto write = [&](const std::string& name, const std::string& text) {
    write_file_atomically((out / name).string(), [&](std::ostream& s) { s << text; });
  };
  write("jct_cdf.dat", jct_cdf_data(runs));
  write("utilization.dat", utilization_data(runs));
  write("queue.dat", queue_data(runs));
  if (gantt) write("gantt.dat", gantt_data(first));
  // The FGD paper's Fig. 9a when every run measured GPU sharing (report.fragmentation).
  options.allocation =
      std::all_of(runs.begin(), runs.end(), [](const PlotRun& r) { return !r.allocation.empty(); });
  if (options.allocation) write("allocation.dat", allocation_data(runs));
  if (!bars.empty()) write("bars.dat", bars);
  write("plot.gp", plot_script(runs, options));
  if (render) run_gnuplot(gnuplot, out);
  if (!quiet) print_plot_done(options, !bars.empty(), render, out);
  return 0;
}

} // namespace dlsim
