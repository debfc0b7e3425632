// What a run replays, as plain data: each job's request and hidden work (JobSpec), the names the
// requests index, and the time per iteration of every model on every device type (PerfTable).
// Trace readers and workload building produce it; the runtime consumes it. No behaviour here.
#pragma once

#include "sim/cluster/device_catalog.h"
#include "sim/engine/time.h"
#include "sim/workload/loss_curve.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

using JobId = std::uint32_t;
using ModelId = std::uint16_t; // 0 = no model: a pure-duration job

constexpr std::int32_t kAnyGpu = -1; // JobRequest::device_type when the trace gives none
// JobRequest::device_type of a job that accepts several types: Workload::type_sets[type_set].
constexpr std::int32_t kTypeSet = -2;

// What a job asks for beyond its shape that most jobs leave at a default or share with many
// others (a model's memory, the cores and memory of a worker): kept once per distinct value in
// Workload::details, which JobRequest::details indexes, so that millions of jobs do not each
// carry 56 bytes of it (docs/performance.md). Read through Workload::details_of(request) or
// View::details(j). The job's utilization alone is not here: it is the runtime's truth
// (Workload::solo_util), which a policy learns only by measuring (View::measured_gpu_util).
struct RequestDetails {
  double cpus_per_worker = 0; // 0 = not constrained
  double mem_gb_per_worker = 0;
  double gpu_mem_gb = 0;       // device memory footprint (0 = unknown, not checked)
  double requested_time_s = 0; // the user's own estimate, when the trace has one
  // Share of a device per worker (docs/runtime.md#fractional-shares): guaranteed (min) and most
  // that may be granted (max), 0 < min <= max <= 1. A job with min < 1 has one device per worker
  // and may share it, under the share controller, with others whose mins sum to at most 1.
  double gpu_share_min = 1;
  double gpu_share_max = 1;
  // Seconds between the job's checkpoints (docs/failures.md#checkpoints); -1: the experiment's
  // failures.checkpoint_interval_s, 0: none.
  double checkpoint_interval_s = -1;
};

// What a real scheduler sees of a job when it is submitted (with its RequestDetails). 56 bytes.
struct JobRequest {
  SimTime submit = 0;
  std::uint32_t workers = 1;
  std::uint32_t devices_per_worker = 1;
  std::uint32_t ps = 0;          // parameter servers (communication pattern)
  std::uint32_t min_workers = 1; // elastic range; both = workers for a rigid job
  std::uint32_t max_workers = 1;
  int priority = 0;
  std::uint32_t user = 0;             // index into Workload::users
  std::uint32_t queue = 0;            // index into Workload::queues
  std::int32_t device_type = kAnyGpu; // DeviceTypeId, kAnyGpu or kTypeSet
  std::uint32_t details = 0;          // index into Workload::details; 0 = RequestDetails{}
  ModelId model = 0;                  // index into Workload::models / PerfTable
  std::uint16_t type_set = 0;         // with kTypeSet: index into Workload::type_sets
  // CPU cores of each parameter server (docs/scaling.md#cpu-cores-of-ps-and-workers); 0 = the
  // PS's CPU time is not modelled.
  std::uint16_t ps_cpus = 0;

  [[nodiscard]] std::uint32_t devices() const { return workers * devices_per_worker; }
};

// A host task: workers that hold `cpus_per_worker` cores and `mem_gb_per_worker` GB of a node
// and no device (a CPU-only pod, a parameter server). The runtime places it on nodes
// (JobState::hosts), not devices; it runs at its model's reference-device iteration time, alone
// and without interference (docs/runtime.md#host-tasks).
constexpr bool is_host_task(const JobRequest& r) {
  return r.devices_per_worker == 0;
}

// How the trace says the job ended. Failed and killed jobs keep their observed run time as their
// work by default; the summary counts them separately.
enum class TraceStatus : std::uint8_t { kCompleted = 0, kFailed = 1, kKilled = 2 };

