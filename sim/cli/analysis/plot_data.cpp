// `dlsim plot`'s inputs and outputs as text: the result files read, the data files and script
// written. Numbers are written as the shortest decimal that reads back exactly, so that a test
// can check them against jobs.csv and timeseries.csv.
#include "sim/cli/analysis/plot_data.h"

#include "sim/cli/result_json.h"
#include "sim/cli/sweep_csv.h"
#include "sim/cluster/limits.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "sim/engine/utf8.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace dlsim {

namespace {

// A time, JCT or percentage of a result file: dlsim writes only finite numbers there ("nan" or
// "inf" would sort nowhere and plot as nothing).
double number(const std::string& text, const std::string& where) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw InputError(fmt::format("{}: {} is not a finite number", where, quote_input(text)));
  return v;
}

// A count in summary.json (jobs, a kind's devices): a non-negative integer up to `limit`.
std::size_t summary_count(const nlohmann::ordered_json& v, std::uint64_t limit,
                          const std::string& where) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > limit) {
    throw InputError(
        fmt::format("{}: expected a count 0 to {}, got {}", where, limit,
                    quote_input(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))));
  }
  return static_cast<std::size_t>(v.get<std::uint64_t>());
}

std::size_t column(const CsvTable& t, const std::string& name, const std::string& file) {
  auto it = std::find(t.header.begin(), t.header.end(), name);
  if (it == t.header.end())
    throw InputError(fmt::format("{}: no column '{}' (not a dlsim result file?)", file, name));
  return static_cast<std::size_t>(it - t.header.begin());
}

// events.csv's `devices`: space-separated device ids (an id past the limits of a cluster, or
// not an integer, is no device: a cast of 1e300 to int was undefined behaviour).
std::vector<int> device_list(const std::string& text, const std::string& where) {
  std::vector<int> out;
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    std::uint32_t id = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
    if (ec != std::errc() || end != item.data() + item.size() || id >= kMaxDevices) {
      throw InputError(fmt::format("{}: devices: {} is not a device id (0 to {})", where,
                                   quote_input(item), kMaxDevices - 1));
    }
    out.push_back(static_cast<int>(id));
  }
  return out;
}

// A gnuplot single-quoted string: '' stands for a quote inside.
std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string label_prefix(const std::vector<PlotRun>& runs, const PlotRun& run) {
  return runs.size() > 1 ? run.label + " " : "";
}

// The timeseries.csv columns of a device kind: its allocated count and effective utilization.
std::pair<std::string, std::string> kind_columns(const std::string& kind) {
  return {fmt::format("allocated_{}s", kind), fmt::format("effective_{}_util", kind)};
}

// Whether the run's timeseries.csv has the kernel-busy GPU column and the run has GPUs.
bool has_busy_column(const PlotRun& run) {
  bool gpus = std::any_of(run.kinds.begin(), run.kinds.end(),
                          [](const auto& k) { return k.first == "gpu"; });
  return gpus && std::find(run.ts_header.begin(), run.ts_header.end(), "busy_gpu_util") !=
                     run.ts_header.end();
}

} // namespace

