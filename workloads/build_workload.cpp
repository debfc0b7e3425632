#include "workloads/build_workload.h"

#include "sim/cluster/fit.h"
#include "sim/engine/error.h"
#include "sim/engine/rng.h"
#include "workloads/device_type_set.h"
#include "workloads/release_pages.h"
#include "workloads/trace_reshape.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <type_traits>
#include <unordered_map>

namespace dlsim {

PerfTable build_perf_table(const ModelZoo& zoo, const std::vector<DeviceType>& types,
                           DeviceTypeId reference) {
  PerfTable perf;
  perf.type_count = types.size();
  perf.iter_time_s.resize((zoo.models.size() + 1) * types.size());
  // Model 0 (no model): one iteration is one second on the reference device; other devices
  // scale by the catalog's relative throughput.
  for (std::size_t t = 0; t < types.size(); ++t) {
    perf.iter_time_s[t] = types[reference].rel_throughput / types[t].rel_throughput;
  }
  auto zoo_ref = find_device_type(types, zoo.reference_device);
  for (std::size_t m = 0; m < zoo.models.size(); ++m) {
    const ModelInfo& info = zoo.models[m];
    double anchor = info.iteration_time_s.at(zoo.reference_device);
    double anchor_rel = zoo_ref ? types[*zoo_ref].rel_throughput : 1.0;
    for (std::size_t t = 0; t < types.size(); ++t) {
      auto it = info.iteration_time_s.find(types[t].name);
      double v = it != info.iteration_time_s.end() ? it->second
                                                   : anchor * anchor_rel / types[t].rel_throughput;
      // A model that cannot train on a type has no time there: PerfTable::supports is false.
      if (info.unsupported.count(types[t].name)) v = std::numeric_limits<double>::infinity();
      perf.iter_time_s[(m + 1) * types.size() + t] = v;
    }
  }
  // What each model moves per iteration, for the network model (docs/network.md): FP32 gradients
  // of params_m million parameters, and one per-device batch of input.
  perf.traffic.resize(zoo.models.size() + 1);
  for (std::size_t m = 0; m < zoo.models.size(); ++m) {
    const ModelInfo& info = zoo.models[m];
    perf.traffic[m + 1] = PerfTable::Traffic{info.params_m * 1e6 * 4, info.comm_overlap,
                                             info.input_mb_per_sample * 1e6 * info.batch_size};
  }
  return perf;
}

namespace {

// Workers a node of group `g` holds by its CPU cores and memory, at most `by_devices`.
std::uint64_t workers_per_node(const NodeGroup& g, std::uint64_t by_devices,
                               const RequestDetails& rd) {
  return workers_on_node(g, by_devices, rd.cpus_per_worker, rd.mem_gb_per_worker);
}

// How many workers of job `r` the whole cluster could hold at once on type t, if empty.
std::uint64_t worker_capacity(const Cluster& c, DeviceTypeId t, const JobRequest& r,
                              const RequestDetails& rd) {
  return c.workers_when_empty(t, r.devices_per_worker, rd.cpus_per_worker, rd.mem_gb_per_worker);
}

// Why no worker of job `r` fits on any node of the candidate types: the first of devices, cores
// and memory that no node has enough of, with the largest node's figure; "" when one worker fits
// somewhere (the gang as a whole is then too large).
std::string missing_resource(const Cluster& c, std::span<const DeviceTypeId> candidates,
                             const JobRequest& r, const RequestDetails& rd) {
  std::uint32_t most_devices = 0;
  double most_cores = 0, most_memory = 0; // of the nodes with enough devices
  for (const auto& g : c.groups) {
    std::uint32_t devs = 0;
    for (auto [type, n] : g.devices) {
      if (std::find(candidates.begin(), candidates.end(), type) != candidates.end()) devs += n;
    }
    most_devices = std::max(most_devices, devs);
    if (devs < r.devices_per_worker) continue;
    most_cores = std::max(most_cores, g.cpu_cores);
    most_memory = std::max(most_memory, g.memory_gb);
  }
  std::string type = candidates.size() == 1 ? c.types[candidates[0]].name + " " : std::string();
  if (most_devices < r.devices_per_worker) {
    return fmt::format("no node has {} {}GPUs (the most on one node: {})", r.devices_per_worker,
                       type, most_devices);
  }
  if (rd.cpus_per_worker > 0 && !fits_in(rd.cpus_per_worker, most_cores)) {
    return fmt::format("no node with {} {}GPUs has {} CPU cores (the most: {})",
                       r.devices_per_worker, type, rd.cpus_per_worker, most_cores);
  }
  if (rd.mem_gb_per_worker > 0 && !fits_in(rd.mem_gb_per_worker, most_memory)) {
    return fmt::format("no node with {} {}GPUs has {} GB of memory (the most: {} GB)",
                       r.devices_per_worker, type, rd.mem_gb_per_worker, most_memory);
  }
  return "";
}

// Why the workers of host task `r` (0 devices per worker) can never hold their cores and memory
// at once, naming the largest node's figures; "" when they can.
std::string host_task_misfit(const Cluster& c, const JobRequest& r, const RequestDetails& rd) {
  std::uint64_t total = 0;
  double most_cores = 0, most_memory = 0;
  for (const auto& g : c.groups) {
    most_cores = std::max(most_cores, g.cpu_cores);
    most_memory = std::max(most_memory, g.memory_gb);
    total += workers_per_node(g, r.workers, rd) * g.count;
  }
  if (total >= r.workers) return "";
  if (!fits_in(rd.cpus_per_worker, most_cores)) {
    return fmt::format("a job of 0 devices per worker needs {} CPU cores on one node; the largest "
                       "node has {} cores ({} GB)",
                       rd.cpus_per_worker, most_cores, most_memory);
  }
  if (!fits_in(rd.mem_gb_per_worker, most_memory)) {
    return fmt::format("a job of 0 devices per worker needs {} GB of memory on one node; the "
                       "largest node has {} GB ({} cores)",
                       rd.mem_gb_per_worker, most_memory, most_cores);
  }
  return fmt::format("{} workers of {} CPU cores and {} GB each (0 devices) cannot fit: the "
                     "cluster holds at most {} at once",
                     r.workers, rd.cpus_per_worker, rd.mem_gb_per_worker, total);
}

// Why job r's parameter servers, which hold ps_cpus cores each on the nodes of its workers
// (shard s with worker s mod w), can never be placed with its workers: the busiest worker's node
// would need more cores than the largest node has, or the job more than the cluster; "" when
// neither. Not sufficient for a fit (devices and cores must be on the same nodes): a job that
// passes and still never fits stays pending and is counted unfinished, like any other.
std::string ps_misfit(const Cluster& c, const JobRequest& r, const RequestDetails& rd) {
  double most = 0, total = 0;
  for (const auto& g : c.groups) {
    most = std::max(most, g.cpu_cores);
    total += g.cpu_cores * g.count;
  }
  const std::uint32_t w = std::max<std::uint32_t>(1, r.min_workers);
  const std::uint32_t per_worker = (r.ps + w - 1) / w;
  const double one = rd.cpus_per_worker + per_worker * static_cast<double>(r.ps_cpus);
  if (!fits_in(one, most)) {
    return fmt::format("{} parameter server(s) of {} CPU cores on {} worker(s): a worker's node "
                       "holds {} of them, {} cores with the worker's {}; the largest node has {} "
                       "({} node(s) in the cluster)",
                       r.ps, r.ps_cpus, w, per_worker, one, rd.cpus_per_worker, most,
                       c.nodes.size());
  }
  const double all = w * rd.cpus_per_worker + r.ps * static_cast<double>(r.ps_cpus);
  if (!fits_in(all, total)) {
    return fmt::format("{} workers of {} CPU cores and {} parameter servers of {} need {} cores; "
                       "the cluster has {}",
                       w, rd.cpus_per_worker, r.ps, r.ps_cpus, all, total);
  }
  return "";
}

// Each distinct (RequestDetails, utilization alone) once, in order of first use
// (Workload::details and Workload::solo_util, [0] the defaults), compared bit for bit so that
// every job reads back exactly the numbers it was given. Most traces give many jobs in a row the
// same details: those skip the hash.
class DetailsInterner {
public:
  DetailsInterner(std::vector<RequestDetails>& table, std::vector<double>& util)
      : table_(table), util_(util) {
    for (std::size_t i = 0; i < table_.size(); ++i)
      index_.emplace(key_of(table_[i], util_[i]), static_cast<std::uint32_t>(i));
  }
  std::uint32_t intern(const RequestDetails& d, double solo_util) {
    const Key key = key_of(d, solo_util);
    if (has_last_ && key == last_key_) return last_;
    auto [it, added] = index_.try_emplace(key, static_cast<std::uint32_t>(table_.size()));
    if (added) {
      table_.push_back(d);
      util_.push_back(solo_util);
    }
    has_last_ = true;
    last_key_ = key;
    last_ = it->second;
    return last_;
  }

private:
  using Key = std::array<std::uint64_t, 8>;
  static Key key_of(const RequestDetails& d, double solo_util) {
    return {std::bit_cast<std::uint64_t>(d.cpus_per_worker),
            std::bit_cast<std::uint64_t>(d.mem_gb_per_worker),
            std::bit_cast<std::uint64_t>(solo_util),
            std::bit_cast<std::uint64_t>(d.gpu_mem_gb),
            std::bit_cast<std::uint64_t>(d.requested_time_s),
            std::bit_cast<std::uint64_t>(d.gpu_share_min),
            std::bit_cast<std::uint64_t>(d.gpu_share_max),
            std::bit_cast<std::uint64_t>(d.checkpoint_interval_s)};
  }
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = 14695981039346656037ULL; // FNV-1a over the eight words
      for (std::uint64_t v : k) {
        h ^= v;
        h *= 1099511628211ULL;
      }
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  std::vector<RequestDetails>& table_;
  std::vector<double>& util_;
  std::unordered_map<Key, std::uint32_t, KeyHash> index_;
  bool has_last_ = false;
  Key last_key_{};
  std::uint32_t last_ = 0;
};

// On leaving build_workload's loop over jobs at job k (an InputError there), adds the oversized
// jobs after k, which the loop did not reach, to its count: the hint of prepare's "cannot fit"
// error names the whole trace's. When the loop ends normally, k is past the last job: nothing.
class CountRestOversized {
public:
  CountRestOversized(const std::optional<OversizedWorkers>& oversized,
                     const std::vector<TraceJob>& jobs, const std::vector<std::size_t>& order,
                     const std::size_t& k, std::size_t* count)
      : oversized_(oversized), jobs_(jobs), order_(order), k_(k), count_(count) {}
  CountRestOversized(const CountRestOversized&) = delete;
  CountRestOversized(CountRestOversized&&) = delete;
  CountRestOversized& operator=(const CountRestOversized&) = delete;
  CountRestOversized& operator=(CountRestOversized&&) = delete;
  ~CountRestOversized() {
    if (!oversized_) return;
    for (std::size_t rest = k_ + 1; rest < jobs_.size(); ++rest)
      *count_ += (*oversized_)(jobs_[order_.empty() ? rest : order_[rest]]) ? 1 : 0;
  }

private:
  const std::optional<OversizedWorkers>& oversized_;
  const std::vector<TraceJob>& jobs_;
  const std::vector<std::size_t>& order_; // empty: in file order
  const std::size_t& k_;
  std::size_t* count_;
};

// Which device types the jobs of a workload can use (unusable_device_types), one job at a time:
// build_workload notes each job it keeps, so that nobody reads them all again for it.
class DeviceTypeUse {
public:
  explicit DeviceTypeUse(const Cluster& cluster) : used_(cluster.types.size(), 0) {
    const std::size_t types = cluster.types.size();
    for (DeviceTypeId t = 0; t < types; ++t) {
      if (cluster.types[t].kind == DeviceKind::kGpu) gpu_types_.push_back(t);
    }
    cluster_ = &cluster;
  }
  void note(const Workload& workload, const JobRequest& r) {
    if (is_host_task(r)) return; // uses no device type
    const RequestDetails& rd = workload.details_of(r);
    const Combination combination{r.device_type, r.type_set, r.model, rd.gpu_mem_gb};
    // Most jobs repeat the previous job's combination: those skip the set's search.
    if (last_ == combination) return;
    last_ = combination;
    if (!seen_.insert(combination).second) return;
    const auto own = static_cast<DeviceTypeId>(r.device_type);
    std::span<const DeviceTypeId> accepted =
        r.device_type >= 0          ? std::span<const DeviceTypeId>(&own, 1)
        : r.device_type == kTypeSet ? std::span<const DeviceTypeId>(workload.type_sets[r.type_set])
                                    : std::span<const DeviceTypeId>(gpu_types_);
    for (DeviceTypeId t : accepted) {
      const double cap = cluster_->types[t].memory_gb;
      if (cap > 0 && !fits_in(rd.gpu_mem_gb, cap)) continue;
      if (workload.perf.supports(r.model, t)) used_[t] = 1;
    }
  }
  // The cluster's types with devices that no job noted can use.
  [[nodiscard]] std::vector<DeviceTypeId> unused(const Cluster& cluster) const {
    std::vector<DeviceTypeId> out;
    const std::size_t types = cluster.types.size();
    for (DeviceTypeId t = 0; t < types; ++t) {
      if (!used_[t] && cluster.count_of_type(t) > 0) out.push_back(t);
    }
    return out;
  }

private:
  // Distinct (accepted types, model, memory) combinations: a handful, however long the trace.
  using Combination = std::tuple<std::int32_t, std::uint16_t, ModelId, double>;
  const Cluster* cluster_ = nullptr;
  std::vector<DeviceTypeId> gpu_types_;
  std::set<Combination> seen_;
  std::optional<Combination> last_;
  std::vector<char> used_;
};

// The reference device's id: the device type trace durations were measured on.
DeviceTypeId reference_device_of(const Cluster& cluster, const WorkloadOptions& options) {
  auto ref = find_device_type(cluster.types, options.reference_device);
  if (!ref)
    throw InputError(
        fmt::format("trace.reference_device: unknown device type '{}'", options.reference_device));
  return *ref;
}

// The workload's models: names, features and iteration times per device type; id 0 is no model.
void add_models(Workload& w, const ModelZoo& zoo, const Cluster& cluster, DeviceTypeId ref) {
  w.reference_device = ref;
  w.perf = build_perf_table(zoo, cluster.types, ref);
  w.models.push_back("");
  w.model_features.emplace_back();
  for (const auto& m : zoo.models) {
    w.models.push_back(m.name);
    w.model_features.push_back(ModelFeatures{m.family, m.params_m, m.gflops_per_sample,
                                             m.batch_size, m.gpu_mem_gb, m.has_graph, m.conv_layers,
                                             m.linear_layers, m.recurrent_layers, m.activation_mb});
  }
}

// The workload's model id of each trace model name (by the trace's name id), -1 for a name the
// zoo does not know.
std::vector<std::int64_t> zoo_model_ids(const Trace& trace, const ModelZoo& zoo) {
  std::vector<std::int64_t> model_of(trace.models.names().size(), -1);
  for (std::size_t i = 0; i < model_of.size(); ++i) {
    const std::string& name = trace.models.at(static_cast<std::uint32_t>(i));
    if (auto m = zoo.find(name)) {
      model_of[i] = static_cast<std::int64_t>(*m) + 1;
      continue;
    }
    // A name under which a measurement set knows a zoo model (`measured_as`: a Gavel trace's
    // gavel_resnet50_bs32 is the zoo's resnet50, whose times are that measurement's).
    for (std::size_t z = 0; z < zoo.models.size(); ++z) {
      if (!zoo.models[z].measured_as.empty() && zoo.models[z].measured_as == name) {
        model_of[i] = static_cast<std::int64_t>(z) + 1;
        break;
      }
    }
  }
  return model_of;
}

// What a trace's device_type text asks for: one type, any GPU, or an interned set of types; or
// why it cannot be read.
struct TypeChoice {
  std::int32_t device_type = kAnyGpu;
  std::uint16_t type_set = 0;
  std::string error;
};

// Each distinct device_type text of the trace once (by the trace's name id), its sets of types
// interned into `type_sets` (Workload::type_sets).
std::vector<TypeChoice> device_type_choices(const Trace& trace, const Cluster& cluster,
                                            std::vector<std::vector<DeviceTypeId>>& type_sets) {
  std::vector<TypeChoice> type_of(trace.device_types.names().size());
  for (std::size_t i = 0; i < type_of.size(); ++i) {
    DeviceTypeChoice c =
        parse_device_type_choice(trace.device_types.at(static_cast<std::uint32_t>(i)), cluster);
    TypeChoice& out = type_of[i];
    out.error = std::move(c.error);
    if (!out.error.empty() || c.any_gpu) continue;
    if (c.types.size() == 1) {
      out.device_type = c.types[0];
      continue;
    }
    auto it = std::find(type_sets.begin(), type_sets.end(), c.types);
    if (it == type_sets.end()) {
      if (type_sets.size() > std::numeric_limits<std::uint16_t>::max())
        throw InputError(trace.file + ": more than 65,536 distinct device_type sets");
      it = type_sets.insert(type_sets.end(), std::move(c.types));
    }
    out.device_type = kTypeSet;
    out.type_set = static_cast<std::uint16_t>(it - type_sets.begin());
  }
  return type_of;
}

// The GPU types of which the cluster has devices: what a job that accepts any GPU may use.
std::vector<DeviceTypeId> gpu_types_present(const Cluster& cluster) {
  std::vector<DeviceTypeId> gpu_types;
  for (std::size_t i = 0; i < cluster.types.size(); ++i) {
    const auto t = static_cast<DeviceTypeId>(i); // exact: cluster_yaml.cpp bounds the types
    if (cluster.types[t].kind == DeviceKind::kGpu && cluster.count_of_type(t) > 0)
      gpu_types.push_back(t);
  }
  return gpu_types;
}

// The order in which the trace's jobs become the workload's: a stable sort by submit time, so that
// jobs submitted together keep the trace's order. Most traces are already in submit order:
// checking that first skips a sort of a million indices, and the identity order (empty: 8 bytes a
// job less while the trace and the workload are both held, the run's peak at 3.4 million jobs) is
// what the stable sort would return anyway.
std::vector<std::size_t> submit_order(const Trace& trace) {
  std::vector<std::size_t> order;
  const auto later = [](const TraceJob& a, const TraceJob& b) { return b.submit_s < a.submit_s; };
  if (!trace.in_submit_order &&
      std::adjacent_find(trace.jobs.begin(), trace.jobs.end(), later) != trace.jobs.end()) {
    order.resize(trace.jobs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return trace.jobs[a].submit_s < trace.jobs[b].submit_s;
    });
  }
  return order;
}

// The steps each job goes through, from copy_request to keep_job, are forced inline into
// add_jobs' loop, and the rejection path kept out of it: as calls of their own they cost
// build_workload 2% more instructions than when it was one function; inlined, 8% fewer
// (callgrind, dlsim validate of 200,000 generated jobs).
//
// What build_workload's loop over jobs reads and fills: the trace with its names resolved once,
// the workload being built, and the tables that spare the loop work it would repeat per job.
struct JobBuild {
  JobBuild(Trace& trace_in, const ModelZoo& zoo_in, const Cluster& cluster_in,
           const WorkloadOptions& options_in, Workload& w_in, DeviceTypeId ref)
      : trace(trace_in), zoo(zoo_in), cluster(cluster_in), options(options_in), w(w_in),
        reference(ref), model_of(zoo_model_ids(trace_in, zoo_in)),
        type_of(device_type_choices(trace_in, cluster_in, w_in.type_sets)),
        gpu_types(gpu_types_present(cluster_in)),
        assign(Rng::stream(options_in.seed, "workload.assign-models")),
        drawable(drawn_models(zoo_in)), read_options{options_in.skip_bad_jobs},
        details(w_in.details, w_in.solo_util) {}

