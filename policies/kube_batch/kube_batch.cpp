// The kube-batch / Volcano policy: one session per decision (the scheduler's runOnce,
// pkg/scheduler/scheduler.go): open a session on the current state, run the configured actions
// in order, then apply what the statements committed: evictions become suspensions, a ready
// job's tasks start it (or resume it), and without gang scheduling a job's tasks are bound one
// by one until all are placed.
#include "policies/kube_batch/kube_batch.h"

#include "policies/kube_batch/actions/actions.h"
#include "policies/kube_batch/config.h"
#include "policies/kube_batch/plugin.h"
#include "policies/kube_batch/session.h"
#include "policies/placement.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace dlsim {

namespace {

class KubeBatch final : public Policy {
public:
  explicit KubeBatch(kb::Config config) : config_(std::move(config)) {
    for (const auto& tier : config_.tiers) {
      kb::Tier t;
      for (const auto& options : tier) {
        plugins_.push_back(kb::make_plugin(options));
        t.plugins.push_back(plugins_.back().get());
      }
      tiers_.push_back(std::move(t));
    }
    group_pending_ = true;
    for (const auto& name : config_.actions) {
      actions_.push_back(kb::find_action(name));
      enqueue_ = enqueue_ || name == "enqueue";
      // allocate walks the pending jobs by group (actions/allocate.cpp, allocate_grouped); the
      // other actions that look at jobs (enqueue, preempt, reclaim) change them outside that walk.
      group_pending_ = group_pending_ && (name == "allocate" || name == "backfill");
    }
  }

  void on_arrival(JobId j, const View& view) override {
    if (!set_up_) set_up_queues(view);
    // A host task has no device for the session's tasks: it starts on View::host_fit's nodes
    // before each session (docs/runtime.md#host-tasks).
    if (is_host_task(view.request(j))) {
      host_waiting_.push_back(j);
      return;
    }
    arrivals_.push_back(j); // the session appends it at its next open
  }

  void schedule(Control& control) override {
    start_host_tasks(control, host_waiting_);
    // Every action acts only on a job with pending tasks (pending, suspended, or binding with
    // pods left: all counted by pending_count) or, with `enqueue`, not yet admitted, which is
    // pending too (only allocate gives devices, and only to admitted jobs): with none, the
    // session would do nothing.
    if (control.pending_count() == 0) return;
    // Jobs that ended (finished, failed, or stopped by the runtime) leave the session by the
    // runtime's job log.
    if (session_.live_jobs() == 0 && arrivals_.empty()) return;
    kb::SessionInputs in{&tiers_,
                         &queues_,
                         &queue_of_,
                         &arrivals_,
                         enqueue_,
                         group_pending_,
                         config_.elastic_at_min};
    kb::Session& s = session_;
    s.open(control, in);
    arrivals_.clear();
    for (kb::Action action : actions_)
      action(s);
    apply(s, control);
  }

private:
  // Queues from the configuration (or one per trace queue), and each trace queue's index. Only
  // the names that jobs use count (the workload may list an unused empty name).
  void set_up_queues(const View& view) {
    const auto& names = view.queue_names();
    std::vector<bool> used = view.queues_used();
    used.resize(std::max<std::size_t>(names.size(), 1), false);
    auto name_of = [](const std::string& n) { return n.empty() ? std::string("default") : n; };
    queue_of_.assign(used.size(), 0);
    if (config_.queues.empty()) {
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (!used[i]) continue;
        std::string name = name_of(names[i]);
        auto it = std::find_if(queues_.begin(), queues_.end(),
                               [&](const kb::QueueInfo& q) { return q.name == name; });
        if (it == queues_.end()) {
          queues_.push_back(kb::QueueInfo{name, 1, kb::Resources::infinite(), true});
          it = queues_.end() - 1;
        }
        queue_of_[i] = static_cast<std::uint32_t>(it - queues_.begin());
      }
    } else {
      std::vector<std::string> listed;
      for (const auto& q : config_.queues) {
        queues_.push_back(kb::QueueInfo{q.name, q.weight, q.capability, q.reclaimable});
        listed.push_back(q.name);
      }
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (!used[i]) continue;
        std::string name = name_of(names[i]);
        auto it = std::find(listed.begin(), listed.end(), name);
        if (it == listed.end()) {
          throw InputError(fmt::format(
              "policy.params.queues: the trace's queue '{}' is not listed (listed: {}); every "
              "queue a job names needs an entry, as a Volcano job needs its Queue",
              name, fmt::join(listed, ", ")));
        }
        queue_of_[i] = static_cast<std::uint32_t>(it - listed.begin());
      }
    }
    if (queues_.empty())
      queues_.push_back(kb::QueueInfo{"default", 1, kb::Resources::infinite(), true});
    set_up_ = true;
  }

  // What the session committed, turned into runtime actions.
  static void apply(const kb::Session& s, Control& control) {
    std::set<std::size_t> evicted;
    std::map<std::size_t, std::vector<std::uint32_t>> placed;
    for (const auto& op : s.committed()) {
      if (op.kind == kb::Session::Op::kEvict) evicted.insert(op.ref.job);
      if (op.kind == kb::Session::Op::kAllocate) placed[op.ref.job].push_back(op.ref.task);
    }
    for (std::size_t ji : evicted) {
      JobId id = s.job(ji).id;
      JobStatus st = control.state(id).status;
      if (st == JobStatus::kRunning || st == JobStatus::kStarting)
        control.suspend(id, "evicted by preempt or reclaim");
    }
    for (auto& [ji, tasks] : placed) {
      const kb::JobInfo& job = s.job(ji);
      const JobState& state = control.state(job.id);
      std::sort(tasks.begin(), tasks.end());
      std::vector<DeviceId> fresh;
      for (std::uint32_t k : tasks) {
        const auto& d = job.tasks[k].devices;
        fresh.insert(fresh.end(), d.begin(), d.end());
      }
      const std::size_t bound = state.devices.size() / job.devices_per_task;
      const std::size_t total = bound + tasks.size();
      std::vector<DeviceId> all = state.devices.to_vector();
      all.insert(all.end(), fresh.begin(), fresh.end());
      if (state.status == JobStatus::kSuspended) {
        control.resume(job.id, all);
      } else if (total == control.request(job.id).workers ||
                 (s.gang_ready_checked() && total >= job.min_member)) {
        control.start(job.id, all);
      } else {
        // No gang: the pods are bound as they are placed and the job waits for the rest.
        control.bind(job.id, fresh);
      }
    }
  }

  kb::Config config_;
  std::vector<std::unique_ptr<kb::Plugin>> plugins_;
  std::vector<kb::Tier> tiers_;
  std::vector<kb::Action> actions_;
  bool enqueue_ = false;
  bool group_pending_ = false; // the actions are only allocate and backfill
  std::vector<kb::QueueInfo> queues_;
  std::vector<std::uint32_t> queue_of_; // Workload::queues index -> queues_ index
  bool set_up_ = false;
  std::vector<JobId> arrivals_;     // submitted since the last session, increasing ids
  std::vector<JobId> host_waiting_; // host tasks not yet started, arrival order
  kb::Session session_; // reopened at every decision: the scheduler cache of its jobs and nodes
};

} // namespace