std::vector<PlotRun::Segment>
occupancy_from_events(const std::vector<std::vector<std::string>>& rows, double end_s,
                      const std::string& where) {
  std::vector<PlotRun::Segment> out;
  std::map<std::string, int> job_index;
  std::map<std::string, std::map<int, double>> open; // job -> device -> since
  auto close = [&](const std::string& job, int device, double t) {
    auto& held = open[job];
    auto it = held.find(device);
    if (it == held.end()) return;
    out.push_back({device, it->second, t, job, job_index[job]});
    held.erase(it);
  };
  std::size_t line = 1;
  for (const auto& r : rows) {
    ++line;
    std::string at = fmt::format("{}:{}", where, line);
    if (r.size() < 4) throw InputError(fmt::format("{}: expected time_s,job,action,devices", at));
    double t = number(r[0], at);
    const std::string& job = r[1];
    // The job's id goes into gantt.dat and the chart's labels (an SVG is XML, which must be
    // UTF-8); dlsim writes ids only as UTF-8 (the trace readers check them).
    if (std::string problem = utf8_problem(job); !problem.empty())
      throw InputError(fmt::format("{}: job: {}", at, problem));
    const std::string& action = r[2];
    job_index.try_emplace(job, static_cast<int>(job_index.size()) + 1);
    std::vector<int> devices = device_list(r[3], at);
    if (action == "start" || action == "pack" || action == "slice" || action == "resume" ||
        action == "bind") {
      for (int d : devices)
        open[job].try_emplace(d, t);
    } else if (action == "migrate" || action == "resize") {
      std::set<int> now(devices.begin(), devices.end());
      std::vector<int> gone;
      for (const auto& [d, since] : open[job])
        if (!now.count(d)) gone.push_back(d);
      for (int d : gone)
        close(job, d, t);
      for (int d : devices)
        open[job].try_emplace(d, t);
    } else if (action == "finish" || action == "suspended" || action == "cancel" ||
               action == "unbind") {
      for (int d : devices)
        close(job, d, t);
    }
  }
  for (auto& [job, held] : open)
    for (const auto& [d, since] : held)
      out.push_back({d, since, end_s, job, job_index[job]});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.device, a.start_s, a.job_index) < std::tie(b.device, b.start_s, b.job_index);
  });
  assign_share_rows(out);
  return out;
}

void assign_share_rows(std::vector<PlotRun::Segment>& segments) {
  std::size_t first = 0; // of the current device's segments
  std::vector<double> free_at;
  for (std::size_t i = 0; i <= segments.size(); ++i) {
    if (i == segments.size() || segments[i].device != segments[first].device) {
      for (std::size_t k = first; k < i; ++k)
        segments[k].rows = static_cast<int>(free_at.size());
      free_at.clear();
      first = i;
      if (i == segments.size()) break;
    }
    PlotRun::Segment& s = segments[i];
    std::size_t row = 0;
    while (row < free_at.size() && free_at[row] > s.start_s)
      ++row;
    if (row == free_at.size()) free_at.push_back(s.end_s);
    free_at[row] = s.end_s;
    s.row = static_cast<int>(row);
  }
}

