#include "tests/support/invariants.h"

#include "sim/runtime/ps_placement.h"
#include "sim/runtime/rate_model.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

// The checker runs after every event of every simulation it watches (billions of checks in the
// policy fuzz test): a Catch assertion is recorded only when a condition fails, and then
// re-evaluated by REQUIRE so that the report shows its expansion.
#define INVARIANT(...)                                                                             \
  do {                                                                                             \
    if (!(__VA_ARGS__)) REQUIRE(__VA_ARGS__);                                                      \
  } while (false)

namespace dlsim::test {

void InvariantChecker::on_advance(SimTime from, SimTime to, const View&) {
  INVARIANT(from <= to);
  INVARIANT(to >= last_time_);
  last_time_ = to;
}

void InvariantChecker::on_job_finished(JobId job, const View& view) {
  if (finishes_.size() < view.job_count()) finishes_.resize(view.job_count(), 0);
  ++finishes_[job];
  INVARIANT(finishes_[job] == 1);
  INVARIANT(view.state(job).status == JobStatus::kFinished);
}

namespace {

// What the holders of one device take of it under the share controller and in memory.
struct SlotShares {
  unsigned controlled = 0; // holders under the share controller
  double guaranteed = 0;   // their summed share_min
  double granted = 0;      // the shares granted to the running ones
  double memory = 0;       // GPU memory of the holders not time-sliced
};

SlotShares slot_shares(const SimState& s, const DeviceSlot& slot) {
  SlotShares out;
  for (unsigned k = 0; k < slot.count; ++k) {
    const JobState& job = s.jobs[slot.jobs[k]];
    out.controlled += s.under_controller(slot.jobs[k]) ? 1 : 0;
    out.guaranteed += s.share_min(slot.jobs[k]);
    if (!job.sliced) out.memory += s.details_of(slot.jobs[k]).gpu_mem_gb;
    if (s.under_controller(slot.jobs[k]) && job.status == JobStatus::kRunning)
      out.granted += share_grant(s, slot, slot.jobs[k]);
  }
  return out;
}

// Shares: the holders' guarantees fit in one device when any is under the controller, the grants
// never exceed it, and memory is never over-committed by jobs holding it at once; no more holders
// than the device allows.
void check_slot_limits(const SimState& s, DeviceId d, const DeviceSlot& slot,
                       const SlotShares& shares) {
  INVARIANT(shares.controlled == slot.controlled);
  if (shares.controlled > 0) {
    INVARIANT(shares.controlled == slot.count); // never mixed with whole-device jobs
    INVARIANT(shares.guaranteed <= 1 + 1e-9);
  }
  INVARIANT(shares.granted <= 1 + 1e-9);
  INVARIANT(std::fabs(shares.guaranteed - slot.guaranteed) < 1e-9);
  if (double cap = s.cluster->type_of(d).memory_gb; cap > 0) INVARIANT(shares.memory <= cap + 1e-9);
  INVARIANT(slot.count <= (slot.sliced > 0         ? s.config.max_timeslice_jobs
                           : shares.controlled > 0 ? DeviceSlot::kMaxShare
                                                   : s.config.max_jobs_per_device));
}

// The running holders of a device: their summed utilization alone, and how many.
struct SlotRunning {
  double util = 0;
  unsigned count = 0;
};

// Each holder lists the device, only pack and timeslice share one, and they do not mix.
SlotRunning check_holders(const SimState& s, DeviceId d, const DeviceSlot& slot) {
  SlotRunning out;
  for (unsigned k = 0; k < slot.count; ++k) {
    const JobState& job = s.jobs[slot.jobs[k]];
    INVARIANT(std::find(job.devices.begin(), job.devices.end(), d) != job.devices.end());
    if (slot.count > 1) INVARIANT((job.packed || job.sliced)); // only pack and timeslice share
    if (slot.sliced > 0) INVARIANT(job.sliced);                // and they do not mix
    if (job.status == JobStatus::kRunning) {
      out.util += s.solo_util_of(slot.jobs[k]);
      ++out.count;
    }
  }
  return out;
}

// A device's useful work (docs/outputs.md: sum of util / slowdown, at most 1) and the share of
// time some kernel runs on it (nvidia-smi); kernel_busy below 0: the same as the useful work.
struct DeviceWork {
  double useful = 0;
  double kernel_busy = -1;
};

// Under the share controller: each running job's utilization at its speed,
// u x controller_speed(grant, u).
DeviceWork controlled_work(const SimState& s, const DeviceSlot& slot) {
  DeviceWork w;
  for (unsigned k = 0; k < slot.count; ++k) {
    const JobState& job = s.jobs[slot.jobs[k]];
    if (job.status != JobStatus::kRunning) continue;
    double u = s.solo_util_of(slot.jobs[k]);
    w.useful += u * controller_speed(s.config.share, share_grant(s, slot, slot.jobs[k]), u);
  }
  return w;
}

// The complete pair table (the fitted model): job j slowed by 1 + sum over its running partners
// k of (factor(j, k) - 1); kernel-busy 1 - prod (1 - u_j) / slowdown_j.
DeviceWork pair_table_work(const SimState& s, DeviceId d, const DeviceSlot& slot,
                           unsigned running_here) {
  DeviceWork w;
  DeviceTypeId type = s.cluster->devices[d].type;
  double idle = 1.0;
  for (unsigned a = 0; a < slot.count; ++a) {
    JobId j = slot.jobs[a];
    if (s.jobs[j].status != JobStatus::kRunning) continue;
    double slowdown = 1.0;
    for (unsigned b = 0; b < slot.count; ++b) {
      JobId k = slot.jobs[b];
      if (k == j || s.jobs[k].status != JobStatus::kRunning) continue;
      slowdown += s.config.interference_pairs.at(type, s.workload->jobs[j].request.model,
                                                 s.workload->jobs[k].request.model) -
                  1.0;
    }
    const double u = s.solo_util_of(j);
    w.useful += u / slowdown;
    idle *= (1.0 - u) / slowdown;
  }
  w.useful = std::min(1.0, w.useful);
  if (running_here >= 2) w.kernel_busy = 1.0 - idle;
  return w;
}

// The interference line: a slowdown that grows with the summed utilization past its onset.
DeviceWork onset_work(const SimState& s, const DeviceSlot& slot, const SlotRunning& running) {
  DeviceWork w;
  double over = running.util - s.config.interference.onset;
  double slowdown = running.count >= 2 && over > 0 ? 1.0 + s.config.interference.slope * over : 1.0;
  w.useful = std::min(1.0, running.util / slowdown);
  if (running.count >= 2 && s.config.interference_pairs.empty()) {
    w.kernel_busy = 1.0;
    for (unsigned k = 0; k < slot.count; ++k) {
      if (s.jobs[slot.jobs[k]].status != JobStatus::kRunning) continue;
      w.kernel_busy *= (1.0 - s.solo_util_of(slot.jobs[k])) / slowdown;
    }
    w.kernel_busy = 1.0 - w.kernel_busy;
  }
  return w;
}

DeviceWork device_work(const SimState& s, DeviceId d, const DeviceSlot& slot, unsigned controlled,
                       const SlotRunning& running) {
  if (controlled > 0) return controlled_work(s, slot);
  if (slot.sliced == 0 && s.config.interference_pairs.complete)
    return pair_table_work(s, d, slot, running.count);
  if (slot.sliced == 0) return onset_work(s, slot, running);
  DeviceWork w;
  if (running.count > 0) {
    // Jobs taking turns: one computes at a time, less the switching time.
    double eff = running.count >= 2 ? 1.0 - s.config.costs.switch_s / slot.slice_s : 1.0;
    w.useful = running.util / running.count * eff;
  }
  return w;
}

// Devices: holders within limits, each holder lists the device, and the busy and useful counts
// the runtime keeps agree with a recount.
void check_devices(const SimState& s) {
  const Cluster& c = *s.cluster;
  std::uint32_t busy_gpus = 0;
  double effective = 0;
  double kernel_busy = 0; // GPUs: the share of time some kernel runs (nvidia-smi)
  std::vector<std::uint32_t> busy_by_type(c.types.size(), 0);
  std::vector<double> effective_by_type(c.types.size(), 0.0);
  for (DeviceId d = 0; d < s.slots.size(); ++d) {
    const DeviceSlot& slot = s.slots[d];
    const SlotShares shares = slot_shares(s, slot);
    check_slot_limits(s, d, slot, shares);
    const SlotRunning running = check_holders(s, d, slot);
    const DeviceWork work = device_work(s, d, slot, shares.controlled, running);
    DeviceTypeId type = c.devices[d].type;
    busy_by_type[type] += slot.count > 0;
    effective_by_type[type] += work.useful;
    if (c.type_of(d).kind == DeviceKind::kGpu) {
      busy_gpus += slot.count > 0;
      effective += work.useful;
      kernel_busy += work.kernel_busy < 0 ? work.useful : work.kernel_busy;
    }
  }
  INVARIANT(busy_gpus == s.busy_gpus);
  INVARIANT(std::fabs(effective - s.effective_gpus) < 1e-6);
  // What nvidia-smi would show (docs/outputs.md#utilization); measured pairs under the slide's
  // line are not recomputed here (kernel_busy stays the useful work for them).
  if (s.config.interference_pairs.complete || s.config.interference_pairs.empty()) {
    INVARIANT(std::fabs(kernel_busy - s.kernel_busy_gpus) < 1e-6);
  }
  INVARIANT(busy_by_type == s.busy_by_type);
  for (std::size_t t = 0; t < effective_by_type.size(); ++t)
    INVARIANT(std::fabs(effective_by_type[t] - s.effective_by_type[t]) < 1e-6);
}

// What SimState keeps aside for job j (job_extras.h): an entry for every job whose flags say it
// has one, and none for a job none of whose parts is in use; and its times alone and profiled.
void check_side_tables(const SimState& s, JobId j) {
  const JobState& job = s.jobs[j];
  const JobExtras* extras = s.extras_of(j);
  if (job.own_cores || job.own_share || job.own_ps || job.crowded) INVARIANT(extras != nullptr);
  // A slice is kept until the job is over (no finished job resumes).
  if (job.sliced && !is_over(job.status)) INVARIANT((extras != nullptr && extras->slice_s > 0));
  if (extras != nullptr) INVARIANT(extras->in_use(job));
  // The device list keeps zero or one device in the record, more in a block (device_list.h).
  INVARIANT(job.devices.is_inline() == (job.devices.size() <= 1));
  // Crowded now exactly when running and another job runs on one of its devices; its time
  // alone is its run time less its time crowded, so between 0 and its run time.
  const bool alone_now = job.status == JobStatus::kRunning &&
                         std::all_of(job.devices.begin(), job.devices.end(),
                                     [&](DeviceId d) { return s.slots[d].running == 1; });
  INVARIANT(s.running_alone(j) == alone_now);
  if (job.crowded) {
    const JobExtras::Crowded& crowd = extras->crowded;
    INVARIANT((crowd.since >= 0) == (job.status == JobStatus::kRunning && !alone_now));
    INVARIANT(crowd.since <= s.now);
  }
  INVARIANT(s.alone_time(j) >= 0);
  INVARIANT(s.alone_time(j) <= job.run_time + unsettled_run(job, s.now));
  // A profiler watches a job alone and in its own turns of a time-sliced device: at least its
  // time alone, at most its run time (1 us of rounding per crowded spell aside).
  INVARIANT(s.profiled_time(j) >= s.alone_time(j));
  INVARIANT(s.profiled_time(j) <= job.run_time + unsettled_run(job, s.now) + 1000);
}

// Whether job j holds devices or nodes in its status.
bool holds_resources(const JobState& job) {
  return job.status == JobStatus::kBinding || job.status == JobStatus::kStarting ||
         job.status == JobStatus::kRunning || job.status == JobStatus::kSuspending ||
         job.status == JobStatus::kMigrating || job.status == JobStatus::kResizing;
}

// Gangs whole: a holding host task's workers on its nodes, a holding device job's on its
// devices, a worker's devices on one node; nothing held otherwise. Returns the node of each
// worker.
std::vector<NodeId> checked_worker_nodes(const SimState& s, JobId j, bool holds) {
  const Cluster& c = *s.cluster;
  const JobState& job = s.jobs[j];
  const JobRequest& req = s.workload->jobs[j].request;
  const std::span<const NodeId> hosts = s.hosts_of(j);
  std::vector<NodeId> worker_nodes(hosts.begin(), hosts.end());
  if (holds && is_host_task(req)) {
    INVARIANT(job.devices.empty());
    INVARIANT(hosts.size() == job.workers);
    INVARIANT(job.workers == req.workers);
  } else if (holds) {
    INVARIANT(hosts.empty());
    for (std::size_t i = 0; i < job.devices.size(); i += req.devices_per_worker)
      worker_nodes.push_back(c.devices[job.devices[i]].node);
    INVARIANT(job.devices.size() == static_cast<std::size_t>(job.workers) * req.devices_per_worker);
    // Gangs start whole: only a binding job (placed pod by pod, not computing) holds fewer.
    if (job.status != JobStatus::kBinding) INVARIANT(job.workers >= req.min_workers);
    INVARIANT(job.workers <= req.max_workers);
    for (std::size_t i = 0; i < job.devices.size(); ++i) {
      // A worker's devices are on one node.
      INVARIANT(c.devices[job.devices[i]].node ==
                c.devices[job.devices[i - i % req.devices_per_worker]].node);
    }
  } else {
    INVARIANT(job.devices.empty());
    INVARIANT(hosts.empty());
  }
  return worker_nodes;
}

// Node cores and memory as recounted from the jobs' workers and parameter servers.
struct NodeUse {
  explicit NodeUse(std::size_t nodes) : cores(nodes, 0.0), memory(nodes, 0.0) {}
  std::vector<double> cores;
  std::vector<double> memory;
  double cores_held = 0;
};

// Adds what job j's workers and parameter servers take of their nodes to `use`, checking that
// its parameter servers are where ps_placement.h puts them.
void add_node_use(const SimState& s, JobId j, bool holds, const std::vector<NodeId>& worker_nodes,
                  NodeUse& use) {
  const JobState& job = s.jobs[j];
  const JobRequest& req = s.workload->jobs[j].request;
  // A device job's workers hold its cores now (the request's unless set_cpus changed them);
  // a host task's the request's.
  const double worker_cores =
      is_host_task(req) ? s.details_of(j).cpus_per_worker : s.worker_cores(j);
  for (NodeId n : worker_nodes) {
    use.cores[n] += worker_cores;
    use.memory[n] += s.details_of(j).mem_gb_per_worker;
    use.cores_held += worker_cores;
  }
  // Parameter servers that hold cores (ps_placement.h): one node per shard while the job holds
  // its devices (not while binding), shard s with worker s mod w, nothing otherwise.
  if (holds && holds_ps_cores(req) && job.status != JobStatus::kBinding) {
    const std::span<const NodeId> ps_hosts = s.ps_hosts_of(j);
    INVARIANT(std::vector<NodeId>(ps_hosts.begin(), ps_hosts.end()) ==
              ps_nodes(*s.cluster, job.devices, req.devices_per_worker, s.ps(j)));
  } else {
    INVARIANT(s.ps_hosts_of(j).empty());
  }
  for (NodeId n : s.ps_hosts_of(j)) {
    use.cores[n] += s.ps_cores(j);
    use.cores_held += s.ps_cores(j);
  }
}

// Progress never goes back, except to the last checkpoint when a failure stops the job, and
// never passes the job's work.
void check_progress(const SimState& s, JobId j, std::vector<double>& last_done,
                    std::vector<std::uint32_t>& last_failures) {
  const JobState& job = s.jobs[j];
  const std::uint32_t failed =
      s.failures.jobs.empty() ? 0 : static_cast<std::uint32_t>(s.failures.jobs[j].failures);
  if (failed == last_failures[j]) {
    INVARIANT(job.done >= last_done[j] - 1e-9);
  } else {
    INVARIANT((job.done == s.failures.jobs[j].ckpt_done || job.status != JobStatus::kPending));
    last_failures[j] = failed;
  }
  INVARIANT(job.done <= s.workload->jobs[j].iterations * (1 + 1e-9) + 1e-9);
  last_done[j] = job.done;
}

// Node cores and memory: what the holders' workers take (on their devices' nodes, or a host
// task's nodes) is what the ledger says is gone, and never more than the node has.
void check_nodes(const SimState& s, const NodeUse& use) {
  const Cluster& c = *s.cluster;
  for (NodeId n = 0; n < c.nodes.size(); ++n) {
    INVARIANT(use.cores[n] <= c.nodes[n].cpu_cores + 1e-6);
    INVARIANT(use.memory[n] <= c.nodes[n].memory_gb + 1e-6);
    INVARIANT(std::fabs(c.nodes[n].cpu_cores - use.cores[n] - s.node_cpu_free[n]) < 1e-6);
    INVARIANT(std::fabs(c.nodes[n].memory_gb - use.memory[n] - s.node_mem_free[n]) < 1e-6);
  }
  INVARIANT(std::fabs(use.cores_held - s.cores_held) < 1e-6);
}

// The job lists hold every job of their statuses, each once (View::pending_jobs ...).
void check_job_lists(const SimState& s) {
  std::array<std::uint32_t, 4> listed{};
  for (JobList l : {JobList::kPending, JobList::kRunning, JobList::kOver}) {
    for (JobId j : s.lists.range(l)) {
      INVARIANT(list_of(s.jobs[j].status) == l);
      ++listed[static_cast<std::size_t>(l)];
    }
    INVARIANT(listed[static_cast<std::size_t>(l)] == s.lists.range(l).size());
  }
  std::array<std::uint32_t, 4> by_status{};
  for (const JobState& job : s.jobs)
    ++by_status[static_cast<std::size_t>(list_of(job.status))];
  for (std::size_t l = 1; l < 4; ++l)
    INVARIANT(listed[l] == by_status[l]);
  INVARIANT(s.lists.range(JobList::kPending).size() == s.pending);
}

} // namespace

void InvariantChecker::on_decided(const View& view) {
  const SimState& s = view.raw();
  ++checks_;
  if (last_done_.size() < s.jobs.size()) last_done_.resize(s.jobs.size(), 0.0);
  if (last_failures_.size() < s.jobs.size()) last_failures_.resize(s.jobs.size(), 0);
  check_devices(s);
  NodeUse use(s.cluster->nodes.size());
  std::uint32_t running = 0;
  // Jobs: gangs whole, progress monotone and bounded.
  for (JobId j = 0; j < s.jobs.size(); ++j) {
    check_side_tables(s, j);
    const bool holds = holds_resources(s.jobs[j]);
    add_node_use(s, j, holds, checked_worker_nodes(s, j, holds), use);
    running += s.jobs[j].status == JobStatus::kRunning;
    check_progress(s, j, last_done_, last_failures_);
  }
  INVARIANT(running == s.running);
  check_nodes(s, use);
  check_job_lists(s);
}

void InvariantChecker::check_final(const SimState& s) const {
  for (JobId j = 0; j < s.jobs.size(); ++j) {
    if (s.jobs[j].status == JobStatus::kFinished) {
      INVARIANT(s.jobs[j].done == s.workload->jobs[j].iterations);
      INVARIANT(s.jobs[j].end >= s.workload->jobs[j].request.submit);
    }
  }
}

} // namespace dlsim::test
