// Pollux's measured profiles and dlsim's model of a fixed-configuration job on them. The model
// follows how Pollux's simulator advances a job whose replicas and batch size are fixed (its
// Tiresias baseline): each epoch needs a measured amount of progress, and a second of training
// makes gain / step_time progress, where gain is the statistical efficiency of the batch
// (docs/traces.md#pollux---format-pollux has the formula and where dlsim departs from it).
#include "workloads/formats/pollux_profile.h"

#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "workloads/formats/csv_row_loop.h"
#include "workloads/formats/csv_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

namespace dlsim {

namespace {

namespace fs = std::filesystem;

// Pollux's simulated cluster: nodes of 4 GPUs (simulator.py, Cluster(num_gpus=4)), the nodes
// its profiles were measured on.
constexpr int kGpusPerNode = 4;

double required_number(const char* text, bool positive) {
  auto v = parse_double_field(text);
  if (!v) throw FieldError{"missing value: expected a number"};
  if (!std::isfinite(*v) || *v < 0 || (positive && *v == 0))
    throw FieldError{
        fmt::format("expected a {} number, got {}", positive ? "positive" : "non-negative", *v)};
  return *v;
}

// A per-GPU batch: a whole number of samples, at most 10^6 so that the batch arithmetic of
// pollux_run_time stays within int.
double required_local_bsz(const char* text) {
  auto v = parse_int_field(text);
  if (!v || *v < 1 || *v > 1'000'000)
    throw FieldError{"expected a per-GPU batch size from 1 to 1000000"};
  return static_cast<double>(*v);
}

// The (local_bsz, step_time, sync_time) columns that placements.csv and scalability.csv share;
// `row.column` names the field being read for the error.
StepTimePoint read_step_point(const char* local_bsz, const char* step_time, const char* sync_time,
                              CsvRow& row) {
  StepTimePoint point;
  row.column = "local_bsz";
  point.local_bsz = required_local_bsz(local_bsz);
  row.column = "step_time";
  point.step_time_s = required_number(step_time, true);
  row.column = "sync_time";
  point.sync_time_s = required_number(sync_time, false);
  if (point.sync_time_s > point.step_time_s)
    throw FieldError{
        fmt::format("sync_time {} exceeds step_time {}", point.sync_time_s, point.step_time_s)};
  return point;
}

std::vector<std::string> header_of(const std::string& file) {
  if (!path_exists(file)) throw InputError(fmt::format("{}: no such file", file));
  return read_csv_header(file);
}

template <std::size_t N>
void require_columns(const std::string& file, const std::array<const char*, N>& columns) {
  auto header = header_of(file);
  for (const char* c : columns) {
    if (!has_column(header, c))
      throw InputError(fmt::format("{}:1: {}: required column missing from the header", file, c));
  }
}

template <std::size_t N, class OnRow>
void read_rows(const std::string& file, const std::array<const char*, N>& columns, OnRow&& on_row) {
  require_columns(file, columns);
  csv_row_loop(CsvSource{file, CsvHeader::kNamed, header_of(file).size()}, columns, on_row,
               throw_bad_row);
}

void sort_points(std::vector<StepTimePoint>& points, const std::string& file,
                 const std::string& key) {
  std::sort(points.begin(), points.end(), [](const StepTimePoint& a, const StepTimePoint& b) {
    return a.local_bsz < b.local_bsz;
  });
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (points[i].local_bsz == points[i - 1].local_bsz) {
      throw InputError(
          fmt::format("{}: {} has two rows for local_bsz {}", file, key, points[i].local_bsz));
    }
  }
}

// The placement Pollux's own configuration search assumes for n replicas: full nodes of 4 GPUs
// and the rest on one more node, named as the lexicographically smallest rotation of the
// per-node counts, as placements.csv names it (6 replicas: (4, 2) -> "24").
std::string packed_placement(int replicas) {
  std::vector<int> nodes;
  for (int left = replicas; left > 0; left -= kGpusPerNode)
    nodes.push_back(std::min(left, kGpusPerNode));
  std::vector<int> best = nodes;
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    std::vector<int> rotated(nodes.begin() + static_cast<std::ptrdiff_t>(i), nodes.end());
    rotated.insert(rotated.end(), nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(i));
    best = std::min(best, rotated);
  }
  std::string id;
  for (int n : best)
    id += static_cast<char>('0' + n);
  return id;
}

// Gradient statistics of epoch e at batch size b, linear in b between the validated batch sizes
// around it (b is within [init_batch_size, max_batch_size]).
ValidationEpoch grad_stats_at(const PolluxProfile& p, int batch_size, int epoch) {
  auto hi = p.validation.lower_bound(batch_size);
  const ValidationEpoch& upper = hi->second[static_cast<std::size_t>(epoch)];
  if (hi->first == batch_size) return upper;
  auto lo = std::prev(hi);
  const ValidationEpoch& lower = lo->second[static_cast<std::size_t>(epoch)];
  const double w = static_cast<double>(batch_size - lo->first) / (hi->first - lo->first);
  ValidationEpoch out;
  out.grad_sqr = lower.grad_sqr + w * (upper.grad_sqr - lower.grad_sqr);
  out.grad_var = lower.grad_var + w * (upper.grad_var - lower.grad_var);
  return out;
}

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

} // namespace