namespace {

// summary.json: the device counts per kind, the job count and every number.
void read_plot_summary(PlotRun& run, const fs::path& p) {
  std::string summary_file = (p / "summary.json").string();
  if (!path_exists(summary_file))
    throw InputError(
        fmt::format("{}: cannot read (not a complete dlsim result directory?)", summary_file));
  nlohmann::ordered_json summary = read_result_json(summary_file);
  if (!summary.is_object() || !summary.contains("util_by_kind") ||
      !summary["util_by_kind"].is_object() || !summary.contains("jobs")) {
    throw InputError(
        fmt::format("{}: no 'jobs' or 'util_by_kind' (not a summary.json of this dlsim version)",
                    summary_file));
  }
  for (const auto& [kind, u] : summary["util_by_kind"].items()) {
    const std::string where = fmt::format("{}: util_by_kind.{}", summary_file, kind);
    if (!u.is_object() || !u.contains("devices"))
      throw InputError(fmt::format("{}: expected an object with 'devices'", where));
    std::size_t devices = summary_count(u["devices"], kMaxDevices, where + ".devices");
    run.kinds.emplace_back(kind, static_cast<double>(devices));
    run.devices += devices;
  }
  run.jobs = summary_count(summary["jobs"], std::numeric_limits<std::uint32_t>::max(),
                           summary_file + ": jobs");
  std::function<void(const std::string&, const nlohmann::ordered_json&)> numbers =
      [&](const std::string& prefix, const nlohmann::ordered_json& obj) {
        for (const auto& [k, v] : obj.items()) {
          const std::string name = prefix.empty() ? k : std::string(prefix).append(".").append(k);
          if (v.is_object())
            numbers(name, v);
          else if (v.is_number())
            run.numbers.emplace_back(name, v.get<double>());
        }
      };
  numbers("", summary);
}

// jobs.csv: the finished jobs' JCTs, sorted.
void read_plot_jobs(PlotRun& run, const fs::path& p) {
  std::string jobs_file = (p / "jobs.csv").string();
  CsvTable jobs = read_csv_table(jobs_file);
  std::size_t jct = column(jobs, "jct_s", jobs_file);
  std::size_t status = column(jobs, "status", jobs_file);
  for (std::size_t i = 0; i < jobs.rows.size(); ++i) {
    const auto& r = jobs.rows[i];
    if (r[status] != "finished") continue;
    run.jct_s.push_back(number(r[jct], fmt::format("{}:{}: jct_s", jobs_file, i + 2)));
  }
  std::sort(run.jct_s.begin(), run.jct_s.end());
}

// timeseries.csv, its columns checked.
void read_plot_timeseries(PlotRun& run, const fs::path& p) {
  std::string ts_file = (p / "timeseries.csv").string();
  CsvTable ts = read_csv_table(ts_file);
  column(ts, "time_s", ts_file);
  column(ts, "pending_jobs", ts_file);
  column(ts, "running_jobs", ts_file);
  for (const auto& [kind, devices] : run.kinds) {
    column(ts, kind_columns(kind).first, ts_file);
    column(ts, kind_columns(kind).second, ts_file);
  }
  run.ts_header = std::move(ts.header);
  run.ts_rows = std::move(ts.rows);
}

// events.csv and allocation.csv, when the run wrote them.
void read_plot_extras(PlotRun& run, const fs::path& p) {
  const std::string ts_file = (p / "timeseries.csv").string();
  std::string events_file = (p / "events.csv").string();
  if (path_exists(events_file)) {
    CsvTable events = read_csv_table(events_file);
    if (events.header.size() < 4 || events.header[0] != "time_s" || events.header[3] != "devices")
      throw InputError(fmt::format("{}: not a dlsim events.csv", events_file));
    double end = 0;
    if (!events.rows.empty()) end = number(events.rows.back()[0], events_file + ": last row");
    if (!run.ts_rows.empty()) end = std::max(end, number(run.ts_rows.back()[0], ts_file));
    run.segments = occupancy_from_events(events.rows, end, events_file);
    run.has_events = true;
  }
  std::string alloc_file = (p / "allocation.csv").string();
  if (path_exists(alloc_file)) {
    CsvTable alloc = read_csv_table(alloc_file);
    std::size_t arrived = column(alloc, "arrived_pct", alloc_file);
    std::size_t allocated = column(alloc, "alloc_pct", alloc_file);
    for (std::size_t i = 0; i < alloc.rows.size(); ++i) {
      std::string where = fmt::format("{}:{}", alloc_file, i + 2);
      run.allocation.emplace_back(number(alloc.rows[i][arrived], where),
                                  number(alloc.rows[i][allocated], where));
    }
  }
}

} // namespace

PlotRun read_plot_run(const std::string& dir) {
  PlotRun run;
  run.dir = dir;
  fs::path p(dir);
  run.label = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
  if (!is_directory_path(p))
    throw InputError(
        fmt::format("{}: not a directory (expected a dlsim run's result directory)", dir));

  read_plot_summary(run, p);
  read_plot_jobs(run, p);
  read_plot_timeseries(run, p);
  read_plot_extras(run, p);
  return run;
}

std::string allocation_data(const std::vector<PlotRun>& runs) {
  std::string out = "# dlsim plot: GPU allocation against arrived workload, a block per run: "
                    "arrived_pct alloc_pct\n";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (r > 0) out += "\n\n";
    out += fmt::format("# run: {}\n", runs[r].label);
    for (const auto& [arrived, alloc] : runs[r].allocation)
      out += fmt::format("{} {}\n", arrived, alloc);
  }
  return out;
}