  Trace& trace;
  const ModelZoo& zoo;
  const Cluster& cluster;
  const WorkloadOptions& options;
  Workload& w;
  DeviceTypeId reference;
  std::vector<std::int64_t> model_of; // trace model name id -> workload model id, -1 unknown
  std::vector<TypeChoice> type_of;    // trace device_type name id -> what it asks for
  std::vector<DeviceTypeId> gpu_types;
  Rng assign;                        // the stream of workload.assign_models's draws
  std::vector<std::size_t> drawable; // the zoo's models drawn for model-less jobs
  ReadOptions read_options;
  DetailsInterner details;
  // The workload's names are the trace's, taken whole at the end, while job k keeps trace job
  // k's id k (most traces: in submit order, nothing skipped); from the first job that does not,
  // they are copied one by one.
  bool names_whole = false;
  std::map<std::uint32_t, std::size_t> unknown_model_jobs; // trace model id -> jobs
  std::optional<DeviceTypeUse> type_use;                   // when options.unusable_types is set
  // worker_capacity walks every node group, and a trace repeats a few request shapes many times
  // (openb's 10,836 inflated pods have 126 GPU shapes): each shape's capacity per type is counted
  // once.
  std::map<std::tuple<DeviceTypeId, std::uint32_t, double, double>, std::uint64_t> capacity_of;
};

// Job r's worker_capacity on type t, counted once per request shape.
[[gnu::always_inline]] inline std::uint64_t
capacity(JobBuild& b, DeviceTypeId t, const JobRequest& r, const RequestDetails& rd) {
  const auto key =
      std::make_tuple(t, r.devices_per_worker, rd.cpus_per_worker, rd.mem_gb_per_worker);
  auto it = b.capacity_of.find(key);
  if (it == b.capacity_of.end())
    it = b.capacity_of.emplace(key, worker_capacity(b.cluster, t, r, rd)).first;
  return it->second;
}

// The start of an error about trace job tj's `column`: "file:line: column: job 'name': ".
std::string where(const Trace& trace, const TraceJob& tj, const char* column) {
  return fmt::format("{}:{}: {}: job '{}': ", trace.file, tj.line, column, trace.name(tj));
}

// Rejects trace job tj's row (reject_row: an error, or a counted skip with --skip-bad-jobs) for
// what is wrong in its `column`. Always false: a check returns it.
[[gnu::cold, gnu::noinline]] bool reject(JobBuild& b, const TraceJob& tj, const char* column,
                                         const std::string& what) {
  reject_row(b.trace, b.read_options, where(b.trace, tj, column) + what);
  return false;
}

// The job's figures as the trace gives them, the elastic bounds defaulting to its workers.
[[gnu::always_inline]] inline void copy_request(const Trace& trace, const TraceJob& tj,
                                                JobSpec& spec, RequestDetails& rd) {
  JobRequest& r = spec.request;
  // The error's context is formatted only when the check fails: a string per job was a
  // tenth of reading a million-job trace.
  if (!(std::fabs(tj.submit_s) <= kMaxSeconds))
    check_seconds(tj.submit_s,
                  fmt::format("{}:{}: submit: job '{}'", trace.file, tj.line, trace.name(tj)));
  r.submit = from_seconds(tj.submit_s);
  r.workers = tj.workers;
  r.devices_per_worker = tj.devices_per_worker;
  r.ps = tj.ps;
  rd.cpus_per_worker = tj.cpus_per_worker;
  r.ps_cpus = tj.ps_cpus;
  rd.mem_gb_per_worker = tj.mem_gb_per_worker;
  r.min_workers = tj.min_workers == 0 ? tj.workers : tj.min_workers;
  r.max_workers = tj.max_workers == 0 ? tj.workers : tj.max_workers;
  r.priority = tj.priority;
  r.user = tj.user;
  r.queue = tj.queue;
  rd.requested_time_s = tj.requested_s;
  rd.checkpoint_interval_s = tj.checkpoint_interval_s;
  rd.gpu_share_min = tj.gpu_share_min;
  rd.gpu_share_max = tj.gpu_share_max < 0 ? tj.gpu_share_min : tj.gpu_share_max;
  spec.trace_status = static_cast<TraceStatus>(tj.trace_status);
}

// The job's model: the zoo's model of the trace's name; none for a name the zoo lacks under
// --unknown-models=duration (counted for the warning); or one drawn for a model-less job under
// workload.assign_models. False when the row is rejected.
[[gnu::always_inline]] inline bool resolve_model(JobBuild& b, const TraceJob& tj, JobRequest& r) {
  if (tj.model != kNoString && b.model_of[tj.model] < 0 && b.options.unknown_models_on_duration) {
    if (!(tj.duration_s >= 0)) {
      // Only a model's iteration time turns iterations into a run time.
      return reject(b, tj, "model",
                    fmt::format("unknown model '{}', and the trace gives the job's length in "
                                "iterations, not as a run time: --unknown-models=duration cannot "
                                "run it",
                                b.trace.models.at(tj.model)));
    }
    ++b.unknown_model_jobs[tj.model];
  } else if (tj.model != kNoString) {
    if (b.model_of[tj.model] < 0) {
      const std::string& name = b.trace.models.at(tj.model);
      return reject(b, tj, "model",
                    fmt::format("unknown model '{}' (see dlsim list models; "
                                "--unknown-models=duration runs such jobs on their recorded run "
                                "times){}",
                                name,
                                name.starts_with("gavel_")
                                    ? ": Gavel's job types are the models of "
                                      "configs/models/gavel.yaml (--set "
                                      "models=configs/models/gavel.yaml)"
                                    : ""));
    }
    r.model = static_cast<ModelId>(b.model_of[tj.model]);
  } else if (b.options.assign_models && !b.drawable.empty()) {
    // Documented rule (docs/models.md): uniform over the zoo's drawn models, one draw per
    // model-less job in submit order from the stream "workload.assign-models". A host task
    // draws too (so the others' draws do not depend on it) but keeps no model: it trains none.
    const auto drawn = static_cast<ModelId>(1 + b.drawable[b.assign.below(b.drawable.size())]);
    if (!is_host_task(r)) r.model = drawn;
  }
  return true;
}

// The device types the job accepts, from its device_type text. False when the row is rejected.
[[gnu::always_inline]] inline bool resolve_device_type(JobBuild& b, const TraceJob& tj,
                                                       JobRequest& r) {
  if (tj.device_type == kNoString) return true;
  const TypeChoice& choice = b.type_of[tj.device_type];
  if (!choice.error.empty()) return reject(b, tj, "device_type", choice.error);
  r.device_type = choice.device_type;
  r.type_set = choice.type_set;
  return true;
}

// The job's work in iterations: given, or its run time divided by the model's iteration time on
// the device the run time was observed on. False when the row is rejected.
[[gnu::always_inline]] inline bool set_work(JobBuild& b, const TraceJob& tj, JobSpec& spec) {
  const JobRequest& r = spec.request;
  // A run time observed on a GPU type is the run time on that type.
  DeviceTypeId observed_on = tj.observed_on_device_type && r.device_type >= 0
                                 ? static_cast<DeviceTypeId>(r.device_type)
                                 : b.reference;
  if (tj.observed_type != kNoString) {
    const std::string& name = b.trace.device_types.at(tj.observed_type);
    auto type = find_device_type(b.cluster.types, name);
    if (!type) {
      return reject(b, tj, "device_type",
                    fmt::format("unknown device type '{}' its run time was measured on", name));
    }
    observed_on = *type;
  }
  // Iterations given, and the work (not only kept beside a recorded run time).
  const bool by_iterations = tj.iterations > 0 && !tj.duration_is_work;
  if (!by_iterations && !b.w.perf.supports(r.model, observed_on)) {
    return reject(b, tj, "model",
                  fmt::format("model '{}' cannot train on {}, the device its duration_s is "
                              "measured on",
                              b.w.models[r.model], b.cluster.types[observed_on].name));
  }
  if (!by_iterations && !(std::fabs(tj.duration_s) <= kMaxSeconds))
    check_seconds(tj.duration_s, fmt::format("{}:{}: duration: job '{}'", b.trace.file, tj.line,
                                             b.trace.name(tj)));
  spec.iterations =
      by_iterations ? tj.iterations : tj.duration_s / b.w.perf.iter_time(r.model, observed_on);
  return true;
}

// Whether host task r (no device) can run here: some nodes must hold all its workers' cores and
// memory at once, and it is neither typed, elastic nor served by parameter servers. False when
// the row is rejected.
bool host_task_fits(JobBuild& b, const TraceJob& tj, const JobRequest& r,
                    const RequestDetails& rd) {
  if (tj.device_type != kNoString) {
    return reject(b, tj, "device_type",
                  fmt::format("a job of 0 devices per worker holds none: it cannot require '{}'",
                              b.trace.device_types.at(tj.device_type)));
  }
  if (r.min_workers != r.workers || r.max_workers != r.workers)
    return reject(b, tj, "workers", "a job of 0 devices per worker is not elastic");
  if (r.ps_cpus > 0) {
    return reject(b, tj, "ps_cpus",
                  "a job of 0 devices per worker has no parameter servers that train with it: "
                  "give its PS as their own rows");
  }
  if (std::string why = host_task_misfit(b.cluster, r, rd); !why.empty())
    return reject(b, tj, "workers", why);
  return true;
}

// Whether some of the job's candidate device types has devices (for a set of types) and can
// train its model. False when the row is rejected.
[[gnu::always_inline]] inline bool some_type_usable(JobBuild& b, const TraceJob& tj,
                                                    const JobRequest& r,
                                                    std::span<const DeviceTypeId> candidates,
                                                    const ModelInfo* info) {
  if (r.device_type == kTypeSet &&
      std::none_of(candidates.begin(), candidates.end(),
                   [&](DeviceTypeId t) { return b.cluster.count_of_type(t) > 0; })) {
    return reject(b, tj, "device_type",
                  fmt::format("no node of the cluster has any of the types '{}'",
                              b.trace.device_types.at(tj.device_type)));
  }
  // The model cannot train on any of the job's types (the zoo's `unsupported`).
  if (!candidates.empty() &&
      std::none_of(candidates.begin(), candidates.end(),
                   [&](DeviceTypeId t) { return b.w.perf.supports(r.model, t); })) {
    const std::string& type = b.cluster.types[candidates[0]].name;
    return reject(b, tj, "device_type",
                  fmt::format("model '{}' cannot train on {}: {}", b.w.models[r.model], type,
                              info->unsupported.at(type)));
  }
  return true;
}

// The most workers of job r one candidate type holds at once on the empty cluster, counting only
// types that can train its model and hold its model in a device's memory; `most_memory` is the
// largest device memory of the types that can train it.
[[gnu::always_inline]] inline std::uint64_t most_workers(JobBuild& b, const JobRequest& r,
                                                         const RequestDetails& rd,
                                                         std::span<const DeviceTypeId> candidates,
                                                         double& most_memory) {
  std::uint64_t best = 0;
  for (DeviceTypeId t : candidates) {
    if (!b.w.perf.supports(r.model, t)) continue;
    // A replica keeps the whole model on each of its devices (docs/runtime.md).
    const double cap = b.cluster.types[t].memory_gb;
    most_memory = std::max(most_memory, cap);
    if (cap > 0 && !fits_in(rd.gpu_mem_gb, cap)) continue;
    best = std::max(best, capacity(b, t, r, rd));
  }
  return best;
}

// Whether the cluster holds job r's smallest gang at once, and its largest (an elastic job may
// never be grown past what the cluster holds), given `best`, the most workers one type holds.
// False when the row is rejected.
[[gnu::always_inline]] inline bool gang_fits(JobBuild& b, const TraceJob& tj, const JobRequest& r,
                                             const RequestDetails& rd,
                                             std::span<const DeviceTypeId> candidates,
                                             std::uint64_t best) {
  if (best < r.min_workers) {
    std::string what = candidates.empty()
                           ? std::string("the cluster has no GPUs (set device_type)")
                           : fmt::format("{} workers of {} device(s) each cannot fit: the "
                                         "cluster holds at most {} such workers at once",
                                         r.min_workers, r.devices_per_worker, best);
    if (best == 0 && !candidates.empty()) {
      std::string why = missing_resource(b.cluster, candidates, r, rd);
      if (!why.empty()) what += ": " + why;
    }
    return reject(b, tj, "workers", what);
  }
  if (r.max_workers > best) {
    return reject(b, tj, "max_workers",
                  fmt::format("{} workers of {} device(s) each can never run at once: the "
                              "cluster holds at most {} such workers",
                              r.max_workers, r.devices_per_worker, best));
  }
  return true;
}

// Could device job r ever run here? Some compatible type must hold its smallest gang at once,
// with its model in each device's memory and its parameter servers' cores on its workers' nodes.
// False when the row is rejected.
[[gnu::always_inline]] inline bool device_job_fits(JobBuild& b, const TraceJob& tj,
                                                   const JobRequest& r, const RequestDetails& rd,
                                                   const ModelInfo* info) {
  const DeviceTypeId own_type = static_cast<DeviceTypeId>(r.device_type);
  std::span<const DeviceTypeId> candidates =
      r.device_type >= 0          ? std::span<const DeviceTypeId>(&own_type, 1)
      : r.device_type == kTypeSet ? std::span<const DeviceTypeId>(b.w.type_sets[r.type_set])
                                  : std::span<const DeviceTypeId>(b.gpu_types);
  if (!some_type_usable(b, tj, r, candidates, info)) return false;
  double most_memory = 0;
  const std::uint64_t best = most_workers(b, r, rd, candidates, most_memory);
  if (best == 0 && !candidates.empty() && !fits_in(rd.gpu_mem_gb, most_memory) && most_memory > 0) {
    if (tj.gpu_mem_gb >= 0) {
      return reject(b, tj, "gpu_mem_gb",
                    fmt::format("{} GB per device; the largest usable device here has {} GB",
                                rd.gpu_mem_gb, most_memory));
    }
    return reject(b, tj, "model",
                  fmt::format("model '{}' needs {} GB per device; the largest usable device here "
                              "has {} GB",
                              b.w.models[r.model], rd.gpu_mem_gb, most_memory));
  }
  // Parameter servers hold their cores on their workers' nodes, shard s with worker s mod w
  // (docs/scaling.md#parameter-servers-that-hold-cores): some node must hold one worker with
  // its ceil(ps / w) shards, and the cluster all of the job's cores at once.
  if (r.ps_cpus > 0) {
    if (std::string why = ps_misfit(b.cluster, r, rd); !why.empty())
      return reject(b, tj, "ps_cpus", why);
  }
  return gang_fits(b, tj, r, rd, candidates, best);
}

// Adds trace job tj's name to the workload's, which from the first job whose id is not its
// index become a copy (JobBuild::names_whole).
[[gnu::always_inline]] inline void keep_name(JobBuild& b, const TraceJob& tj) {
  Workload& w = b.w;
  if (b.names_whole && tj.name == w.jobs.size()) return;
  if (b.names_whole) {
    b.names_whole = false;
    std::size_t name_chars = 0; // of the trace's jobs (whose records may be released)
    for (std::size_t j = 0; j < b.trace.names.size(); ++j)
      name_chars += b.trace.names[j].size();
    w.job_names.reserve(b.trace.jobs.size(), name_chars);
    for (std::size_t j = 0; j < w.jobs.size(); ++j)
      w.job_names.push_back(b.trace.names[j]);
  }
  w.job_names.push_back(b.trace.name(tj));
}

// The phases of a job whose speed changes (Trace::phase_plans), for the job just added.
void add_phases(JobBuild& b, const TraceJob& tj) {
  const Trace& trace = b.trace;
  Workload& w = b.w;
  const std::uint32_t p = tj.name < trace.phase_plan_of.size() ? trace.phase_plan_of[tj.name] : 0;
  if (p == 0) return;
  std::vector<Phase> plan;
  for (const Trace::Phase& tp : trace.phase_plans[p - 1]) {
    const std::int64_t m = tp.model < b.model_of.size() ? b.model_of[tp.model] : -1;
    if (m < 0) {
      throw InputError(fmt::format("{}:{}: job '{}': a phase's model '{}' is not in the zoo",
                                   trace.file, tj.line, trace.name(tj), trace.models.at(tp.model)));
    }
    plan.push_back(Phase{tp.from, static_cast<ModelId>(m), tp.work});
  }
  w.phase_plan.resize(w.jobs.size(), 0);
  w.phases.push_back(std::move(plan));
  w.phase_plan.back() = static_cast<std::uint32_t>(w.phases.size());
}

// The job's loss curve, if the trace gives one.
[[gnu::always_inline]] inline void add_curve(JobBuild& b, const TraceJob& tj, JobSpec& spec) {
  if (tj.curve == 0) return;
  // The curve's noise is the job's own: keyed by its name, whatever the run's seed.
  LossCurve curve = b.trace.curves[tj.curve - 1];
  curve.noise_key = fnv1a64(b.trace.name(tj));
  b.w.curves.push_back(curve);
  spec.curve = static_cast<std::uint32_t>(b.w.curves.size());
}

// Adds the checked job to the workload: its curve, its details interned, its name.
[[gnu::always_inline]] inline void keep_job(JobBuild& b, const TraceJob& tj, JobSpec& spec,
                                            const RequestDetails& rd, double solo_util) {
  add_curve(b, tj, spec);
  spec.request.details = b.details.intern(rd, solo_util);
  keep_name(b, tj);
  b.w.jobs.push_back(spec);
}

// Turns trace job tj into the workload's next job, or rejects its row (reject_row).
[[gnu::always_inline]] inline void add_job(JobBuild& b, const TraceJob& tj) {
  JobSpec spec;
  JobRequest& r = spec.request;
  RequestDetails rd; // interned into w.details when the job is kept
  copy_request(b.trace, tj, spec, rd);
  if (!resolve_model(b, tj, r) || !resolve_device_type(b, tj, r)) return;
  const ModelInfo* info = r.model > 0 ? &b.zoo.models[r.model - 1] : nullptr;
  // No trace value and no model: the assumed default (counted when the job is kept).
  const bool util_assumed = !(tj.gpu_util > 0) && info == nullptr;
  const double solo_util =
      tj.gpu_util > 0 ? tj.gpu_util : (info ? info->gpu_util : b.options.default_gpu_util);
  rd.gpu_mem_gb = tj.gpu_mem_gb >= 0 ? tj.gpu_mem_gb : (info ? info->gpu_mem_gb : 0);
  if (!set_work(b, tj, spec)) return;
  if (is_host_task(r)) {
    if (!host_task_fits(b, tj, r, rd)) return;
    rd.gpu_mem_gb = 0;
    keep_job(b, tj, spec, rd, 0);
  } else {
    if (!device_job_fits(b, tj, r, rd, info)) return;
    keep_job(b, tj, spec, rd, solo_util);
    if (!b.trace.phase_plan_of.empty()) add_phases(b, tj);
    if (util_assumed && b.options.assumed_util_jobs) ++*b.options.assumed_util_jobs;
  }
  if (b.type_use) b.type_use->note(b.w, spec.request);
}

// In submit order, a trace job is not read again once its spec is made: its pages go back to
// the system every 16 MiB or so, so that the trace and the workload are never both whole (the
// run's peak at 3.4 million jobs: docs/performance.md).
static_assert(std::is_trivially_destructible_v<TraceJob>,
              "a released TraceJob is never destroyed: it must own nothing");
constexpr std::size_t kReleaseEvery = (std::size_t{16} << 20) / sizeof(TraceJob);

// Before job k in file order: releases the jobs behind it every kReleaseEvery jobs, and fetches
// job k + 16 ahead. Returns the index up to which jobs are released.
std::size_t release_behind_fetch_ahead(std::vector<TraceJob>& jobs, std::size_t k,
                                       std::size_t released) {
  if (k - released >= kReleaseEvery) {
    release_pages(jobs.data() + released, jobs.data() + k);
    released = k;
  }
  if (k + 16 < jobs.size()) {
    const auto* ahead = reinterpret_cast<const char*>(&jobs[k + 16]);
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 64);
    __builtin_prefetch(ahead + 128);
  }
  return released;
}