namespace {

// actions, tiers and queues, with kube-batch's default configuration (pkg/scheduler/util.go).
PolicyEntry kube_batch_entry(const std::string& name) {
  PolicyEntry e{
      name,
      "kube-batch / Volcano: per decision a session runs the configured actions with tiers of "
      "plugins (gang, priority, drf, proportion queues, binpack, nodeorder, predicates); paste a "
      "kube-batch config into actions and tiers",
      false,
      {{"actions", ParamType::kYaml, "\"allocate, backfill\"",
        "actions in the order they run, kube-batch syntax (enqueue, allocate, backfill, preempt, "
        "reclaim)"},
       {"tiers", ParamType::kYaml,
        "[{plugins: [{name: priority}, {name: gang}]}, {plugins: [{name: drf}, {name: "
        "predicates}, {name: proportion}, {name: nodeorder}]}]",
        "tiers of plugins, kube-batch syntax: [{plugins: [{name: gang, enablePreemptable: false, "
        "arguments: {...}}]}]; plugins: priority, gang, conformance, drf, predicates, proportion, "
        "nodeorder, binpack, overcommit"},
       {"queues", ParamType::kYaml, "[]",
        "Volcano queues: [{name, weight, capability: {nvidia.com/gpu, cpu, memory}, "
        "reclaimable}]; a job's queue is the trace's queue column (empty: default); [] gives "
        "every queue of the trace weight 1"},
       {"elastic_at_min", ParamType::kFlag, "false",
        "an elastic job's gang (minMember) is its min_workers, so it may start at that size and "
        "is never grown; false: its requested workers, so it runs at the size it asked for"}},
      [](const PolicySetup& s) { return std::make_unique<KubeBatch>(kb::parse_config(s.params)); }};
  if (name == "volcano")
    e.description = "the same policy as kube-batch, with the same parameters and defaults";
  return e;
}

} // namespace

PolicyEntry kube_batch_policy() {
  return kube_batch_entry("kube-batch");
}

PolicyEntry volcano_policy() {
  return kube_batch_entry("volcano");
}

} // namespace dlsim