std::string jct_cdf_data(const std::vector<PlotRun>& runs) {
  std::string out = "# dlsim plot: JCT CDF, a block per run: jct_s fraction (i-th smallest JCT of "
                    "n finished jobs at i/n)\n";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (r > 0) out += "\n\n";
    const auto& jct = runs[r].jct_s;
    out += fmt::format("# run: {}\n", runs[r].label);
    // A run with no finished job keeps its block (the script counts blocks by index) with one
    // undefined point, and the script leaves it out.
    if (jct.empty()) out += "# no finished job\nNaN NaN\n";
    for (std::size_t i = 0; i < jct.size(); ++i)
      out += fmt::format("{} {}\n", jct[i], static_cast<double>(i + 1) / jct.size());
  }
  return out;
}

std::string utilization_data(const std::vector<PlotRun>& runs) {
  std::string out =
      "# dlsim plot: utilization over time, a block per run: time_s, then per "
      "device kind its allocated fraction and effective utilization (useful work), then the "
      "GPUs' kernel-busy share as nvidia-smi shows it (gpu_busy)\n";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const PlotRun& run = runs[r];
    if (r > 0) out += "\n\n";
    out += fmt::format("# run: {}\n# time_s", run.label);
    std::vector<std::pair<std::size_t, std::size_t>> cols;
    auto index = [&](const std::string& name) {
      return static_cast<std::size_t>(std::find(run.ts_header.begin(), run.ts_header.end(), name) -
                                      run.ts_header.begin());
    };
    for (const auto& [kind, devices] : run.kinds) {
      out += fmt::format(" {0}_allocated {0}_effective", kind);
      cols.emplace_back(index(kind_columns(kind).first), index(kind_columns(kind).second));
    }
    // What nvidia-smi would show, last (runs of a dlsim without the column have none).
    const std::size_t busy = index("busy_gpu_util");
    const bool has_busy = has_busy_column(run);
    if (has_busy) out += " gpu_busy";
    out += '\n';
    std::size_t time = index("time_s");
    for (std::size_t i = 0; i < run.ts_rows.size(); ++i) {
      const auto& row = run.ts_rows[i];
      std::string where = fmt::format("{}/timeseries.csv:{}", run.dir, i + 2);
      out += fmt::format("{}", number(row[time], where));
      for (std::size_t k = 0; k < cols.size(); ++k) {
        double devices = run.kinds[k].second;
        double alloc = devices > 0 ? number(row[cols[k].first], where) / devices : 0;
        out += fmt::format(" {} {}", alloc, number(row[cols[k].second], where));
      }
      if (has_busy) out += fmt::format(" {}", number(row[busy], where));
      out += '\n';
    }
  }
  return out;
}

std::string queue_data(const std::vector<PlotRun>& runs) {
  std::string out = "# dlsim plot: jobs over time, a block per run: time_s pending_jobs "
                    "running_jobs\n";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const PlotRun& run = runs[r];
    if (r > 0) out += "\n\n";
    out += fmt::format("# run: {}\n", run.label);
    auto index = [&](const std::string& name) {
      return static_cast<std::size_t>(std::find(run.ts_header.begin(), run.ts_header.end(), name) -
                                      run.ts_header.begin());
    };
    std::size_t time = index("time_s"), pending = index("pending_jobs");
    std::size_t running = index("running_jobs");
    for (std::size_t i = 0; i < run.ts_rows.size(); ++i) {
      const auto& row = run.ts_rows[i];
      std::string where = fmt::format("{}/timeseries.csv:{}", run.dir, i + 2);
      out += fmt::format("{} {} {}\n", number(row[time], where), number(row[pending], where),
                         number(row[running], where));
    }
  }
  return out;
}

std::string gantt_data(const PlotRun& run) {
  std::string out =
      fmt::format("# dlsim plot: device occupancy of run {} from events.csv: device start_s end_s "
                  "job_index job row rows (sub-row of the device's rows, for jobs sharing it)\n",
                  run.label);
  for (const auto& s : run.segments) {
    std::string job = s.job;
    std::replace_if(
        job.begin(), job.end(), [](char c) { return c == ' ' || c == '\n'; }, '_');
    out += fmt::format("{} {} {} {} {} {} {}\n", s.device, s.start_s, s.end_s, s.job_index, job,
                       s.row, s.rows);
  }
  return out;
}

