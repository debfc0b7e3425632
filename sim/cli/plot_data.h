// The data files and the gnuplot script of `dlsim plot` (docs/outputs.md#dlsim-plot), built from
// result directories. Pure text: rendering is gnuplot's job (plot_command.cpp runs it).
#pragma once

#include <string>
#include <vector>

namespace dlsim {

// One result directory, read for plotting.
struct PlotRun {
  std::string label; // the directory's name, the legend entry
  std::string dir;
  // Finished jobs' JCTs (jobs.csv `jct_s`), sorted ascending.
  std::vector<double> jct_s;
  // Devices per kind the cluster has (summary.json util_by_kind), in its order.
  std::vector<std::pair<std::string, double>> kinds;
  // timeseries.csv as read: its header and rows.
  std::vector<std::string> ts_header;
  std::vector<std::vector<std::string>> ts_rows;
  // Device occupancy from events.csv (empty when the run wrote none).
  struct Segment {
    int device = 0;
    double start_s = 0, end_s = 0;
    std::string job;
    int job_index = 0; // the job's order of first appearance, for its colour
  };
  std::vector<Segment> segments;
  bool has_events = false;
  // allocation.csv (report.fragmentation): (arrived_pct, alloc_pct) per 1% bucket; empty when
  // the run wrote none.
  std::vector<std::pair<double, double>> allocation;
  std::size_t jobs = 0;
  std::size_t devices = 0; // all devices of the cluster
};

// Reads jobs.csv, summary.json, timeseries.csv and (if present) events.csv of `dir`.
// Throws InputError naming the file when one is missing or malformed.
PlotRun read_plot_run(const std::string& dir);

// Device occupancy from events.csv rows (time_s, job, action, devices, ...): a segment from the
// action that gives a job a device (start, pack, slice, resume, bind, migrate, resize) to the one
// that takes it back (finish, suspended, cancel, unbind, or a migrate/resize elsewhere), or to
// `end_s` for a job still holding it.
std::vector<PlotRun::Segment>
occupancy_from_events(const std::vector<std::vector<std::string>>& rows, double end_s,
                      const std::string& where);

// jct_cdf.dat: a block per run (blank-line pairs between), first line the quoted label, then
// "jct_s fraction" per finished job: the i-th smallest JCT (1-based) at i / n.
std::string jct_cdf_data(const std::vector<PlotRun>& runs);

// utilization.dat: a block per run, "time_s" then for each kind the cluster has its allocated
// fraction (allocated devices / devices of the kind) and effective utilization, from
// timeseries.csv.
std::string utilization_data(const std::vector<PlotRun>& runs);

// queue.dat: a block per run, "time_s pending_jobs running_jobs" from timeseries.csv.
std::string queue_data(const std::vector<PlotRun>& runs);

// allocation.dat: a block per run, "arrived_pct alloc_pct" from allocation.csv (the FGD paper's
// Fig. 9a, docs/fragmentation.md#measures).
std::string allocation_data(const std::vector<PlotRun>& runs);

// gantt.dat of one run: "device start_s end_s job_index job" per occupancy segment.
std::string gantt_data(const PlotRun& run);

// Whether the Gantt chart is drawn when not asked for: a run of at most this many devices and
// jobs (a bigger chart is unreadable).
constexpr std::size_t kGanttAutoMaxDevices = 128;
constexpr std::size_t kGanttAutoMaxJobs = 2'000;

// plot.gp, to be run in the output directory: each chart once per format ("png", "svg").
std::string plot_script(const std::vector<PlotRun>& runs, const std::vector<std::string>& formats,
                        bool gantt, bool allocation = false);

} // namespace dlsim
