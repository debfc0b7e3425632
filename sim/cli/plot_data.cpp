// `dlsim plot`'s inputs and outputs as text: the result files read, the data files and script
// written. Numbers are written as the shortest decimal that reads back exactly, so that a test
// can check them against jobs.csv and timeseries.csv.
#include "sim/cli/plot_data.h"

#include "sim/cli/sweep_csv.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace dlsim {

namespace {

double number(const std::string& text, const std::string& where) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw InputError(fmt::format("{}: '{}' is not a number", where, text));
  return v;
}

std::size_t column(const CsvTable& t, const std::string& name, const std::string& file) {
  auto it = std::find(t.header.begin(), t.header.end(), name);
  if (it == t.header.end())
    throw InputError(fmt::format("{}: no column '{}' (not a dlsim result file?)", file, name));
  return static_cast<std::size_t>(it - t.header.begin());
}

std::vector<int> device_list(const std::string& text, const std::string& where) {
  std::vector<int> out;
  std::istringstream in(text);
  std::string item;
  while (in >> item)
    out.push_back(static_cast<int>(number(item, where)));
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
  return out;
}

PlotRun read_plot_run(const std::string& dir) {
  PlotRun run;
  run.dir = dir;
  fs::path p(dir);
  run.label = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
  if (!is_directory_path(p))
    throw InputError(
        fmt::format("{}: not a directory (expected a dlsim run's result directory)", dir));

  std::string summary_file = (p / "summary.json").string();
  std::ifstream in(summary_file, std::ios::binary);
  if (!in)
    throw InputError(
        fmt::format("{}: cannot read (not a complete dlsim result directory?)", summary_file));
  nlohmann::ordered_json summary;
  try {
    summary = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", summary_file, e.what()));
  }
  if (!summary.is_object() || !summary.contains("util_by_kind") ||
      !summary["util_by_kind"].is_object() || !summary.contains("jobs")) {
    throw InputError(
        fmt::format("{}: no 'jobs' or 'util_by_kind' (not a summary.json of this dlsim version)",
                    summary_file));
  }
  for (const auto& [kind, u] : summary["util_by_kind"].items()) {
    double devices = u.value("devices", 0.0);
    run.kinds.emplace_back(kind, devices);
    run.devices += static_cast<std::size_t>(devices);
  }
  run.jobs = summary["jobs"].get<std::size_t>();

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
                  "job_index job\n",
                  run.label);
  for (const auto& s : run.segments) {
    std::string job = s.job;
    std::replace_if(
        job.begin(), job.end(), [](char c) { return c == ' ' || c == '\n'; }, '_');
    out += fmt::format("{} {} {} {} {}\n", s.device, s.start_s, s.end_s, s.job_index, job);
  }
  return out;
}

std::string plot_script(const std::vector<PlotRun>& runs, const std::vector<std::string>& formats,
                        bool gantt, bool allocation) {
  std::string s = "# Written by `dlsim plot`; regenerate the pictures with `gnuplot plot.gp` in "
                  "this directory.\nset datafile commentschars '#'\nset grid\nset key "
                  "outside right top noenhanced\n";
  for (const auto& format : formats) {
    std::string terminal = format == "svg" ? "svg size 900,560 noenhanced font 'sans,11'"
                                           : "pngcairo size 900,560 noenhanced font ',11'";
    auto chart = [&](const std::string& name, const std::string& title, const std::string& x,
                     const std::string& y) {
      s += fmt::format("\nset terminal {}\nset output '{}.{}'\nset title {}\nset xlabel "
                       "{}\nset ylabel {}\n",
                       terminal, name, format, gp_quote(title), gp_quote(x), gp_quote(y));
    };
    chart("jct_cdf", "JCT CDF (finished jobs)", "JCT (h)", "fraction of finished jobs");
    s += "set yrange [0:1]\nplot ";
    bool any_jct = false;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (runs[r].jct_s.empty()) continue; // no finished job: nothing to draw
      s += fmt::format("{}'jct_cdf.dat' index {} using ($1/3600):2 with steps lw 2 title {}",
                       any_jct ? ", \\\n     " : "", r, gp_quote(runs[r].label));
      any_jct = true;
    }
    // No run finished a job: an empty chart that says so, not a gnuplot error.
    if (!any_jct) s += "[0:1] NaN title 'no finished job'";
    s += "\nset autoscale y\n";

    chart("utilization", "device utilization over time", "time (h)", "fraction of the devices");
    s += "set yrange [0:1.05]\nplot ";
    bool first = true;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      for (std::size_t k = 0; k < runs[r].kinds.size(); ++k) {
        const std::string& kind = runs[r].kinds[k].first;
        for (int e = 0; e < 2; ++e) {
          // Steps: timeseries.csv has a row only where a value changed (docs/outputs.md), and
          // the value holds until the next row.
          s += fmt::format(
              "{}'utilization.dat' index {} using ($1/3600):{} with steps lw {} {}"
              "title {}",
              first ? "" : ", \\\n     ", r, 2 + 2 * k + e, e ? 1 : 2, e ? "dt 2 " : "",
              gp_quote(label_prefix(runs, runs[r]) + kind + (e ? " effective" : " allocated")));
          first = false;
        }
      }
      if (has_busy_column(runs[r])) {
        s += fmt::format("{}'utilization.dat' index {} using ($1/3600):{} with steps lw 1 dt 3 "
                         "title {}",
                         first ? "" : ", \\\n     ", r, 2 + 2 * runs[r].kinds.size(),
                         gp_quote(label_prefix(runs, runs[r]) + "gpu busy (nvidia-smi)"));
        first = false;
      }
    }
    if (first) s += "NaN notitle"; // a cluster with no devices: an empty chart, not an error
    s += "\nset autoscale y\n";

    chart("queue", "jobs over time", "time (h)", "jobs");
    s += "plot ";
    for (std::size_t r = 0; r < runs.size(); ++r) {
      s += fmt::format("{0}'queue.dat' index {1} using ($1/3600):2 with steps lw 2 title {2}, "
                       "\\\n     'queue.dat' index {1} using ($1/3600):3 with steps dt 2 title {3}",
                       r ? ", \\\n     " : "", r, gp_quote(label_prefix(runs, runs[r]) + "pending"),
                       gp_quote(label_prefix(runs, runs[r]) + "running"));
    }
    s += '\n';

    if (allocation) {
      chart("allocation", "GPU allocation against arrived workload", "arrived workload (% of GPUs)",
            "GPU allocation ratio (%)");
      s += "set key inside left top\nplot ";
      for (std::size_t r = 0; r < runs.size(); ++r) {
        s += fmt::format("{}'allocation.dat' index {} using 1:2 with lines lw 2 title {}",
                         r ? ", \\\n     " : "", r, gp_quote(runs[r].label));
      }
      s += "\nset key outside right top\n";
    }

    if (gantt) {
      const PlotRun& run = runs.front();
      chart("gantt", "device occupancy: " + run.label, "time (h)", "device");
      int width = static_cast<int>(
          std::clamp<std::size_t>(300 / std::max<std::size_t>(run.devices, 1), 1, 8));
      s += fmt::format("set yrange [-1:{}]\nunset key\nplot 'gantt.dat' using ($2/3600):1:(($3-$2)"
                       "/3600):(0):4 with vectors nohead lw {} lc variable\nset key\nset "
                       "autoscale y\n",
                       run.devices, width);
    }
  }
  return s;
}

} // namespace dlsim