bool jct_spans_decades(const std::vector<PlotRun>& runs) {
  double lo = 0, hi = 0;
  for (const auto& r : runs) {
    for (double v : r.jct_s) {
      if (v <= 0) continue;
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  return lo > 0 && hi > 100 * lo;
}

std::vector<std::string> plot_labels(const std::vector<PlotRun>& runs) {
  std::vector<std::string> labels;
  for (const auto& r : runs)
    if (std::find(labels.begin(), labels.end(), r.label) == labels.end()) labels.push_back(r.label);
  return labels;
}

double t95(std::size_t df) {
  // Two-sided 95% quantiles of Student's t (NIST/SEMATECH e-Handbook of Statistical Methods,
  // 1.3.6.7.2; the table of scripts/plot-sweep); past 30 degrees of freedom the normal 1.96.
  static constexpr std::array<double, 30> kT{
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= kT.size() ? kT[df - 1] : 1.96;
}

std::string metric_words(const std::string& metric) {
  // The summary.json metrics a paper's bar chart shows, in words (docs/outputs.md#summaryjson);
  // any other key as it is.
  static const std::map<std::string, std::string, std::less<>> words{
      {"jct_mean_s", "mean JCT"},
      {"jct_median_s", "median JCT"},
      {"jct_p95_s", "95th-percentile JCT"},
      {"jct_p99_s", "99th-percentile JCT"},
      {"queue_mean_s", "mean queueing delay"},
      {"queue_median_s", "median queueing delay"},
      {"queue_p95_s", "95th-percentile queueing delay"},
      {"makespan_s", "makespan"},
      {"gpu_util_alloc", "GPUs allocated"},
      {"gpu_util_effective", "GPU utilization"},
      {"preemptions", "preemptions"},
      {"migrations", "migrations"},
      {"fairness.jain_user_slowdown", "Jain's index"},
      {"fairness.slowdown_mean", "mean slowdown"},
      {"fairness.ftf_rho_max", "largest finish-time fairness"}};
  auto it = words.find(metric);
  return it == words.end() ? metric : it->second;
}

std::string bars_data(const std::vector<PlotRun>& runs, const std::vector<std::string>& metrics,
                      const std::string& baseline) {
  const std::vector<std::string> labels = plot_labels(runs);
  if (std::find(labels.begin(), labels.end(), baseline) == labels.end())
    throw InputError(fmt::format("--baseline: no run is labelled '{}' (labels: {})", baseline,
                                 fmt::join(labels, ", ")));
  auto value = [&](const PlotRun& r, const std::string& m) {
    for (const auto& [k, v] : r.numbers)
      if (k == m) return v;
    throw InputError(fmt::format("--bars: {}/summary.json has no number '{}' (keys as in "
                                 "summary.json, nested ones dotted: util_by_kind.gpu.alloc)",
                                 r.dir, m));
  };
  // Mean and 95% half-width of a label's runs.
  auto stats = [&](const std::string& label, const std::string& m) {
    std::vector<double> xs;
    for (const auto& r : runs)
      if (r.label == label) xs.push_back(value(r, m));
    double mean = 0;
    for (double x : xs)
      mean += x / static_cast<double>(xs.size());
    double ss = 0;
    for (double x : xs)
      ss += (x - mean) * (x - mean);
    const std::size_t n = xs.size();
    const double ci =
        n > 1 ? t95(n - 1) * std::sqrt(ss / static_cast<double>(n - 1)) / std::sqrt(n) : 0.0;
    return std::pair{mean, ci};
  };
  std::string out = fmt::format("# dlsim plot: metrics normalized to '{}', a row per metric: "
                                "metric, then per label its mean / the baseline's mean and the "
                                "95% confidence half-width / the baseline's mean\n# metric",
                                baseline);
  for (const auto& l : labels)
    out += fmt::format(" {0}_norm {0}_ci95", l);
  out += '\n';
  for (const auto& m : metrics) {
    const double base = stats(baseline, m).first;
    if (base == 0)
      throw InputError(fmt::format("--bars: '{}' is 0 for the baseline '{}': cannot normalize "
                                   "to it",
                                   m, baseline));
    out += '"' + metric_words(m) + '"';
    for (const auto& l : labels) {
      auto [mean, ci] = stats(l, m);
      out += fmt::format(" {} {}", mean / base, ci / std::abs(base));
    }
    out += '\n';
  }
  return out;
}

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

std::string series_style(std::size_t i) {
  // Okabe and Ito, "Color Universal Design" (2008), in an order that keeps the light yellow
  // last; black is the seventh.
  static constexpr std::array<const char*, 8> kPalette{"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                       "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return fmt::format("lc rgb '{}' dt {}", kPalette[i % kPalette.size()], 1 + i / kPalette.size());
}

namespace {

// Each series' style by its legend text: the same text (runs given one --label: seeds of one
// configuration) gets the same style and one legend entry.
class SeriesStyles {
public:
  // " lc rgb ... dt ... title 'x'" or " ... notitle" after the first.
  std::string operator()(const std::string& title) {
    auto it = std::find(seen_.begin(), seen_.end(), title);
    if (it != seen_.end())
      return " " + series_style(static_cast<std::size_t>(it - seen_.begin())) + " notitle";
    seen_.push_back(title);
    return " " + series_style(seen_.size() - 1) + " title " + gp_quote(title);
  }

private:
  std::vector<std::string> seen_;
};

// The gnuplot terminal for a format at a size. Paper sizes follow the IEEE and ACM two-column
// templates: a column is 3.5 in wide, the page's text 7.16 in; 8-point text as in a caption.
// PNG at 300 dpi, so fonts and lines scale by 300/72.
std::string terminal(const std::string& format, const std::string& size) {
  if (size == "screen") {
    if (format == "svg") return "svg size 900,560 noenhanced font 'sans,11'";
    if (format == "pdf") return "pdfcairo size 9in,5.6in noenhanced font 'sans,11'";
    return "pngcairo size 900,560 noenhanced font 'sans,11'";
  }
  const double w = size == "two-column" ? 7.16 : 3.5;
  const double h = size == "two-column" ? 2.8 : 2.4;
  if (format == "svg")
    return fmt::format("svg size {:.0f},{:.0f} noenhanced font 'sans,8'", w * 72, h * 72);
  if (format == "pdf") return fmt::format("pdfcairo size {}in,{}in noenhanced font 'sans,8'", w, h);
  return fmt::format("pngcairo size {:.0f},{:.0f} noenhanced font 'sans,8' fontscale {:.3f} "
                     "linewidth {:.3f}",
                     w * 300, h * 300, 300.0 / 72, 300.0 / 72);
}

} // namespace

namespace {

// A chart's terminal, file and labels. A figure in a paper has a caption, not a title: titles
// only on screen.
std::string chart_head(const std::string& format, const PlotOptions& options,
                       const std::string& name, const std::string& title, const std::string& x,
                       const std::string& y) {
  return fmt::format("\nset terminal {}\nset output '{}.{}'\n{}\nset xlabel {}\nset ylabel {}\n",
                     terminal(format, options.size), name, format,
                     options.size == "screen" ? "set title " + gp_quote(title) : "unset title",
                     gp_quote(x), gp_quote(y));
}

// The CDF of the finished jobs' JCTs, a line per run.
void jct_chart(std::string& s, const std::vector<PlotRun>& runs, const PlotOptions& options,
               const std::string& format) {
  SeriesStyles style;
  s += chart_head(format, options, "jct_cdf", "JCT CDF (finished jobs)",
                  options.log_x ? "JCT (h, log scale)" : "JCT (h)", "fraction of finished jobs");
  s += options.log_x ? "set logscale x\nset format x '%g'\n" : "unset logscale x\n";
  // Top left is empty in a CDF: few jobs finish early.
  s += "set key left top\nset yrange [0:1]\nplot ";
  bool any_jct = false;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].jct_s.empty()) continue; // no finished job: nothing to draw
    s += fmt::format("{}'jct_cdf.dat' index {} using ($1/3600):2 with steps lw 2{}",
                     any_jct ? ", \\\n     " : "", r, style(runs[r].label));
    any_jct = true;
  }
  // No run finished a job: an empty chart that says so, not a gnuplot error.
  if (!any_jct) s += "[0:1] NaN title 'no finished job'";
  s += "\nset autoscale y\nunset logscale x\nset format x '% h'\n";
}

// Allocated and effective utilization per device kind over time, a line each per run.
void utilization_chart(std::string& s, const std::vector<PlotRun>& runs, const PlotOptions& options,
                       const std::string& format) {
  SeriesStyles style;
  s += chart_head(format, options, "utilization", "device utilization over time", "time (h)",
                  "fraction of the devices");
  s += "set key right top\nset yrange [0:1.05]\nplot ";
  bool first = true;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (std::size_t k = 0; k < runs[r].kinds.size(); ++k) {
      const std::string& kind = runs[r].kinds[k].first;
      for (int e = 0; e < 2; ++e) {
        // Steps: timeseries.csv has a row only where a value changed (docs/outputs.md), and
        // the value holds until the next row.
        s += fmt::format(
            "{}'utilization.dat' index {} using ($1/3600):{} with steps lw {}{}",
            first ? "" : ", \\\n     ", r, 2 + 2 * k + e, e ? 1 : 2,
            style(label_prefix(runs, runs[r]) + kind + (e ? " effective" : " allocated")));
        first = false;
      }
    }
    if (has_busy_column(runs[r])) {
      s += fmt::format("{}'utilization.dat' index {} using ($1/3600):{} with steps lw 1{}",
                       first ? "" : ", \\\n     ", r, 2 + 2 * runs[r].kinds.size(),
                       style(label_prefix(runs, runs[r]) + "gpu busy (nvidia-smi)"));
      first = false;
    }
  }
  if (first) s += "NaN notitle"; // a cluster with no devices: an empty chart, not an error
  s += "\nset autoscale y\n";
}

// Pending and running jobs over time.
void queue_chart(std::string& s, const std::vector<PlotRun>& runs, const PlotOptions& options,
                 const std::string& format) {
  SeriesStyles style;
  s += chart_head(format, options, "queue", "jobs over time", "time (h)", "jobs");
  s += "set key right top\nplot ";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    s += fmt::format("{0}'queue.dat' index {1} using ($1/3600):2 with steps lw 2{2}, "
                     "\\\n     'queue.dat' index {1} using ($1/3600):3 with steps lw 1{3}",
                     r ? ", \\\n     " : "", r, style(label_prefix(runs, runs[r]) + "pending"),
                     style(label_prefix(runs, runs[r]) + "running"));
  }
  s += '\n';
}

