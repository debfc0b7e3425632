// What a policy (or an observer) may read: a const view of the run. It shows what a real
// scheduler could measure -- requests, progress so far, measured time per iteration, device
// occupancy -- and the hidden truth (total work) only to policies registered as oracles.
#pragma once

#include "sim/runtime/sim_state.h"

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace dlsim {

class View {
public:
  // `observer`: the view that observers and checkers get, with raw() access to everything.
  View(const SimState& s, bool oracle, bool observer = false)
      : s_(s), oracle_(oracle), observer_(observer) {}

  [[nodiscard]] SimTime now() const { return s_.now; }
  [[nodiscard]] const Cluster& cluster() const { return *s_.cluster; }
  [[nodiscard]] const RuntimeConfig& config() const { return s_.config; }
  // Ids run 0..job_count()-1 in submission order; a job not yet submitted is in state kFuture,
  // and its request and name are hidden (below).
  [[nodiscard]] std::size_t job_count() const { return s_.jobs.size(); }
  // What job j asked for and its name. Throws ActionError for a job not yet submitted unless
  // this is an observer's view: a real scheduler learns of a job when it is submitted, so the
  // boundary is enforced like the oracle's (docs/policies.md#what-a-policy-sees).
  [[nodiscard]] const JobRequest& request(JobId j) const {
    if (s_.jobs[j].status == JobStatus::kFuture && !observer_) refuse_future(j);
    return s_.workload->jobs[j].request;
  }
  // The model job j runs as now: its request's, or, for a job whose batch size changes during
  // training, its current phase's (Workload::phases): what the job tells its scheduler when it
  // asks for the new batch size (docs/gavel.md#batch-sizes-that-change).
  [[nodiscard]] ModelId current_model(JobId j) const;
  // The details of a request this view gave (request(j) above).
  [[nodiscard]] const RequestDetails& details_of(const JobRequest& r) const {
    return s_.workload->details_of(r);
  }
  // The rest of what j asked for (workload.h RequestDetails), hidden the same way.
  [[nodiscard]] const RequestDetails& details(JobId j) const {
    if (s_.jobs[j].status == JobStatus::kFuture && !observer_) refuse_future(j);
    return s_.workload->details_of(s_.workload->jobs[j].request);
  }
  [[nodiscard]] std::string_view job_name(JobId j) const {
    if (s_.jobs[j].status == JobStatus::kFuture && !observer_) refuse_future(j);
    return s_.workload->job_names[j];
  }
  [[nodiscard]] const JobState& state(JobId j) const { return s_.jobs[j]; }
  // A host task's workers' nodes, one per worker, while it holds them; empty otherwise.
  [[nodiscard]] std::span<const NodeId> hosts(JobId j) const { return s_.hosts_of(j); }
  // What SimState keeps aside for the few jobs that have it (job_extras.h): the nodes of the
  // shards of a job whose parameter servers hold cores, while they hold them (empty otherwise),
  // and its cores per shard and per worker now; the shares of each device guaranteed and allowed
  // (the request's until Control::set_share); the time slice of a job placed by `timeslice`.
  [[nodiscard]] std::span<const NodeId> ps_hosts(JobId j) const { return s_.ps_hosts_of(j); }
  [[nodiscard]] double ps_cores(JobId j) const { return s_.ps_cores(j); }
  [[nodiscard]] double worker_cores(JobId j) const { return s_.worker_cores(j); }
  [[nodiscard]] double share_min(JobId j) const { return s_.share_min(j); }
  [[nodiscard]] double share_max(JobId j) const { return s_.share_max(j); }
  [[nodiscard]] double slice_s(JobId j) const { return s_.slice_s(j); }
  // Parameter-server shards now (the request's until Control::set_ps).
  [[nodiscard]] std::uint32_t ps(JobId j) const { return s_.ps(j); }
  // Time run alone on all its devices so far, and whether it runs alone now (SimState).
  [[nodiscard]] SimTime alone_time(JobId j) const { return s_.alone_time(j); }
  [[nodiscard]] bool running_alone(JobId j) const { return s_.running_alone(j); }
  [[nodiscard]] bool under_controller(JobId j) const { return s_.under_controller(j); }
  // The queues the trace names, flagged by whether any job uses one: configuration a cluster's
  // administrator creates before jobs arrive (Volcano queues), not knowledge of future jobs.
  [[nodiscard]] const std::vector<bool>& queues_used() const { return s_.queue_used; }
  // Names by id (users[request.user], queues[request.queue], models[request.model]).
  [[nodiscard]] const std::vector<std::string>& user_names() const { return s_.workload->users; }
  [[nodiscard]] const std::vector<std::string>& queue_names() const { return s_.workload->queues; }
  [[nodiscard]] const std::vector<std::string>& model_names() const { return s_.workload->models; }
  // A model's static features (family, parameters, FLOPs per sample, batch size, memory): what a
  // predictor reads from the computation graph. Empty features for model 0 (no model) and for
  // workloads made without a zoo.
  [[nodiscard]] const ModelFeatures& model_features(ModelId m) const {
    static const ModelFeatures no_features{};
    const auto& all = s_.workload->model_features;
    return m < all.size() ? all[m] : no_features;
  }
  // Seconds per iteration of each model on each device type: public model facts (the zoo), not
  // any job's length.
  [[nodiscard]] const PerfTable& perf() const { return s_.workload->perf; }
  [[nodiscard]] DeviceTypeId reference_device() const { return s_.workload->reference_device; }
  [[nodiscard]] std::uint32_t gpu_count() const { return s_.gpu_count; }
  // Devices of type t in the cluster, busy or not (O(1), unlike Cluster::count_of_type).
  [[nodiscard]] std::uint32_t devices_of_type(DeviceTypeId t) const {
    return s_.devices_of_type[t];
  }
  // Measured seconds per iteration while running (what Gandiva's introspection sees); 0 when
  // the job is not running.
  [[nodiscard]] double measured_iteration_s(JobId j) const;
  // The job's GPU utilization as a profiler measures it: its solo utilization, known once the
  // profiler has watched it for runtime.profile_s in total -- alone on all its devices, or in its
  // own turns on time-sliced devices (SimState::profiled_time); nullopt before.
  [[nodiscard]] std::optional<double> measured_gpu_util(JobId j) const;
  // When measured_gpu_util(j) will be known if the job keeps running as it does now: now when it
  // is, kNever when the profiler is not watching it now (not running, or packed).
  [[nodiscard]] SimTime profiled_at(JobId j) const;
  [[nodiscard]] const FreeIndex& free() const { return s_.free; }
  [[nodiscard]] const DeviceSlot& device(DeviceId d) const { return s_.slots[d]; }
  // Failed and not yet repaired (docs/failures.md): not free, and refused by every action.
  [[nodiscard]] bool device_down(DeviceId d) const {
    return !s_.failures.down.empty() && s_.failures.down[d] > 0;
  }
  [[nodiscard]] std::uint32_t down_devices() const { return s_.failures.down_devices; }
  [[nodiscard]] double node_cpu_free(NodeId n) const { return s_.node_cpu_free[n]; }
  [[nodiscard]] double node_mem_free(NodeId n) const { return s_.node_mem_free[n]; }
  // Nodes whose free devices, CPUs or memory changed and jobs whose status, devices or rate
  // changed, since a stamp the reader took (change_log.h, docs/runtime.md#what-changed).
  [[nodiscard]] const ChangeLogs& changes() const { return s_.changes; }
  [[nodiscard]] std::uint32_t pending_count() const { return s_.pending; }
  [[nodiscard]] std::uint32_t running_count() const { return s_.running; }
  // The runtime's job lists, each in the order jobs entered it (job_lists.h has the rules of a
  // walk): pending holds the submitted jobs that hold no running allocation (pending, binding,
  // suspended: pending_count() of them), in arrival order with preempted jobs at the back;
  // running every job holding its devices (starting, running, suspending, migrating, resizing);
  // finished the finished and cancelled ones, in the order they ended.
  [[nodiscard]] JobLists::Range pending_jobs() const { return s_.lists.range(JobList::kPending); }
  [[nodiscard]] JobLists::Range running_jobs() const { return s_.lists.range(JobList::kRunning); }
  [[nodiscard]] JobLists::Range finished_jobs() const { return s_.lists.range(JobList::kOver); }
  // Everything, the jobs' true lengths included: for observers and checkers, and for oracle
  // policies. Throws ActionError for a policy that is not registered as an oracle, so that the
  // oracle boundary is enforced, not a convention.
  [[nodiscard]] const SimState& raw() const;
  // Routes and the flows on each link (sim/network): what topology-aware placement reads. The
  // links carry flows only with network.contention on.
  [[nodiscard]] const NetworkModel* network() const { return s_.network; }

  // Device types job j may run on, in the order to try them: its constraint, or every GPU type
  // the cluster has whose memory holds the job's model, fastest for that model first.
  [[nodiscard]] std::span<const DeviceTypeId> compatible_types(JobId j) const;
  // How many of the job's workers fit on node n given its free devices of type t, CPUs and
  // memory; a host task's by CPUs and memory alone.
  [[nodiscard]] std::uint32_t workers_fitting_on(JobId j, NodeId n, DeviceTypeId t) const;
  // Nodes for every worker of host task j (job.h is_host_task), first fit in node id order (a
  // node takes as many workers as its free cores and memory hold), or nullopt when they do not
  // fit at once. What start(j, {}) uses (docs/runtime.md#host-tasks).
  [[nodiscard]] std::optional<std::vector<NodeId>> host_fit(JobId j) const;

  // Jobs that converge (docs/aiturbo.md#jobs-that-converge): whether j was given a loss curve,
  // its target loss (the user's, public), how many iterations apart its losses are observed, how
  // many have been observed so far (one per `every` iterations done) and observed loss i (at
  // iteration (i + 1) x every; i < loss_samples(j), else ActionError). The true curve is the
  // oracle's (oracle_loss_curve). A job without a curve has target 0 and no samples.
  [[nodiscard]] bool has_loss_curve(JobId j) const;
  [[nodiscard]] double loss_target(JobId j) const;
  [[nodiscard]] double loss_every(JobId j) const;
  [[nodiscard]] std::uint64_t loss_samples(JobId j) const;
  [[nodiscard]] double observed_loss(JobId j, std::uint64_t i) const;
  [[nodiscard]] const LossCurve& oracle_loss_curve(JobId j) const;

  // Oracle access (throws ActionError unless the policy is registered as an oracle): the
  // job's run time on the reference device with its requested workers, total and remaining.
  [[nodiscard]] bool is_oracle() const { return oracle_; }
  [[nodiscard]] double oracle_total_s(JobId j) const;
  [[nodiscard]] double oracle_remaining_s(JobId j) const;
  // The reference seconds each iteration done takes off oracle_remaining_s (which so falls at
  // the job's rate times this while it runs), or NaN for a job with phases, whose cost per
  // iteration changes as it goes.
  [[nodiscard]] double oracle_seconds_per_iteration(JobId j) const;

private:
  [[nodiscard]] const LossCurve* curve_of(JobId j) const;
  [[noreturn]] void refuse_future(JobId j) const;

  const SimState& s_;
  bool oracle_;
  bool observer_;
};

} // namespace dlsim
