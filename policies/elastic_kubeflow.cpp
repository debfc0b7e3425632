// Elastic-KubeFlow: "an enhanced K8S TF-operator" that scales jobs up when utilization is low and
// down when wait time is high (seed nthu-intelligent-system-for-ai, slides 13-14), in the three
// phases of the lab's public scheduler DRAGON (NTHU-LSALAB/DRAGON, pkg/controller.v1/DRAGON/
// scheduling/scheduling.go, SchedulingAlgorithm). At every decision:
//
// 1. Scale down. If the head of the waiting queue (arrival order) has priority >= high_priority
//    or has waited >= wait_s (DRAGON: 30 s), make room for its min_workers: visit the running
//    jobs in start order and remove their workers, last-added first, down to each job's
//    min_workers, never a worker on a node that holds one of that job's parameter servers
//    (DRAGON marks PS pods critical and drains the PS node last), until the head's min_workers
//    fit. If they cannot fit even then, nothing is removed and phase 2 is skipped (the head
//    blocks the queue, as in DRAGON). Either way this counts as an action.
// 2. Start. Unless phase 1 failed: start the first waiting job, in arrival order, whose
//    min_workers fit; it gets up to its requested workers, all on one node if one holds them
//    (the lowest id: DRAGON takes the first in Go's map order), else spread from the node where
//    most of its workers fit, then the others by id. Its first worker, and so its first
//    parameter server, is on that node (PS-aware: the servers sit with most of the workers).
//    Repeat while a job starts (DRAGON starts one per pass of its control loop).
// 3. Scale up. If nothing was done for >= idle_s (DRAGON: 60 s): grow the running jobs, in start
//    order, greedily to max_workers, each on its own nodes first, then the others by id.
//
// With tune_ps (Elastic-TensorFlow's auto-tuner, slide 17), a parameter-server job whose shape
// changed moves one server up or down when its time per iteration there, as measured or as
// predicted by a speed model fitted to what it measured, is at least 1% shorter (tune_ps below).
// Resizes pay runtime.resize's cost (checkpoint-restart, as DRAGON, or live).
#include "policies/elastic_kubeflow.h"

#include "policies/backfill_queue.h"
#include "policies/free_nodes.h"
#include "policies/placement.h"
#include "policies/speed_model.h"

#include "sim/runtime/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <vector>

namespace dlsim {

namespace {

// Built from the resolved parameters; the defaults are declared in elastic_kubeflow_policy().
struct ElasticKubeflowOptions {
  double wait_s = 30;
  double idle_s = 60;
  double high_priority = 1;
  bool tune_ps = false;
};

NodeId node_of_worker(const View& view, JobId j, std::uint32_t w) {
  const JobState& st = view.state(j);
  return view.cluster()
      .devices[st.devices[std::size_t{w} * view.request(j).devices_per_worker]]
      .node;
}

class ElasticKubeflow final : public Policy {
public:
  explicit ElasticKubeflow(ElasticKubeflowOptions o) : o_(o) {}

  void on_arrival(JobId j, const View& view) override {
    // A host task holds no device to scale: it starts on View::host_fit's nodes when they have
    // room (docs/runtime.md#host-tasks).
    if (is_host_task(view.request(j))) {
      host_waiting_.push_back(j);
      return;
    }
    const JobRequest& r = view.request(j);
    waiting_.push(j, r.min_workers * r.devices_per_worker);
  }
  void on_finish(JobId, const View& view) override {
    // running_ keeps over jobs until they are half of it (every walk skips them; a cancelled
    // job ends without on_finish), so a finish costs O(1) amortised, not a walk of the list.
    // to_tune_ skips them too (tune_ps).
    if (++finished_in_running_ * 2 > running_.size()) {
      std::erase_if(running_, [&](JobId v) { return is_over(view.state(v).status); });
      finished_in_running_ = 0;
    }
  }