// Every trace job in `order` (empty: file order) through add_job, counting the jobs whose workers
// no node holds when options.oversized_workers is set.
void add_jobs(JobBuild& b, const std::vector<std::size_t>& order) {
  std::optional<OversizedWorkers> oversized;
  if (b.options.oversized_workers != nullptr) {
    *b.options.oversized_workers = 0;
    oversized.emplace(b.trace, b.cluster);
  }
  std::vector<TraceJob>& jobs = b.trace.jobs;
  std::size_t released = 0;
  std::size_t k = 0;
  // A bad job ends the loop with an InputError (without --skip-bad-jobs): the jobs after it,
  // not released yet, are counted on the way out, so that the count is the whole trace's.
  const CountRestOversized count_rest(oversized, jobs, order, k, b.options.oversized_workers);
  for (; k < jobs.size(); ++k) {
    if (order.empty()) released = release_behind_fetch_ahead(jobs, k, released);
    const TraceJob& tj = jobs[order.empty() ? k : order[k]];
    if (oversized && (*oversized)(tj)) ++*b.options.oversized_workers;
    add_job(b, tj);
  }
}

// The workload's job names once every job is added: the trace's whole, or the first of them when
// the last jobs were skipped or the trace has ids of no job.
void finish_names(JobBuild& b) {
  if (!b.names_whole) return;
  if (b.w.jobs.size() == b.trace.names.size()) {
    b.w.job_names = std::move(b.trace.names);
    return;
  }
  b.w.job_names.reserve(b.w.jobs.size(), 0);
  for (std::size_t j = 0; j < b.w.jobs.size(); ++j)
    b.w.job_names.push_back(b.trace.names[j]);
}