bool step_time_at(const std::vector<StepTimePoint>& points, double local_bsz, StepTimePoint& out) {
  if (points.empty() || local_bsz < points.front().local_bsz || local_bsz > points.back().local_bsz)
    return false;
  auto hi = std::lower_bound(points.begin(), points.end(), local_bsz,
                             [](const StepTimePoint& p, double x) { return p.local_bsz < x; });
  if (hi->local_bsz == local_bsz) {
    out = *hi;
    return true;
  }
  auto lo = hi - 1;
  const double w = (local_bsz - lo->local_bsz) / (hi->local_bsz - lo->local_bsz);
  out.local_bsz = local_bsz;
  out.step_time_s = lo->step_time_s + w * (hi->step_time_s - lo->step_time_s);
  out.sync_time_s = lo->sync_time_s + w * (hi->sync_time_s - lo->sync_time_s);
  return true;
}

namespace {

// placements.csv: the step times measured at each placement, by its per-node GPU counts.
void read_placements(PolluxProfile& p, const std::string& placements) {
  read_rows(
      placements, std::array<const char*, 4>{"placement", "local_bsz", "step_time", "sync_time"},
      [&](const std::array<char*, 4>& f, CsvRow& row) {
        row.column = "placement";
        std::string id = f[0] ? f[0] : "";
        if (id.empty() || id.find_first_not_of("1234") != std::string::npos)
          throw FieldError{fmt::format("expected GPUs per node as digits 1 to 4, got '{}'", id)};
        p.placements[id].push_back(read_step_point(f[1], f[2], f[3], row));
      });
  for (auto& [id, points] : p.placements)
    sort_points(points, placements, "placement " + id);
}

// scalability.csv: the step times measured by (nodes, replicas).
void read_scalability(PolluxProfile& p, const std::string& scalability) {
  read_rows(scalability,
            std::array<const char*, 5>{"num_nodes", "num_replicas", "local_bsz", "step_time",
                                       "sync_time"},
            [&](const std::array<char*, 5>& f, CsvRow& row) {
              row.column = "num_nodes";
              auto nodes = parse_int_field(f[0]);
              if (!nodes || *nodes < 1 || *nodes > 1024)
                throw FieldError{"expected 1 to 1024 nodes"};
              row.column = "num_replicas";
              auto replicas = parse_int_field(f[1]);
              if (!replicas || *replicas < *nodes || *replicas > 4096)
                throw FieldError{"expected num_nodes to 4096 replicas"};
              p.scalability[{static_cast<int>(*nodes), static_cast<int>(*replicas)}].push_back(
                  read_step_point(f[2], f[3], f[4], row));
            });
  for (auto& [key, points] : p.scalability)
    sort_points(points, scalability, fmt::format("({} nodes, {} replicas)", key.first, key.second));
}

// The batch size B of a file named validation-<B>.csv; 0 for a file of another name.
int validation_batch(const fs::path& path) {
  const std::string name = path.filename().string();
  if (!name.starts_with("validation-") || !name.ends_with(".csv")) return 0;
  std::string_view digits(name);
  digits = digits.substr(11, digits.size() - 11 - 4);
  int batch = 0;
  auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), batch);
  if (err != std::errc() || end != digits.data() + digits.size() || batch < 1 ||
      batch > 1'000'000'000) {
    throw InputError(fmt::format("{}: expected validation-<batch size>.csv", path.string()));
  }
  return batch;
}

// One validation-<B>.csv: the gradient statistics of each epoch at batch size B.
void read_validation_file(const std::string& file, std::vector<ValidationEpoch>& epochs) {
  read_rows(file, std::array<const char*, 3>{"progress", "grad_sqr", "grad_var"},
            [&](const std::array<char*, 3>& f, CsvRow& row) {
              ValidationEpoch e;
              row.column = "progress";
              e.progress = required_number(f[0], true);
              if (!epochs.empty() && e.progress <= epochs.back().progress)
                throw FieldError{fmt::format("progress must increase, got {} after {}", e.progress,
                                             epochs.back().progress)};
              row.column = "grad_sqr";
              e.grad_sqr = required_number(f[1], false);
              row.column = "grad_var";
              e.grad_var = required_number(f[2], false);
              if (e.grad_sqr + e.grad_var == 0)
                throw FieldError{"grad_sqr and grad_var are both 0: no statistical efficiency"};
              epochs.push_back(e);
            });
  if (epochs.empty()) throw InputError(fmt::format("{}: no epochs", file));
}