  void schedule(Control& c) override {
    start_host_tasks(c, host_waiting_);
    const SimTime now = c.now();
    // Phase 1: a head job that is high-priority or has waited long enough.
    bool high = false;
    bool room = false;
    if (!waiting_.empty()) {
      const JobId head = waiting_.front();
      const JobRequest& r = c.request(head);
      high = r.priority >= o_.high_priority || now - r.submit >= wait_;
      if (high) {
        room = scale_down(c, head);
        last_action_ = now;
      }
    }
    // Phase 2: start waiting jobs in order, first fit. A start only takes resources, so the
    // jobs before it that did not fit still do not: the walk goes on after it instead of from
    // the front again, and steps over the jobs whose min_workers ask for more devices than any
    // type has free (try_start refuses them at once).
    if (!high || room) {
      waiting_.walk([&] { return most_free(c); },
                    [&](JobId j) {
                      if (!try_start(c, j)) return false;
                      last_action_ = now;
                      return true;
                    });
    }
    // Phase 3: nothing done for idle_s: grow.
    if (now - last_action_ >= idle_) {
      scale_up(c);
      last_action_ = now;
    }
    if (o_.tune_ps) tune_ps(c);
    // Wake-ups: when the head's wait reaches wait_s, and when the idle time does while some
    // job could still grow (never otherwise: a run with nothing to do must end).
    if (!waiting_.empty()) {
      const SimTime t = c.request(waiting_.front()).submit + wait_;
      if (t > now) c.wake_at(t);
    }
    if (last_action_ + idle_ > now && can_grow(c)) c.wake_at(last_action_ + idle_);
  }

private:
  // Whether a started job that is not over has fewer than max_workers. growable_ holds every
  // such job (and maybe others): a job's workers change only when this policy starts or resizes
  // it, and each of those adds it (note_shape). An entry found over or full is dropped, once
  // per addition, so this is O(1) amortised instead of a walk of every running job.
  bool can_grow(const View& c) {
    while (!growable_.empty()) {
      const JobId j = growable_.back();
      const JobState& st = c.state(j);
      if (!is_over(st.status) && st.workers < c.request(j).max_workers) return true;
      growable_.pop_back();
      in_growable_[j] = false;
    }
    return false;
  }

  // Job j was started or resized to `workers`: it may be able to grow or shrink, and its servers
  // may want tuning.
  void note_shape(const View& c, JobId j, std::uint32_t workers) {
    if (workers > c.request(j).min_workers) may_shrink_.emplace(start_seq_[j], j);
    if (j >= in_growable_.size()) in_growable_.resize(std::size_t{j} + 1, false);
    if (!in_growable_[j]) {
      in_growable_[j] = true;
      growable_.push_back(j);
    }
    if (o_.tune_ps) to_tune_.push_back(j);
  }

  // Phase 1 (DRAGON's ScaleDown). True when the head's min_workers fit, now or after the
  // removals it made.
  bool scale_down(Control& c, JobId head) {
    const JobRequest& hr = c.request(head);
    const std::uint32_t need = hr.min_workers;
    for (DeviceTypeId t : c.compatible_types(head)) {
      if (c.free().free(t) >= need * hr.devices_per_worker && fits_now(c, head, t, need))
        return true;
      // How many of the head's workers the free devices of type t hold (a node with fewer free
      // than a worker takes holds none), counted again on each node a removal frees devices on.
      std::uint64_t fit = 0;
      for_nodes_with_at_least(c.free(), t, hr.devices_per_worker, [&](NodeId n) {
        fit += c.free().free_on(n, t) / hr.devices_per_worker;
        return true;
      });
      plan_.reset(c);
      std::vector<std::pair<JobId, std::uint32_t>> shrunk; // job, workers left
      // The running jobs in start order, those that never had more than min_workers left out
      // (may_shrink_).
      for (auto it = may_shrink_.begin(); it != may_shrink_.end();) {
        if (fit >= need) break;
        const JobId v = it->second;
        const JobState& vs = c.state(v);
        const JobRequest& vr = c.request(v);
        if (is_over(vs.status)) {
          it = may_shrink_.erase(it);
          continue;
        }
        ++it;
        if (vs.status != JobStatus::kRunning || vs.type != t || vs.workers <= vr.min_workers)
          continue;
        std::vector<NodeId> ps_nodes;
        for (std::uint32_t s = 0; s < c.ps(v); ++s)
          ps_nodes.push_back(node_of_worker(c, v, s % vs.workers));
        std::uint32_t left = vs.workers;
        for (std::uint32_t w = vs.workers; w-- > 0;) {
          if (fit >= need || left <= vr.min_workers) break;
          const NodeId n = node_of_worker(c, v, w);
          if (std::find(ps_nodes.begin(), ps_nodes.end(), n) != ps_nodes.end()) continue;
          fit -= plan_.free_on(n, t) / hr.devices_per_worker;
          plan_.drop_worker(v, w);
          fit += plan_.free_on(n, t) / hr.devices_per_worker;
          --left;
        }
        if (left < vs.workers) shrunk.emplace_back(v, left);
      }
      if (fit < need) continue;
      plan_.commit(c, fmt::format("scale down for {}", c.job_name(head)));
      for (const auto& [v, left] : shrunk)
        note_shape(c, v, left);
      return true;
    }
    return false;
  }

  // Whether `need` workers of job j fit on the free devices of type t (CPUs and memory too).
  static bool fits_now(const View& c, JobId j, DeviceTypeId t, std::uint32_t need) {
    std::uint64_t fit = 0;
    if (need == 0) return true;
    for_nodes_with_at_least(c.free(), t, c.request(j).devices_per_worker, [&](NodeId n) {
      fit += c.workers_fitting_on(j, n, t);
      return fit < need;
    });
    return fit >= need;
  }

