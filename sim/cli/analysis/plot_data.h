// The data files and the gnuplot script of `dlsim plot` (docs/outputs.md#dlsim-plot), built from
// result directories. Pure text: rendering is gnuplot's job (plot_command.cpp runs it).
#pragma once

#include <string>
#include <vector>

namespace dlsim {

// One result directory, read for plotting.
struct PlotRun {
  std::string label; // the legend entry: --label, else the directory's name
  std::string dir;
  // summary.json's numbers, nested keys dotted (util_by_kind.gpu.alloc): the bar chart's
  // metrics.
  std::vector<std::pair<std::string, double>> numbers;
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
    // Jobs sharing the device (packed, time-sliced) at once get sub-rows: this segment's, of
    // `rows` on its device (assign_share_rows).
    int row = 0;
    int rows = 1;
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

// Splits each device's row into as many sub-rows as it held jobs at once: segments by start,
// each onto the lowest sub-row free at its start (greedy interval partitioning). Segments must
// be sorted by device, then start (as occupancy_from_events returns them).
void assign_share_rows(std::vector<PlotRun::Segment>& segments);

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

// gantt.dat of one run: "device start_s end_s job_index job row rows" per occupancy segment.
std::string gantt_data(const PlotRun& run);

// Whether the Gantt chart is drawn when not asked for: a run of at most this many devices and
// jobs (a bigger chart is unreadable).
constexpr std::size_t kGanttAutoMaxDevices = 128;
constexpr std::size_t kGanttAutoMaxJobs = 2'000;

// Whether the JCT CDF gets a logarithmic x axis by default: the finished jobs' JCTs, over all
// runs, span more than two decades (largest / smallest positive > 100).
bool jct_spans_decades(const std::vector<PlotRun>& runs);

// bars.dat: a row per metric, the metric in words (metric_words, double-quoted) then per label
// (runs sharing a label are seeds of one configuration, in order of first appearance) its mean over
// the runs divided by the baseline label's mean, and the half-width of the 95% confidence interval
// of that mean (Student's t, n - 1 degrees of freedom) divided by the same; 0 for a single run.
// Throws InputError for a metric some run lacks, an unknown baseline, or a baseline mean of 0.
std::string bars_data(const std::vector<PlotRun>& runs, const std::vector<std::string>& metrics,
                      const std::string& baseline);

// A summary.json metric in words for an axis or a tick ("mean JCT" for jct_mean_s); other
// keys as they are.
std::string metric_words(const std::string& metric);

// The distinct labels of the runs, in order of first appearance.
std::vector<std::string> plot_labels(const std::vector<PlotRun>& runs);

// Two-sided 95% quantile of Student's t with df >= 1 degrees of freedom.
double t95(std::size_t df);

// Series i's colour and dash: the Okabe-Ito palette (8 colours told apart with the common
// colour-vision deficiencies), then the same colours dashed, and so on: no two series alike.
std::string series_style(std::size_t i);

struct PlotOptions {
  std::vector<std::string> formats{"png", "svg"}; // png, svg, pdf
  std::string size = "screen";                    // screen, one-column, two-column
  bool log_x = false;                             // the JCT CDF's x axis
  bool gantt = false;
  bool allocation = false;              // the FGD paper's Fig. 9a (every run measured GPU sharing)
  std::vector<std::string> bar_metrics; // the bar chart's; none: no bar chart
  std::string baseline;                 // the label the bars are normalized to
};

// plot.gp, to be run in the output directory: each chart once per format.
std::string plot_script(const std::vector<PlotRun>& runs, const PlotOptions& options);

} // namespace dlsim