// Says which models the zoo lacks, with their jobs, that run model-less on their recorded run
// times (--unknown-models=duration).
void warn_unknown_models(const JobBuild& b) {
  if (b.unknown_model_jobs.empty() || b.options.warnings == nullptr) return;
  std::vector<std::string> parts;
  parts.reserve(b.unknown_model_jobs.size());
  for (auto [m, n] : b.unknown_model_jobs)
    parts.push_back(fmt::format("{} ({})", b.trace.models.at(m), n));
  b.options.warnings->push_back(fmt::format("{}: jobs whose model the zoo lacks run model-less on "
                                            "their recorded run times (--unknown-models=duration): "
                                            "{}",
                                            b.trace.file, fmt::join(parts, ", ")));
}

} // namespace

Workload build_workload(Trace trace, const ModelZoo& zoo, const Cluster& cluster,
                        const WorkloadOptions& options) {
  Workload w;
  const DeviceTypeId ref = reference_device_of(cluster, options);
  add_models(w, zoo, cluster, ref);
  w.users = trace.users.names();
  w.queues = trace.queues.names();
  w.skipped_bad_jobs = trace.skipped;
  JobBuild b(trace, zoo, cluster, options, w, ref);
  const std::vector<std::size_t> order = submit_order(trace);
  w.jobs.reserve(trace.jobs.size());
  b.names_whole = order.empty();
  if (options.unusable_types != nullptr) b.type_use.emplace(cluster);
  add_jobs(b, order);
  if (!w.phase_plan.empty()) w.phase_plan.resize(w.jobs.size(), 0);
  finish_names(b);
  warn_unknown_models(b);
  w.skipped_bad_jobs = trace.skipped;
  w.resolution_skips = std::move(trace.skip_reasons);
  if (w.jobs.empty())
    throw InputError(trace.file + ": no job of the trace can run on this cluster");
  if (b.type_use) *options.unusable_types = b.type_use->unused(cluster);
  return w;
}

std::vector<DeviceTypeId> unusable_device_types(const Workload& workload, const Cluster& cluster) {
  DeviceTypeUse use(cluster);
  for (const JobSpec& spec : workload.jobs)
    use.note(workload, spec.request);
  return use.unused(cluster);
}

} // namespace dlsim