  // Phase 2 for one job (DRAGON's ScheduleJob): its requested workers on one node, else spread
  // from the node where most fit; started when at least min_workers are placed.
  // The nodes are those with room for a worker's devices (for_nodes_with_at_least), in id
  // order: on any other node no worker fits.
  bool try_start(Control& c, JobId j) {
    const JobRequest& r = c.request(j);
    for (DeviceTypeId t : c.compatible_types(j)) {
      if (c.free().free(t) < r.min_workers * r.devices_per_worker) continue;
      std::vector<DeviceId> devices;
      NodeId best = 0;
      std::uint32_t most = 0;
      bool one_node = false;
      for_nodes_with_at_least(c.free(), t, r.devices_per_worker, [&](NodeId n) {
        const std::uint32_t k = c.workers_fitting_on(j, n, t);
        if (k >= r.workers) {
          take_on_node(c, n, t, r.workers, r.devices_per_worker, devices);
          one_node = true;
          return false;
        }
        if (k > most) {
          most = k;
          best = n;
        }
        return true;
      });
      if (one_node) {
        c.start(j, devices, "fits on one node");
        started(c, j, r.workers);
        return true;
      }
      if (most == 0) continue;
      std::uint32_t placed = most;
      take_on_node(c, best, t, most, r.devices_per_worker, devices);
      for_nodes_with_at_least(c.free(), t, r.devices_per_worker, [&](NodeId n) {
        if (placed >= r.workers) return false;
        if (n == best) return true;
        const std::uint32_t k = std::min(c.workers_fitting_on(j, n, t), r.workers - placed);
        take_on_node(c, n, t, k, r.devices_per_worker, devices);
        placed += k;
        return true;
      });
      if (placed < r.min_workers) continue;
      c.start(j, devices, "spread from the node with the most room");
      started(c, j, placed);
      return true;
    }
    return false;
  }

  void started(const View& c, JobId j, std::uint32_t workers) {
    running_.push_back(j);
    if (j >= start_seq_.size()) start_seq_.resize(std::size_t{j} + 1, 0);
    start_seq_[j] = starts_++;
    note_shape(c, j, workers);
  }

  // The free devices of the type that has most.
  static std::uint32_t most_free(const View& view) {
    std::uint32_t most = 0;
    for (DeviceTypeId t = 0; t < static_cast<DeviceTypeId>(view.cluster().types.size()); ++t)
      most = std::max(most, view.free().free(t));
    return most;
  }

  // Phase 3 (DRAGON's ScaleUp): greedy growth to max_workers in start order.
  void scale_up(Control& c) {
    const Cluster& cl = c.cluster();
    for (JobId j : running_) {
      const JobState& st = c.state(j);
      const JobRequest& r = c.request(j);
      if (st.status != JobStatus::kRunning || st.workers >= r.max_workers) continue;
      if (c.free().free(st.type) < r.devices_per_worker) continue;
      std::vector<NodeId> order;
      for (std::uint32_t w = 0; w < st.workers; ++w) {
        const NodeId n = node_of_worker(c, j, w);
        if (std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);
      }
      const std::size_t own = order.size();
      for (NodeId n = 0; n < cl.nodes.size(); ++n) {
        if (std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(own), n) ==
            order.begin() + static_cast<std::ptrdiff_t>(own))
          order.push_back(n);
      }
      std::vector<DeviceId> devices(st.devices.begin(), st.devices.end());
      std::uint32_t workers = st.workers;
      for (NodeId n : order) {
        if (workers >= r.max_workers) break;
        const std::uint32_t k =
            std::min(c.workers_fitting_on(j, n, st.type), r.max_workers - workers);
        take_on_node(c, n, st.type, k, r.devices_per_worker, devices);
        workers += k;
      }
      if (workers == st.workers) continue;
      c.resize(j, devices, "grow after idle");
      note_shape(c, j, workers);
    }
  }