// A job's name (the trace's job id) is in Workload::job_names, not here: 72 bytes.
struct JobSpec {
  JobRequest request;
  TraceStatus trace_status = TraceStatus::kCompleted;
  // A job that converges: 1 + its index in Workload::curves; 0 = a fixed length (in the
  // padding before `iterations`, so jobs without curves cost nothing).
  std::uint32_t curve = 0;
  // Hidden truth: the total work, in iterations. A job given by duration has
  // duration_s / (time per iteration on the reference device) iterations.
  double iterations = 0;
};

// Seconds per iteration of every model on every device type, for one device per worker at the
// request's size. Filled by workloads/ from the model zoo and the device catalog.
struct PerfTable {
  std::size_t type_count = 0;
  std::vector<double> iter_time_s; // [model * type_count + type]

  [[nodiscard]] double iter_time(ModelId m, DeviceTypeId t) const {
    return iter_time_s[static_cast<std::size_t>(m) * type_count + t];
  }
  // False when the model cannot train on the type at all (the zoo's `unsupported`): its time
  // there is +infinity and no placement may use it. A table without that entry (a hand-made
  // workload) supports everything.
  [[nodiscard]] bool supports(ModelId m, DeviceTypeId t) const {
    const std::size_t i = static_cast<std::size_t>(m) * type_count + t;
    return t >= type_count || i >= iter_time_s.size() ||
           iter_time_s[i] < std::numeric_limits<double>::infinity();
  }

  // What a model's distributed training moves per iteration (docs/network.md), by ModelId;
  // model 0 moves nothing. Empty when the workload has no model facts.
  struct Traffic {
    double model_bytes = 0;  // gradients (= parameters), FP32: 4 x params
    double comm_overlap = 0; // share of the exchange that can overlap the backward pass
    double input_bytes = 0;  // host-to-device input per device and iteration
  };
  std::vector<Traffic> traffic;
};

// What a predictor can read from a model's computation graph before the job runs:
// public facts of the model from the zoo (docs/models.md), not of any job.
struct ModelFeatures {
  std::string family;           // "cnn", "transformer", "rnn", ...; "" for no model
  double params_m = 0;          // parameters, millions
  double gflops_per_sample = 0; // forward + backward, per sample
  double batch_size = 0;        // the zoo's batch size, which its iteration times are for
  double gpu_mem_gb = 0;        // memory footprint per device at that batch size
  // Counts from the model's computation graph (the zoo's optional `graph`, docs/models.md): what
  // a utilization predictor reads (docs/utilization.md). has_graph false when the zoo gives none.
  bool has_graph = false;
  double conv_layers = 0;
  double linear_layers = 0; // an LSTM or GRU layer counts as its linear maps
  double recurrent_layers = 0;
  double activation_mb = 0; // activation memory per sample, forward and backward
};

// The trace's job ids, by JobId, back to back in one buffer: a std::string per job took 32 bytes
// (and a heap block for ids over 15 characters) of a record that millions of jobs each have.
class JobNames {
public:
  [[nodiscard]] std::string_view operator[](std::size_t j) const {
    const std::uint32_t from = j == 0 ? 0 : ends_[j - 1];
    return std::string_view(text_).substr(from, ends_[j] - from);
  }
  [[nodiscard]] std::size_t size() const { return ends_.size(); }
  // Throws std::length_error past 4 GiB of names in all (offsets are 32-bit).
  void push_back(std::string_view name) {
    if (name.size() > std::numeric_limits<std::uint32_t>::max() - text_.size())
      throw std::length_error("job ids: more than 4 GiB of them in all");
    text_.append(name);
    ends_.push_back(static_cast<std::uint32_t>(text_.size()));
  }
  void reserve(std::size_t jobs, std::size_t chars) {
    ends_.reserve(jobs);
    text_.reserve(chars);
  }

private:
  std::string text_;
  std::vector<std::uint32_t> ends_; // ends_[j]: one past job j's last character in text_
};

