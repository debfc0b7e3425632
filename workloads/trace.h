// A trace as read from a file, before it is resolved against a cluster and the model zoo:
// the common shape every trace reader produces.
#pragma once

#include "sim/workload/loss_curve.h"
#include "sim/workload/workload.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

// Strings that repeat (users, queues, models, device types) are stored once. Ids are given in
// order of first appearance, so they are deterministic; the table is only for lookups.
class StringTable {
public:
  std::uint32_t intern(std::string_view s);
  [[nodiscard]] const std::string& at(std::uint32_t id) const { return names_[id]; }
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }

private:
  // Open addressing on a table of at most half full, looked up by string_view: a native trace
  // interns its user (and queue, model) on every row, and std::unordered_map's hash, prime
  // modulo and node would be about 5% of reading a million-job trace.
  [[nodiscard]] static std::uint64_t hash(std::string_view s) {
    std::uint64_t h = 14695981039346656037ULL; // FNV-1a: the strings are short
    for (const char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ULL;
    }
    return h;
  }
  void grow();
  std::vector<std::string> names_;
  std::vector<std::uint32_t> slots_; // 0 = empty, else id + 1
};

constexpr std::uint32_t kNoString = 0xffffffffU;

// Laid out widest first (152 bytes, 2 of them padding; every job of a trace has one while the
// trace is read: docs/performance.md#how-the-input-is-read). Its id is in
// Trace::names, so that the record owns no memory: build_workload gives each one's pages back
// as it goes.
struct TraceJob {
  double submit_s = 0;
  double duration_s = -1; // on the reference device, uncontended; -1 = not given
  double iterations = -1; // -1 = not given
  double cpus_per_worker = 0;
  double mem_gb_per_worker = 0;
  double gpu_util = -1;              // 0..1; -1 = from the model zoo
  double requested_s = 0;            // the user's runtime estimate; 0 = none
  double checkpoint_interval_s = -1; // the job's own; -1 = the experiment's
  // Guaranteed share of its device per worker (PAI plan_gpu 50 = 0.5, openb gpu_milli 500 =
  // 0.5, native gpu_share_min); < 1 only with 1 device per worker.
  double gpu_share_min = 1;
  double gpu_share_max = -1; // most it may be granted; -1 = the same as gpu_share_min
  double gpu_mem_gb = -1;    // device memory held per worker, GB; -1 = the model zoo's
  std::uint32_t name = 0;    // the job's id: Trace::names[name]
  std::uint32_t line = 0;    // line in the file, for errors at resolution
  std::uint32_t workers = 1;
  std::uint32_t devices_per_worker = 1;
  // duration_s was observed on this device type (into Trace::device_types) although the job may
  // run on any (Pollux's profiles, measured on T4s); kNoString = not set.
  std::uint32_t observed_type = kNoString;
  std::uint32_t model = kNoString; // into Trace::models
  std::uint32_t ps = 0;
  std::uint32_t user = 0; // into Trace::users ("" when the trace has none)
  std::uint32_t queue = 0;
  int priority = 0;
  std::uint32_t min_workers = 0; // 0 = same as workers
  std::uint32_t max_workers = 0;
  std::uint32_t device_type = kNoString;
  std::uint32_t curve = 0;   // 1 + index into Trace::curves; 0 = no loss curve
  std::uint16_t ps_cpus = 0; // CPU cores per parameter server; 0 = not modelled
  // duration_s was observed on device_type (openb gpu_spec, PAI 2020 gpu_type), not on the
  // reference device: other types' times are derived from it (docs/traces.md).
  bool observed_on_device_type = false;
  std::uint8_t trace_status = 0; // 0 completed, 1 failed, 2 killed/cancelled (as the trace says)
  // How the job's batch size changes during training, as Shockwave's traces mark it: changed as
  // Shockwave's simulator does with trace.batch_sizes: shockwave (batch_size_plan.h), else kept.
  std::uint8_t batch_mode = 0; // 0 static, 1 gns, 2 accordion
  // The trace gives the work both ways (Shockwave: total steps and the run time they took on a
  // V100): the work is duration_s, and `iterations` is kept for a throughputs file, with which
  // the steps run instead (measured_throughputs.h).
  bool duration_is_work = false;
};
static_assert(sizeof(TraceJob) == 152, "TraceJob grew: see its layout note");

struct Trace {
  std::string file;
  std::vector<TraceJob> jobs;
  // The jobs' ids back to back, by TraceJob::name; in the order the reader added the jobs, so
  // that build_workload can take them whole as the workload's names when it keeps every job.
  JobNames names;
  [[nodiscard]] std::string_view name(const TraceJob& job) const { return names[job.name]; }
  // Appends `job` with id `name`.
  void add(TraceJob job, std::string_view name) {
    if (names.size() >= std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("trace: more than 4,294,967,295 jobs");
    job.name = static_cast<std::uint32_t>(names.size());
    names.push_back(name);
    jobs.push_back(job);
  }
  StringTable users;
  StringTable queues;
  StringTable models;
  StringTable device_types;
  std::vector<LossCurve> curves;         // the native loss_curve column's, by TraceJob::curve
  std::vector<std::string> warnings;     // printed once by the caller
  std::size_t skipped = 0;               // bad rows skipped with --skip-bad-jobs
  std::vector<std::string> skip_reasons; // the first few
  // Known to be in submit order: set by select_trace, whose pass over every submit time finds
  // it, so that build_workload need not read them all again to know. Whatever reorders the
  // jobs or changes a submit time afterwards must clear it.
  bool in_submit_order = false;
  // Jobs whose speed changes with their progress (Workload::phases; batch_size_plan.h): by
  // TraceJob::name, 1 + the index into phase_plans, 0 for none; empty when no job has phases.
  struct Phase {
    double from = 0;         // of the job's iterations
    std::uint32_t model = 0; // into models
    double work = 1;         // of the job's iterations per iteration of the model
  };
  std::vector<std::uint32_t> phase_plan_of;
  std::vector<std::vector<Phase>> phase_plans;
  // The index in warnings of the gavel reader's note that jobs changing their batch size keep
  // it (dropped when trace.batch_sizes changes them); -1 for none.
  std::int64_t batch_size_note = -1;

  Trace() {
    users.intern("");
    queues.intern("");
  }
};

struct ReadOptions {
  bool skip_bad_jobs = false;
  // Format-specific keys of the experiment's `trace:` section (docs/traces.md).
  std::string swf_devices = "gpu";   // trace.swf_devices: an SWF processor is a "gpu" or "cpu"
  double swf_procs_per_device = 1;   // trace.swf_procs_per_device
  double openb_duration_s = 0;       // trace.openb_duration_s: run time of untimed openb pods
                                     // (0 = the documented default)
  bool openb_replay_pending = false; // trace.openb_replay_pending: keep pods never scheduled
  // The directory of Pollux's per-application profiles (format pollux); the CLI sets the bundled
  // traces/pollux-profiles.
  std::string pollux_profiles = "";
};

// Records a bad row: throws unless skipping, in which case it is counted and the first few
// reasons are kept.
void reject_row(Trace& trace, const ReadOptions& options, const std::string& message);

} // namespace dlsim