  // Elastic-TensorFlow's auto-tuner, from what it measured: each PS job's time per iteration at
  // each (workers, servers) it ran at feeds its speed model (policies/speed_model.h, prior t0 =
  // the zoo's time per iteration x requested workers), and the tuner steps one server at a time:
  // to the neighbour count (one fewer or one more, 1 to its workers) whose time, measured if it
  // ran there or else predicted, is at least 1% shorter than the one just measured. A job it
  // changes is looked at again once it runs at the new count.
  void tune_ps(Control& c) {
    std::vector<JobId> later;
    for (JobId j : to_tune_) {
      const JobState& st = c.state(j);
      const JobRequest& r = c.request(j);
      if (is_over(st.status) || r.ps == 0) continue;
      if (st.status != JobStatus::kRunning || !(c.measured_iteration_s(j) > 0)) {
        later.push_back(j); // still paying a start or resize: tune once it runs
        continue;
      }
      SpeedModel& m = speed_of(c, j);
      const std::uint32_t ps = c.ps(j);
      const double current = c.measured_iteration_s(j);
      observe_speed(m, st.workers, ps, current);
      std::uint32_t best = ps;
      double best_s = current;
      for (std::uint32_t k : {ps - 1, ps + 1}) {
        if (k < 1 || k > std::max<std::uint32_t>(1, st.workers)) continue;
        const double s = measured_or_predicted(m, st.workers, k);
        if (s < best_s) {
          best_s = s;
          best = k;
        }
      }
      if (best != ps && best_s < 0.99 * current) {
        c.set_ps(j, best,
                 fmt::format("auto-tuned: step {:.4f} s measured -> {:.4f} s", current, best_s));
        later.push_back(j);
      }
    }
    std::sort(later.begin(), later.end());
    later.erase(std::unique(later.begin(), later.end()), later.end());
    to_tune_ = std::move(later);
  }

  // Job j's speed model, started at its prior when first asked for.
  SpeedModel& speed_of(const View& v, JobId j) {
    auto it = speed_.find(j);
    if (it != speed_.end()) return it->second;
    const JobRequest& r = v.request(j);
    double iter = 0;
    for (DeviceTypeId t : v.compatible_types(j)) {
      iter = v.perf().iter_time(r.model, t);
      break;
    }
    return speed_.emplace(j, make_speed_model(iter * r.workers, 0, 0)).first->second;
  }

  // The mean measured time per iteration at (w, p) if the job ran there, else the model's.
  static double measured_or_predicted(const SpeedModel& m, std::uint32_t w, std::uint32_t p) {
    for (const SpeedModel::Shape& s : m.shapes) {
      if (s.workers == w && s.ps == p) return s.mean_s;
    }
    return predict_speed(m, w, p);
  }

  ElasticKubeflowOptions o_;
  SimTime wait_ = from_seconds(o_.wait_s, "policy.params.wait_s");
  SimTime idle_ = from_seconds(o_.idle_s, "policy.params.idle_s");
  BackfillQueue waiting_;           // arrival order, by min_workers' devices
  std::vector<JobId> host_waiting_; // host tasks not yet started, arrival order
  std::vector<JobId> running_;      // start order (DRAGON's running queue), over jobs skipped
  // The running jobs started or resized to more than min_workers, by start order (over jobs
  // dropped when met): the only ones scale_down can shrink.
  std::map<std::uint64_t, JobId> may_shrink_;
  std::vector<std::uint64_t> start_seq_; // [job] its place in start order
  std::uint64_t starts_ = 0;
  std::size_t finished_in_running_ = 0; // finishes since running_ last dropped its over jobs
  std::vector<JobId> growable_;       // a superset of the running jobs below max_workers (can_grow)
  std::vector<bool> in_growable_;     // by job id: in growable_
  std::vector<JobId> to_tune_;        // jobs whose shape changed (tune_ps only)
  std::map<JobId, SpeedModel> speed_; // tune_ps: what it measured of each PS job it tuned
  Plan plan_;                         // scale-down: the workers it would remove
  SimTime last_action_ = 0;
};

ElasticKubeflowOptions elastic_kubeflow_options(const PolicyParams& p) {
  ElasticKubeflowOptions o;
  o.wait_s = p.seconds("wait_s");
  o.idle_s = p.seconds("idle_s");
  o.high_priority = p.number("high_priority");
  o.tune_ps = p.flag("tune_ps");
  return o;
}

} // namespace

PolicyEntry elastic_kubeflow_policy() {
  return {"elastic-kubeflow",
          "DRAGON's Elastic-KubeFlow: scale running jobs down for a head job waiting >= wait_s, "
          "start on one node or spread, grow jobs after idle_s without action",
          false,
          {{"wait_s", ParamType::kSeconds, "30",
            "a head job waiting this long makes running jobs shrink (DRAGON: 30 s)"},
           // Above 0, or the scale-up phase would run at every decision.
           {"idle_s",
            ParamType::kSeconds,
            "60",
            "after this long without an action, running jobs grow to max_workers (DRAGON: 60 s)",
            {.min = 0, .above_min = true}},
           {"high_priority", ParamType::kNumber, "1",
            "a head job of at least this priority makes jobs shrink at once"},
           {"tune_ps", ParamType::kFlag, "false",
            "Elastic-TensorFlow's auto-tuner: set each parameter-server job's servers to the "
            "count with the shortest analytic step"}},
          [](const PolicySetup& s) {
            return std::make_unique<ElasticKubeflow>(elastic_kubeflow_options(s.params));
          }};
}

} // namespace dlsim