// One stretch of a job whose speed changes at known points of its progress (a batch size that
// changes during training, docs/gavel.md#batch-sizes-that-change): from `from` of the job's
// iterations on, it runs as `model`, each of whose iterations does `work` of the job's
// iterations (the job's iterations are at its trace batch size).
struct Phase {
  double from = 0;
  ModelId model = 0;
  double work = 1;
};

// Everything the runtime needs about the jobs of a run.
struct Workload {
  std::vector<JobSpec> jobs; // sorted by submit time; JobId = index
  // Each distinct RequestDetails of the jobs once, by JobRequest::details; [0] the defaults.
  std::vector<RequestDetails> details{RequestDetails{}};
  [[nodiscard]] const RequestDetails& details_of(const JobRequest& r) const {
    return details[r.details];
  }
  // Whether some job has a checkpoint interval of its own (RequestDetails::checkpoint_interval_s).
  [[nodiscard]] bool any_checkpoint_interval() const {
    for (const RequestDetails& d : details) {
      if (d.checkpoint_interval_s > 0) return true;
    }
    return false;
  }
  // By the same index: the job's GPU utilization when running alone, 0..1 (resolved from the
  // trace, its model or runtime.default_gpu_util). Hidden truth: the runtime's rate models read
  // it; View does not expose it.
  std::vector<double> solo_util{0.0};
  [[nodiscard]] double solo_util_of(const JobRequest& r) const { return solo_util[r.details]; }
  JobNames job_names; // by JobId, as jobs
  std::vector<std::string> users;
  std::vector<std::string> queues;
  std::vector<std::string> models;           // models[0] = "" (no model)
  std::vector<ModelFeatures> model_features; // by ModelId, [0] empty; empty when hand-made
  PerfTable perf;
  // Loss curves of the jobs that converge (JobSpec::curve); hidden truth, like iterations.
  std::vector<LossCurve> curves;
  // Sets of device types that jobs accept (`device_type: V100|K80|XeonPhi`, docs/traces.md),
  // each sorted and of at least two types; JobRequest::type_set indexes it.
  std::vector<std::vector<DeviceTypeId>> type_sets;
  DeviceTypeId reference_device = 0;
  // The phases of jobs whose speed changes with their progress: phase_plan[j] is 1 + the index
  // into phases of job j's, in order of `from` (the first from 0), or 0 for a job of one speed;
  // empty when no job has phases. Hidden truth, like iterations: the runtime's rate reads it.
  std::vector<std::uint32_t> phase_plan;
  std::vector<std::vector<Phase>> phases;
  // Job j's phase at `done` of its iterations; null for a job of one speed. A point within
  // 1e-9 of its iterations (relative) below a phase's start counts as in that phase, so that a
  // finish projected to the microsecond reaches the next phase.
  [[nodiscard]] const Phase* phase_at(std::size_t j, double done) const {
    if (j >= phase_plan.size() || phase_plan[j] == 0) return nullptr;
    const std::vector<Phase>& plan = phases[phase_plan[j] - 1];
    const Phase* at = plan.data();
    for (const Phase& p : plan) {
      if (p.from > done + 1e-9 * std::max(1.0, p.from)) break;
      at = &p;
    }
    return at;
  }
  // Where job j's phase after the one at `done` starts; its iterations when none is left.
  [[nodiscard]] double next_phase_from(std::size_t j, double done) const {
    const Phase* at = phase_at(j, done);
    if (at == nullptr) return jobs[j].iterations;
    const std::vector<Phase>& plan = phases[phase_plan[j] - 1];
    return at + 1 < plan.data() + plan.size() ? at[1].from : jobs[j].iterations;
  }
  std::size_t skipped_bad_jobs = 0;          // rows skipped with --skip-bad-jobs
  std::vector<std::string> resolution_skips; // first reasons of rows skipped after reading
};

} // namespace dlsim