// Every validation-<B>.csv of the directory, by batch size (the map sorts the listing), each cut
// to the epochs they all have.
void read_validation(PolluxProfile& p, const fs::path& base) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(base, ec)) {
    const int batch = validation_batch(entry.path());
    if (batch == 0) continue;
    read_validation_file(entry.path().string(), p.validation[batch]);
  }
  if (ec)
    throw InputError(fmt::format("{}: cannot list the directory: {}", base.string(), ec.message()));
  if (p.validation.empty())
    throw InputError(fmt::format("{}: no validation-<batch size>.csv file", base.string()));
  p.epochs = static_cast<int>(p.validation.begin()->second.size());
  for (auto& [batch, epochs] : p.validation)
    p.epochs = std::min(p.epochs, static_cast<int>(epochs.size()));
  for (auto& [batch, epochs] : p.validation)
    epochs.resize(static_cast<std::size_t>(p.epochs));
}

} // namespace

PolluxProfile load_pollux_profile(const std::string& dir, const std::string& application,
                                  double max_local_bsz) {
  PolluxProfile p;
  p.application = application;
  const fs::path base = fs::path(dir) / application;
  const std::string placements = (base / "placements.csv").string();
  read_placements(p, placements);
  read_scalability(p, (base / "scalability.csv").string());
  read_validation(p, base);
  p.init_batch_size = p.validation.begin()->first;
  p.max_batch_size = p.validation.rbegin()->first;
  p.min_local_bsz = 1e300;
  for (const auto& [id, points] : p.placements) {
    p.min_local_bsz = std::min(p.min_local_bsz, points.front().local_bsz);
    p.max_local_bsz = std::max(p.max_local_bsz, points.back().local_bsz);
  }
  if (p.placements.empty()) throw InputError(fmt::format("{}: no rows", placements));
  if (max_local_bsz > 0) p.max_local_bsz = max_local_bsz;
  return p;
}

PolluxRun pollux_run_time(const PolluxProfile& p, int replicas, int batch_size,
                          std::string& error) {
  PolluxRun run;
  error.clear();
  // The per-GPU batch and accumulation steps, as Pollux's simulator sets them for a fixed batch
  // size (simulator.py, Job.update_local_bsz): micro-batches of at most max_local_bsz, and at
  // least one accumulation step for a single replica above the initial batch size.
  const int local = ceil_div(batch_size, replicas);
  run.accum_steps = ceil_div(local, static_cast<int>(p.max_local_bsz)) - 1;
  if (replicas == 1 && batch_size > p.init_batch_size)
    run.accum_steps = std::max(1, run.accum_steps);
  run.local_bsz = ceil_div(local, run.accum_steps + 1);
  const int count = replicas * (run.accum_steps + 1);
  run.local_bsz = std::min(run.local_bsz, p.max_batch_size / count);
  run.batch_size = count * run.local_bsz;
  if (run.local_bsz < 1 || run.batch_size < p.init_batch_size) {
    error = fmt::format("{} replicas with a batch of {} train at {} per step, below the smallest "
                        "validated batch size of {} ({})",
                        replicas, batch_size, run.batch_size, p.init_batch_size, p.application);
    return run;
  }

  run.placement = packed_placement(replicas);
  const int nodes = static_cast<int>(run.placement.size());
  StepTimePoint step;
  auto measured = p.placements.find(run.placement);
  auto scaled = p.scalability.find({nodes, replicas});
  const std::vector<StepTimePoint>* points = measured != p.placements.end()  ? &measured->second
                                             : scaled != p.scalability.end() ? &scaled->second
                                                                             : nullptr;
  if (points == nullptr) {
    error = fmt::format("no measured step time for {} replicas on {} nodes of 4 GPUs (placement "
                        "'{}') in {}'s placements.csv or scalability.csv",
                        replicas, nodes, run.placement, p.application);
    return run;
  }
  if (!step_time_at(*points, run.local_bsz, step)) {
    error =
        fmt::format("a per-GPU batch of {} is outside the measured {} to {} of {}'s placement '{}'",
                    run.local_bsz, points->front().local_bsz, points->back().local_bsz,
                    p.application, run.placement);
    return run;
  }
  run.step_time_s = step.step_time_s + run.accum_steps * (step.step_time_s - step.sync_time_s);

  // Epoch e needs progress P(e+1) - P(e), P(e) the least progress any validated batch size had
  // made after e epochs; each step makes `gain` progress, the statistical efficiency of the
  // batch relative to the initial one (Pollux eq. 6 with the measured gradient statistics).
  const double scale = static_cast<double>(run.batch_size) / p.init_batch_size;
  double before = 0;
  for (int e = 0; e < p.epochs; ++e) {
    double after = 1e300;
    for (const auto& [b, epochs] : p.validation)
      after = std::min(after, epochs[static_cast<std::size_t>(e)].progress);
    const ValidationEpoch g = grad_stats_at(p, run.batch_size, e);
    const double gain = (g.grad_var + g.grad_sqr) / (g.grad_var / scale + g.grad_sqr);
    run.run_time_s += (after - before) * run.step_time_s / gain;
    before = after;
  }
  return run;
}

} // namespace dlsim
