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

} // namespace

Workload build_workload(Trace trace, const ModelZoo& zoo, const Cluster& cluster,
                        const WorkloadOptions& options) {
  Workload w;
  auto ref = find_device_type(cluster.types, options.reference_device);
  if (!ref)
    throw InputError(
        fmt::format("trace.reference_device: unknown device type '{}'", options.reference_device));
  w.reference_device = *ref;
  w.perf = build_perf_table(zoo, cluster.types, *ref);
  w.models.push_back("");
  w.model_features.emplace_back();
  for (const auto& m : zoo.models) {
    w.models.push_back(m.name);
    w.model_features.push_back(ModelFeatures{m.family, m.params_m, m.gflops_per_sample,
                                             m.batch_size, m.gpu_mem_gb, m.has_graph, m.conv_layers,
                                             m.linear_layers, m.recurrent_layers, m.activation_mb});
  }
  w.users = trace.users.names();
  w.queues = trace.queues.names();
  w.skipped_bad_jobs = trace.skipped;

  // Trace model and device-type names to ids, once per distinct name.
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
  // Each distinct device_type text once: one type, any GPU, or an interned set of types.
  struct Choice {
    std::int32_t device_type = kAnyGpu;
    std::uint16_t type_set = 0;
    std::string error;
  };
  std::vector<Choice> type_of(trace.device_types.names().size());
  for (std::size_t i = 0; i < type_of.size(); ++i) {
    DeviceTypeChoice c =
        parse_device_type_choice(trace.device_types.at(static_cast<std::uint32_t>(i)), cluster);
    Choice& out = type_of[i];
    out.error = std::move(c.error);
    if (!out.error.empty() || c.any_gpu) continue;
    if (c.types.size() == 1) {
      out.device_type = c.types[0];
      continue;
    }
    auto it = std::find(w.type_sets.begin(), w.type_sets.end(), c.types);
    if (it == w.type_sets.end()) {
      if (w.type_sets.size() > std::numeric_limits<std::uint16_t>::max())
        throw InputError(trace.file + ": more than 65,536 distinct device_type sets");
      it = w.type_sets.insert(w.type_sets.end(), std::move(c.types));
    }
    out.device_type = kTypeSet;
    out.type_set = static_cast<std::uint16_t>(it - w.type_sets.begin());
  }
  std::vector<DeviceTypeId> gpu_types;
  for (std::size_t i = 0; i < cluster.types.size(); ++i) {
    const auto t = static_cast<DeviceTypeId>(i); // exact: cluster_yaml.cpp bounds the types
    if (cluster.types[t].kind == DeviceKind::kGpu && cluster.count_of_type(t) > 0)
      gpu_types.push_back(t);
  }
  Rng assign = Rng::stream(options.seed, "workload.assign-models");
  const std::vector<std::size_t> drawable = drawn_models(zoo);
  ReadOptions read_options{options.skip_bad_jobs};

  // Stable sort by submit time: jobs submitted together keep the trace's order.
  // Most traces are already in submit order: checking that first skips a sort of a million
  // indices, and the identity order (an empty `order`: 8 bytes a job less while the trace and
  // the workload are both held, the run's peak at 3.4 million jobs) is what the stable sort
  // would return anyway.
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
  w.jobs.reserve(trace.jobs.size());
  DetailsInterner details(w.details, w.solo_util);
  // The workload's names are the trace's, taken whole at the end, while job k keeps trace job
  // k's id k (most traces: in submit order, nothing skipped); from the first job that does not,
  // they are copied one by one.
  bool names_whole = order.empty();
  auto keep_name = [&](const TraceJob& tj) {
    if (names_whole && tj.name == w.jobs.size()) return;
    if (names_whole) {
      names_whole = false;
      std::size_t name_chars = 0; // of the trace's jobs (whose records may be released)
      for (std::size_t j = 0; j < trace.names.size(); ++j)
        name_chars += trace.names[j].size();
      w.job_names.reserve(trace.jobs.size(), name_chars);
      for (std::size_t j = 0; j < w.jobs.size(); ++j)
        w.job_names.push_back(trace.names[j]);
    }
    w.job_names.push_back(trace.name(tj));
  };
  // In submit order, a trace job is not read again once its spec is made: its pages go back to
  // the system every 16 MiB or so, so that the trace and the workload are never both whole (the
  // run's peak at 3.4 million jobs: docs/performance.md).
  static_assert(std::is_trivially_destructible_v<TraceJob>,
                "a released TraceJob is never destroyed: it must own nothing");
  constexpr std::size_t kReleaseEvery = (std::size_t{16} << 20) / sizeof(TraceJob);
  std::size_t released = 0;
  std::map<std::uint32_t, std::size_t> unknown_model_jobs; // trace model id -> jobs
  // The phases of a job whose speed changes (Trace::phase_plans), for the job just added.
  auto add_phases = [&](const TraceJob& tj) {
    const std::uint32_t p = tj.name < trace.phase_plan_of.size() ? trace.phase_plan_of[tj.name] : 0;
    if (p == 0) return;
    std::vector<Phase> plan;
    for (const Trace::Phase& tp : trace.phase_plans[p - 1]) {
      const std::int64_t m = tp.model < model_of.size() ? model_of[tp.model] : -1;
      if (m < 0) {
        throw InputError(fmt::format("{}:{}: job '{}': a phase's model '{}' is not in the zoo",
                                     trace.file, tj.line, trace.name(tj),
                                     trace.models.at(tp.model)));
      }
      plan.push_back(Phase{tp.from, static_cast<ModelId>(m), tp.work});
    }
    w.phase_plan.resize(w.jobs.size(), 0);
    w.phases.push_back(std::move(plan));
    w.phase_plan.back() = static_cast<std::uint32_t>(w.phases.size());
  };
  auto add_curve = [&](const TraceJob& tj, JobSpec& spec) {
    if (tj.curve == 0) return;
    // The curve's noise is the job's own: keyed by its name, whatever the run's seed.
    LossCurve curve = trace.curves[tj.curve - 1];
    curve.noise_key = fnv1a64(trace.name(tj));
    w.curves.push_back(curve);
    spec.curve = static_cast<std::uint32_t>(w.curves.size());
  };
  std::optional<DeviceTypeUse> type_use;
  if (options.unusable_types != nullptr) type_use.emplace(cluster);
  std::optional<OversizedWorkers> oversized;
  if (options.oversized_workers != nullptr) {
    *options.oversized_workers = 0;
    oversized.emplace(trace, cluster);
  }
  // worker_capacity walks every node group, and a trace repeats a few request shapes many times
  // (openb's 10,836 inflated pods have 126 GPU shapes): each shape's capacity per type is counted
  // once.
  std::map<std::tuple<DeviceTypeId, std::uint32_t, double, double>, std::uint64_t> capacity_of;
  auto capacity = [&](DeviceTypeId t, const JobRequest& r, const RequestDetails& rd) {
    const auto key =
        std::make_tuple(t, r.devices_per_worker, rd.cpus_per_worker, rd.mem_gb_per_worker);
    auto it = capacity_of.find(key);
    if (it == capacity_of.end())
      it = capacity_of.emplace(key, worker_capacity(cluster, t, r, rd)).first;
    return it->second;
  };
  std::size_t k = 0;
  // A bad job ends the loop with an InputError (without --skip-bad-jobs): the jobs after it,
  // not released yet, are counted on the way out, so that the count is the whole trace's.
  const CountRestOversized count_rest(oversized, trace.jobs, order, k, options.oversized_workers);
  for (; k < trace.jobs.size(); ++k) {
    if (order.empty() && k - released >= kReleaseEvery) {
      release_pages(trace.jobs.data() + released, trace.jobs.data() + k);
      released = k;
    }
    TraceJob& tj = trace.jobs[order.empty() ? k : order[k]];
    if (order.empty() && k + 16 < trace.jobs.size()) {
      const auto* ahead = reinterpret_cast<const char*>(&trace.jobs[k + 16]);
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + 64);
      __builtin_prefetch(ahead + 128);
    }
    if (oversized && (*oversized)(tj)) ++*options.oversized_workers;
    auto where = [&](const char* column) {
      return fmt::format("{}:{}: {}: job '{}': ", trace.file, tj.line, column, trace.name(tj));
    };
    JobSpec spec;
    JobRequest& r = spec.request;
    RequestDetails rd;    // interned into w.details when the job is kept
    double solo_util = 0; // into w.solo_util with it
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
    if (tj.model != kNoString && model_of[tj.model] < 0 && options.unknown_models_on_duration) {
      if (!(tj.duration_s >= 0)) {
        // Only a model's iteration time turns iterations into a run time.
        reject_row(trace, read_options,
                   where("model") + fmt::format("unknown model '{}', and the trace gives the "
                                                "job's length in iterations, not as a run time: "
                                                "--unknown-models=duration cannot run it",
                                                trace.models.at(tj.model)));
        continue;
      }
      ++unknown_model_jobs[tj.model];
    } else if (tj.model != kNoString) {
      if (model_of[tj.model] < 0) {
        reject_row(trace, read_options,
                   where("model") + fmt::format("unknown model '{}' (see dlsim list models; "
                                                "--unknown-models=duration runs such jobs on "
                                                "their recorded run times){}",
                                                trace.models.at(tj.model),
                                                trace.models.at(tj.model).starts_with("gavel_")
                                                    ? ": Gavel's job types are the models of "
                                                      "configs/models/gavel.yaml (--set "
                                                      "models=configs/models/gavel.yaml)"
                                                    : ""));
        continue;
      }
      r.model = static_cast<ModelId>(model_of[tj.model]);
    } else if (options.assign_models && !drawable.empty()) {
      // Documented rule (docs/models.md): uniform over the zoo's drawn models, one draw per
      // model-less job in submit order from the stream "workload.assign-models". A host task
      // draws too (so the others' draws do not depend on it) but keeps no model: it trains none.
      const auto drawn = static_cast<ModelId>(1 + drawable[assign.below(drawable.size())]);
      if (!is_host_task(r)) r.model = drawn;
    }
    if (tj.device_type != kNoString) {
      const Choice& choice = type_of[tj.device_type];
      if (!choice.error.empty()) {
        reject_row(trace, read_options, where("device_type") + choice.error);
        continue;
      }
      r.device_type = choice.device_type;
      r.type_set = choice.type_set;
    }
    const ModelInfo* info = r.model > 0 ? &zoo.models[r.model - 1] : nullptr;
    // No trace value and no model: the assumed default (counted when the job is kept).
    const bool util_assumed = !(tj.gpu_util > 0) && info == nullptr;
    solo_util = tj.gpu_util > 0 ? tj.gpu_util : (info ? info->gpu_util : options.default_gpu_util);
    rd.gpu_mem_gb = tj.gpu_mem_gb >= 0 ? tj.gpu_mem_gb : (info ? info->gpu_mem_gb : 0);
    // A run time observed on a GPU type is the run time on that type.
    DeviceTypeId observed_on = tj.observed_on_device_type && r.device_type >= 0
                                   ? static_cast<DeviceTypeId>(r.device_type)
                                   : *ref;
    if (tj.observed_type != kNoString) {
      const std::string& name = trace.device_types.at(tj.observed_type);
      auto type = find_device_type(cluster.types, name);
      if (!type) {
        reject_row(trace, read_options,
                   where("device_type") +
                       fmt::format("unknown device type '{}' its run time was measured on", name));
        continue;
      }
      observed_on = *type;
    }
    // Iterations given, and the work (not only kept beside a recorded run time).
    const bool by_iterations = tj.iterations > 0 && !tj.duration_is_work;
    if (!by_iterations && !w.perf.supports(r.model, observed_on)) {
      reject_row(trace, read_options,
                 where("model") + fmt::format("model '{}' cannot train on {}, the device its "
                                              "duration_s is measured on",
                                              w.models[r.model], cluster.types[observed_on].name));
      continue;
    }
    if (!by_iterations && !(std::fabs(tj.duration_s) <= kMaxSeconds))
      check_seconds(tj.duration_s,
                    fmt::format("{}:{}: duration: job '{}'", trace.file, tj.line, trace.name(tj)));
    spec.iterations =
        by_iterations ? tj.iterations : tj.duration_s / w.perf.iter_time(r.model, observed_on);

    if (is_host_task(r)) {
      // No device: some nodes must hold all its workers' cores and memory at once.
      if (tj.device_type != kNoString) {
        reject_row(trace, read_options,
                   where("device_type") +
                       fmt::format("a job of 0 devices per worker holds none: it cannot require "
                                   "'{}'",
                                   trace.device_types.at(tj.device_type)));
        continue;
      }
      if (r.min_workers != r.workers || r.max_workers != r.workers) {
        reject_row(trace, read_options,
                   where("workers") + "a job of 0 devices per worker is not elastic");
        continue;
      }
      if (r.ps_cpus > 0) {
        reject_row(trace, read_options,
                   where("ps_cpus") + "a job of 0 devices per worker has no parameter servers "
                                      "that train with it: give its PS as their own rows");
        continue;
      }
      if (std::string why = host_task_misfit(cluster, r, rd); !why.empty()) {
        reject_row(trace, read_options, where("workers") + why);
        continue;
      }
      solo_util = 0;
      rd.gpu_mem_gb = 0;
      add_curve(tj, spec);
      r.details = details.intern(rd, solo_util);
      keep_name(tj);
      w.jobs.push_back(spec);
      if (type_use) type_use->note(w, spec.request);
      continue;
    }
    // Could this job ever run here? Some compatible type must hold its smallest gang at once.
    const DeviceTypeId own_type = static_cast<DeviceTypeId>(r.device_type);
    std::span<const DeviceTypeId> candidates =
        r.device_type >= 0          ? std::span<const DeviceTypeId>(&own_type, 1)
        : r.device_type == kTypeSet ? std::span<const DeviceTypeId>(w.type_sets[r.type_set])
                                    : std::span<const DeviceTypeId>(gpu_types);
    if (r.device_type == kTypeSet &&
        std::none_of(candidates.begin(), candidates.end(),
                     [&](DeviceTypeId t) { return cluster.count_of_type(t) > 0; })) {
      reject_row(trace, read_options,
                 where("device_type") +
                     fmt::format("no node of the cluster has any of the types '{}'",
                                 trace.device_types.at(tj.device_type)));
      continue;
    }
    // The model cannot train on any of the job's types (the zoo's `unsupported`).
    if (!candidates.empty() &&
        std::none_of(candidates.begin(), candidates.end(),
                     [&](DeviceTypeId t) { return w.perf.supports(r.model, t); })) {
      const std::string& why = info->unsupported.at(cluster.types[candidates[0]].name);
      reject_row(trace, read_options,
                 where("device_type") + fmt::format("model '{}' cannot train on {}: {}",
                                                    w.models[r.model],
                                                    cluster.types[candidates[0]].name, why));
      continue;
    }
    std::uint64_t best = 0;
    double most_memory = 0;
    for (DeviceTypeId t : candidates) {
      if (!w.perf.supports(r.model, t)) continue;
      // A replica keeps the whole model on each of its devices (docs/runtime.md).
      const double cap = cluster.types[t].memory_gb;
      most_memory = std::max(most_memory, cap);
      if (cap > 0 && !fits_in(rd.gpu_mem_gb, cap)) continue;
      best = std::max(best, capacity(t, r, rd));
    }
    if (best == 0 && !candidates.empty() && !fits_in(rd.gpu_mem_gb, most_memory) &&
        most_memory > 0) {
      reject_row(trace, read_options,
                 tj.gpu_mem_gb >= 0
                     ? where("gpu_mem_gb") +
                           fmt::format("{} GB per device; the largest usable device here has {} GB",
                                       rd.gpu_mem_gb, most_memory)
                     : where("model") +
                           fmt::format("model '{}' needs {} GB per device; the largest "
                                       "usable device here has {} GB",
                                       w.models[r.model], rd.gpu_mem_gb, most_memory));
      continue;
    }
    // Parameter servers hold their cores on their workers' nodes, shard s with worker s mod w
    // (docs/scaling.md#parameter-servers-that-hold-cores): some node must hold one worker with
    // its ceil(ps / w) shards, and the cluster all of the job's cores at once.
    if (r.ps_cpus > 0) {
      if (std::string why = ps_misfit(cluster, r, rd); !why.empty()) {
        reject_row(trace, read_options, where("ps_cpus") + why);
        continue;
      }
    }
    if (best < r.min_workers) {
      std::string what = candidates.empty()
                             ? std::string("the cluster has no GPUs (set device_type)")
                             : fmt::format("{} workers of {} device(s) each cannot fit: the "
                                           "cluster holds at most {} such workers at once",
                                           r.min_workers, r.devices_per_worker, best);
      if (best == 0 && !candidates.empty()) {
        std::string why = missing_resource(cluster, candidates, r, rd);
        if (!why.empty()) what += ": " + why;
      }
      reject_row(trace, read_options, where("workers") + what);
      continue;
    }
    // An elastic job may never be grown past what the cluster holds at once.
    if (r.max_workers > best) {
      reject_row(trace, read_options,
                 where("max_workers") +
                     fmt::format("{} workers of {} device(s) each can never run at once: the "
                                 "cluster holds at most {} such workers",
                                 r.max_workers, r.devices_per_worker, best));
      continue;
    }
    add_curve(tj, spec);
    r.details = details.intern(rd, solo_util);
    keep_name(tj);
    w.jobs.push_back(spec);
    if (!trace.phase_plan_of.empty()) add_phases(tj);
    if (util_assumed && options.assumed_util_jobs) ++*options.assumed_util_jobs;
    if (type_use) type_use->note(w, spec.request);
  }
  if (!w.phase_plan.empty()) w.phase_plan.resize(w.jobs.size(), 0);
  if (names_whole && w.jobs.size() == trace.names.size()) {
    w.job_names = std::move(trace.names);
  } else if (names_whole) { // the last jobs were skipped, or the trace has ids of no job
    w.job_names.reserve(w.jobs.size(), 0);
    for (std::size_t j = 0; j < w.jobs.size(); ++j)
      w.job_names.push_back(trace.names[j]);
  }
  if (!unknown_model_jobs.empty() && options.warnings != nullptr) {
    std::vector<std::string> parts;
    parts.reserve(unknown_model_jobs.size());
    for (auto [m, n] : unknown_model_jobs)
      parts.push_back(fmt::format("{} ({})", trace.models.at(m), n));
    options.warnings->push_back(fmt::format("{}: jobs whose model the zoo lacks run model-less on "
                                            "their recorded run times (--unknown-models=duration): "
                                            "{}",
                                            trace.file, fmt::join(parts, ", ")));
  }
  w.skipped_bad_jobs = trace.skipped;
  w.resolution_skips = std::move(trace.skip_reasons);
  if (w.jobs.empty())
    throw InputError(trace.file + ": no job of the trace can run on this cluster");
  if (type_use) *options.unusable_types = type_use->unused(cluster);
  return w;
}

std::vector<DeviceTypeId> unusable_device_types(const Workload& workload, const Cluster& cluster) {
  DeviceTypeUse use(cluster);
  for (const JobSpec& spec : workload.jobs)
    use.note(workload, spec.request);
  return use.unused(cluster);
}

} // namespace dlsim
