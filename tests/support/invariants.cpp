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

void InvariantChecker::on_decided(const View& view) {
  const SimState& s = view.raw();
  const Cluster& c = *s.cluster;
  ++checks_;
  if (last_done_.size() < s.jobs.size()) last_done_.resize(s.jobs.size(), 0.0);
  if (last_failures_.size() < s.jobs.size()) last_failures_.resize(s.jobs.size(), 0);
  std::uint32_t busy_gpus = 0;
  std::uint32_t running = 0;
  double effective = 0;
  double kernel_busy = 0; // GPUs: the share of time some kernel runs (nvidia-smi)
  std::vector<std::uint32_t> busy_by_type(c.types.size(), 0);
  std::vector<double> effective_by_type(c.types.size(), 0.0);
  // Devices: holders within limits, and each holder lists the device.
  for (DeviceId d = 0; d < s.slots.size(); ++d) {
    const DeviceSlot& slot = s.slots[d];
    double util = 0;
    unsigned running_here = 0;
    // Shares: the holders' guarantees fit in one device when any is under the controller, the
    // grants never exceed it, and memory is never over-committed by jobs holding it at once.
    unsigned controlled = 0;
    double guaranteed = 0;
    double granted = 0;
    double memory = 0;
    for (unsigned k = 0; k < slot.count; ++k) {
      const JobState& job = s.jobs[slot.jobs[k]];
      controlled += s.under_controller(slot.jobs[k]) ? 1 : 0;
      guaranteed += s.share_min(slot.jobs[k]);
      if (!job.sliced) memory += s.details_of(slot.jobs[k]).gpu_mem_gb;
      if (s.under_controller(slot.jobs[k]) && job.status == JobStatus::kRunning)
        granted += share_grant(s, slot, slot.jobs[k]);
    }
    INVARIANT(controlled == slot.controlled);
    if (controlled > 0) {
      INVARIANT(controlled == slot.count); // never mixed with whole-device jobs
      INVARIANT(guaranteed <= 1 + 1e-9);
    }
    INVARIANT(granted <= 1 + 1e-9);
    INVARIANT(std::fabs(guaranteed - slot.guaranteed) < 1e-9);
    if (double cap = c.type_of(d).memory_gb; cap > 0) INVARIANT(memory <= cap + 1e-9);
    INVARIANT(slot.count <= (slot.sliced > 0  ? s.config.max_timeslice_jobs
                             : controlled > 0 ? DeviceSlot::kMaxShare
                                              : s.config.max_jobs_per_device));
    for (unsigned k = 0; k < slot.count; ++k) {
      const JobState& job = s.jobs[slot.jobs[k]];
      INVARIANT(std::find(job.devices.begin(), job.devices.end(), d) != job.devices.end());
      if (slot.count > 1) INVARIANT((job.packed || job.sliced)); // only pack and timeslice share
      if (slot.sliced > 0) INVARIANT(job.sliced);                // and they do not mix
      if (job.status == JobStatus::kRunning) {
        util += s.solo_util_of(slot.jobs[k]);
        ++running_here;
      }
    }
    // Useful work on the device (docs/outputs.md): sum of util / slowdown, at most 1; under the
    // share controller each running job's utilization at its speed, u x controller_speed(grant, u).
    double useful = 0;
    double kernel_busy_here = -1; // below 0: the same as the useful work
    if (controlled > 0) {
      for (unsigned k = 0; k < slot.count; ++k) {
        const JobState& job = s.jobs[slot.jobs[k]];
        if (job.status != JobStatus::kRunning) continue;
        double u = s.solo_util_of(slot.jobs[k]);
        useful += u * controller_speed(s.config.share, share_grant(s, slot, slot.jobs[k]), u);
      }
    } else if (slot.sliced == 0 && s.config.interference_pairs.complete) {
      // The complete pair table (the fitted model): job j slowed by 1 + sum over its running
      // partners k of (factor(j, k) - 1); kernel-busy 1 - prod (1 - u_j) / slowdown_j.
      DeviceTypeId type = c.devices[d].type;
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
        useful += u / slowdown;
        idle *= (1.0 - u) / slowdown;
      }
      useful = std::min(1.0, useful);
      if (running_here >= 2) kernel_busy_here = 1.0 - idle;
    } else if (slot.sliced == 0) {
      double over = util - s.config.interference.onset;
      double slowdown =
          running_here >= 2 && over > 0 ? 1.0 + s.config.interference.slope * over : 1.0;
      useful = std::min(1.0, util / slowdown);
      if (running_here >= 2 && s.config.interference_pairs.empty()) {
        kernel_busy_here = 1.0;
        for (unsigned k = 0; k < slot.count; ++k) {
          if (s.jobs[slot.jobs[k]].status != JobStatus::kRunning) continue;
          kernel_busy_here *= (1.0 - s.solo_util_of(slot.jobs[k])) / slowdown;
        }
        kernel_busy_here = 1.0 - kernel_busy_here;
      }
    } else if (running_here > 0) {
      // Jobs taking turns: one computes at a time, less the switching time.
      double eff = running_here >= 2 ? 1.0 - s.config.costs.switch_s / slot.slice_s : 1.0;
      useful = util / running_here * eff;
    }
    DeviceTypeId type = c.devices[d].type;
    busy_by_type[type] += slot.count > 0;
    effective_by_type[type] += useful;
    if (c.type_of(d).kind == DeviceKind::kGpu) {
      busy_gpus += slot.count > 0;
      effective += useful;
      kernel_busy += kernel_busy_here < 0 ? useful : kernel_busy_here;
    }
  }
  INVARIANT(busy_gpus == s.busy_gpus);
  INVARIANT(std::fabs(effective - s.effective_gpus) < 1e-6);
  // What nvidia-smi would show (docs/outputs.md#utilization); measured pairs under the slide's
  // line are not recomputed here (kernel_busy_here stays the useful work for them).
  if (s.config.interference_pairs.complete || s.config.interference_pairs.empty()) {
    INVARIANT(std::fabs(kernel_busy - s.kernel_busy_gpus) < 1e-6);
  }
  INVARIANT(busy_by_type == s.busy_by_type);
  for (std::size_t t = 0; t < effective_by_type.size(); ++t)
    INVARIANT(std::fabs(effective_by_type[t] - s.effective_by_type[t]) < 1e-6);
  // Node cores and memory: what the holders' workers take (on their devices' nodes, or a host
  // task's nodes) is what the ledger says is gone, and never more than the node has.
  std::vector<double> cores_taken(c.nodes.size(), 0.0);
  std::vector<double> memory_taken(c.nodes.size(), 0.0);
  double cores_held = 0;
  // Jobs: gangs whole, progress monotone and bounded.
  for (JobId j = 0; j < s.jobs.size(); ++j) {
    const JobState& job = s.jobs[j];
    const JobRequest& req = s.workload->jobs[j].request;
    // What SimState keeps aside (sim_state.h): an entry exactly for the jobs whose flag says so.
    INVARIANT(job.own_cores == s.cores.contains(j));
    INVARIANT(job.own_share == s.shares.contains(j));
    if (job.sliced) INVARIANT(s.slices.contains(j));
    INVARIANT(job.own_ps == s.ps_shards.contains(j));
    INVARIANT(job.crowded == s.crowded.contains(j));
    // The device list keeps zero or one device in the record, more in a block (device_list.h).
    INVARIANT(job.devices.is_inline() == (job.devices.size() <= 1));
    // Crowded now exactly when running and another job runs on one of its devices; its time
    // alone is its run time less its time crowded, so between 0 and its run time.
    const bool alone_now = job.status == JobStatus::kRunning &&
                           std::all_of(job.devices.begin(), job.devices.end(),
                                       [&](DeviceId d) { return s.slots[d].running == 1; });
    INVARIANT(s.running_alone(j) == alone_now);
    if (job.crowded) {
      const SimState::Crowded& crowd = s.crowded.at(j);
      INVARIANT((crowd.since >= 0) == (job.status == JobStatus::kRunning && !alone_now));
      INVARIANT(crowd.since <= s.now);
    }
    INVARIANT(s.alone_time(j) >= 0);
    INVARIANT(s.alone_time(j) <= job.run_time + unsettled_run(job, s.now));
    // A profiler watches a job alone and in its own turns of a time-sliced device: at least its
    // time alone, at most its run time (1 us of rounding per crowded spell aside).
    INVARIANT(s.profiled_time(j) >= s.alone_time(j));
    INVARIANT(s.profiled_time(j) <= job.run_time + unsettled_run(job, s.now) + 1000);
    bool holds = job.status == JobStatus::kBinding || job.status == JobStatus::kStarting ||
                 job.status == JobStatus::kRunning || job.status == JobStatus::kSuspending ||
                 job.status == JobStatus::kMigrating || job.status == JobStatus::kResizing;
    const auto held = s.hosts.find(j);
    const std::vector<NodeId> no_hosts;
    const std::vector<NodeId>& hosts = held == s.hosts.end() ? no_hosts : held->second;
    std::vector<NodeId> worker_nodes = hosts;
    if (holds && is_host_task(req)) {
      INVARIANT(job.devices.empty());
      INVARIANT(hosts.size() == job.workers);
      INVARIANT(job.workers == req.workers);
    } else if (holds) {
      INVARIANT(hosts.empty());
      for (std::size_t i = 0; i < job.devices.size(); i += req.devices_per_worker)
        worker_nodes.push_back(c.devices[job.devices[i]].node);
      INVARIANT(job.devices.size() ==
                static_cast<std::size_t>(job.workers) * req.devices_per_worker);
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
    // A device job's workers hold its cores now (the request's unless set_cpus changed them);
    // a host task's the request's.
    const double worker_cores =
        is_host_task(req) ? s.details_of(j).cpus_per_worker : s.worker_cores(j);
    for (NodeId n : worker_nodes) {
      cores_taken[n] += worker_cores;
      memory_taken[n] += s.details_of(j).mem_gb_per_worker;
      cores_held += worker_cores;
    }
    // Parameter servers that hold cores (ps_placement.h): one node per shard while the job holds
    // its devices (not while binding), shard s with worker s mod w, nothing otherwise.
    if (holds && holds_ps_cores(req) && job.status != JobStatus::kBinding) {
      const std::span<const NodeId> ps_hosts = s.ps_hosts_of(j);
      INVARIANT(std::vector<NodeId>(ps_hosts.begin(), ps_hosts.end()) ==
                ps_nodes(c, job.devices, req.devices_per_worker, s.ps(j)));
    } else {
      INVARIANT(s.ps_hosts_of(j).empty());
    }
    for (NodeId n : s.ps_hosts_of(j)) {
      cores_taken[n] += s.ps_cores(j);
      cores_held += s.ps_cores(j);
    }
    running += job.status == JobStatus::kRunning;
    // Progress never goes back, except to the last checkpoint when a failure stops the job.
    const std::uint32_t failed =
        s.failures.jobs.empty() ? 0 : static_cast<std::uint32_t>(s.failures.jobs[j].failures);
    if (failed == last_failures_[j]) {
      INVARIANT(job.done >= last_done_[j] - 1e-9);
    } else {
      INVARIANT((job.done == s.failures.jobs[j].ckpt_done || job.status != JobStatus::kPending));
      last_failures_[j] = failed;
    }
    INVARIANT(job.done <= s.workload->jobs[j].iterations * (1 + 1e-9) + 1e-9);
    last_done_[j] = job.done;
  }
  INVARIANT(running == s.running);
  for (NodeId n = 0; n < c.nodes.size(); ++n) {
    INVARIANT(cores_taken[n] <= c.nodes[n].cpu_cores + 1e-6);
    INVARIANT(memory_taken[n] <= c.nodes[n].memory_gb + 1e-6);
    INVARIANT(std::fabs(c.nodes[n].cpu_cores - cores_taken[n] - s.node_cpu_free[n]) < 1e-6);
    INVARIANT(std::fabs(c.nodes[n].memory_gb - memory_taken[n] - s.node_mem_free[n]) < 1e-6);
  }
  INVARIANT(std::fabs(cores_held - s.cores_held) < 1e-6);
  // The job lists hold every job of their statuses, each once (View::pending_jobs ...).
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

void InvariantChecker::check_final(const SimState& s) const {
  for (JobId j = 0; j < s.jobs.size(); ++j) {
    if (s.jobs[j].status == JobStatus::kFinished) {
      INVARIANT(s.jobs[j].done == s.workload->jobs[j].iterations);
      INVARIANT(s.jobs[j].end >= s.workload->jobs[j].request.submit);
    }
  }
}

} // namespace dlsim::test