// GPU allocation against the arrived workload (FGD's figure).
void allocation_chart(std::string& s, const std::vector<PlotRun>& runs, const PlotOptions& options,
                      const std::string& format) {
  SeriesStyles style;
  s += chart_head(format, options, "allocation", "GPU allocation against arrived workload",
                  "arrived workload (% of GPUs)", "GPU allocation ratio (%)");
  s += "set key inside left top\nplot ";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    s += fmt::format("{}'allocation.dat' index {} using 1:2 with lines lw 2{}",
                     r ? ", \\\n     " : "", r, style(runs[r].label));
  }
  s += '\n';
}

// Each cluster's tick: the metric in words, broken into lines of at most 12 characters so that
// neighbouring ticks do not run into each other. Returns the most lines a tick has.
std::size_t put_bar_ticks(std::string& s, const PlotOptions& options) {
  std::size_t tick_lines = 1;
  s += "set xtics nomirror noenhanced (";
  for (std::size_t m = 0; m < options.bar_metrics.size(); ++m) {
    std::string tick, line;
    std::istringstream words(metric_words(options.bar_metrics[m]));
    std::string w;
    while (words >> w) {
      if (!line.empty() && line.size() + 1 + w.size() > 12) {
        tick += line + "\\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + w;
    }
    tick += line;
    tick_lines = std::max(tick_lines, 1 + count_of(tick, "\\n"));
    std::string quoted;
    for (char ch : tick)
      quoted += ch == '"' ? std::string("\\\"") : std::string(1, ch);
    s += fmt::format("{}\"{}\" {}", m ? ", " : "", quoted, m);
  }
  return tick_lines;
}

// A cluster of bars per metric, a bar per label, error bars of the 95% interval.
void bars_chart(std::string& s, const std::vector<PlotRun>& runs, const PlotOptions& options,
                const std::string& format) {
  const auto labels = plot_labels(runs);
  s += chart_head(format, options, "bars",
                  "normalized to " + options.baseline + " (95% confidence interval over runs)", "",
                  "relative to " + options.baseline);
  // Headroom above the tallest bar (offsets) so that no error bar touches the frame; the
  // legend above the plot, where it hides no bar.
  s += "set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
       "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:*]\n"
       "set offsets 0, 0, graph 0.1, 0\n"
       "set grid noxtics\n";
  s += fmt::format("set key above horizontal maxcols {} samplen 1.5\n", labels.size());
  const std::size_t tick_lines = put_bar_ticks(s, options);
  // gnuplot leaves room for one line of ticks: the rest, and the x label's line, need more.
  s += fmt::format(")\nset bmargin {}\nplot ", tick_lines + 2);
  for (std::size_t l = 0; l < labels.size(); ++l) {
    s += fmt::format("{}'bars.dat' using {}:{} {} title {}", l ? ", \\\n     " : "", 2 + 2 * l,
                     3 + 2 * l, series_style(l), gp_quote(labels[l]));
  }
  s += "\nset style data lines\nset autoscale y\nset offsets 0, 0, 0, 0\nset grid xtics\n"
       "set xtics autofreq\nunset bmargin\n"
       "set key inside\n";
}

// The first run's device occupancy, a box per segment.
void gantt_chart(std::string& s, const std::vector<PlotRun>& runs, const PlotOptions& options,
                 const std::string& format) {
  const PlotRun& run = runs.front();
  s += chart_head(format, options, "gantt",
                  "device occupancy: " + run.label + " (sub-rows: jobs sharing a device)",
                  "time (h)", "device");
  // A box per segment: device d's row spans d - 0.45 .. d + 0.45, split into `rows`
  // sub-rows when jobs shared it, segment in sub-row `row`.
  s += fmt::format("set yrange [-1:{}]\nunset key\nset style fill solid 0.9 noborder\n"
                   "plot 'gantt.dat' using (($2+$3)/7200):($1-0.45+0.9*($6+0.5)/$7):(($3-$2)/7200):"
                   "(0.45/$7):4 with boxxyerror lc variable\nset key\nset autoscale y\n",
                   run.devices);
}

} // namespace

std::string plot_script(const std::vector<PlotRun>& runs, const PlotOptions& options) {
  std::string s = "# Written by `dlsim plot`; regenerate the pictures with `gnuplot plot.gp` in "
                  "this directory.\nset datafile commentschars '#'\nset grid\n"
                  "set key inside opaque box noenhanced\n";
  for (const auto& format : options.formats) {
    jct_chart(s, runs, options, format);
    utilization_chart(s, runs, options, format);
    queue_chart(s, runs, options, format);
    if (options.allocation) allocation_chart(s, runs, options, format);
    if (!options.bar_metrics.empty()) bars_chart(s, runs, options, format);
    if (options.gantt) gantt_chart(s, runs, options, format);
  }
  return s;
}

} // namespace dlsim
