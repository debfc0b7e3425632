#include "policies/gavel/gavel_policy.h"

#include "policies/gavel/allocation.h"
#include "policies/planned_types.h"
#include "policies/priority_pass.h"
#include "policies/type_choice.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <tuple>

namespace dlsim {

namespace {

class GavelRounds final : public Policy {
public:
  GavelRounds(AllocationObjective objective, Placement placement, double round_s, double reset_s,
              bool merge_jobs, Rng rng)
      : objective_(objective), placement_(placement), round_s_(round_s), reset_s_(reset_s),
        merge_jobs_(merge_jobs), rng_(rng) {}

  void on_arrival(JobId j, const View& view) override {
    grow(view, j);
    learn_throughputs(view, j);
    // Gavel allocates accelerators: a job that asks for no device (a host task) is outside the
    // allocation, started when its nodes' cores and memory allow, and never moved.
    if (is_host_task(view.request(j))) {
      host_waiting_.push_back(j);
      return;
    }
    active_.push_back(j);
    need_update_ = true;
    // A new job starts with half a round on every type, as Gavel's (scheduler.py,
    // _reset_time_run_so_far: "ignore the initial time recorded for the job").
    for (std::size_t t = 0; t < types_; ++t) {
      job_time_[j * types_ + t] = round_s_ / 2;
      worker_time_[t] += round_s_ / 2;
    }
  }

  // A round must outlast the moves it may make: a job suspended and resumed (or migrated) at a
  // round pays that cost before it computes, so a shorter round moves jobs for ever and no job
  // ever finishes.
  void check_config(const RuntimeConfig& config) const override {
    const Costs& c = config.costs;
    const double move_s = std::max(c.suspend_s + c.resume_s, c.migrate_s);
    if (!(round_s_ > move_s)) {
      throw InputError(fmt::format("policy.params.round_s: a round of {} s is not longer than a "
                                   "move between rounds (costs.suspend_s + costs.resume_s, or "
                                   "costs.migrate_s: {} s): jobs would move and never compute",
                                   round_s_, move_s));
    }
  }

  void on_finish(JobId j, const View&) override {
    std::erase(active_, j);
    planned_[j] = kNoType;
    need_update_ = true;
  }

  void schedule(Control& control) override {
    start_host_tasks(control, host_waiting_);
    if (!active_.empty() && control.now() >= next_round_) {
      round(control);
      next_round_ = control.now() + from_seconds(round_s_);
      control.wake_at(next_round_);
    }
    realize_planned_types(control, planned_, plan_order_, placement_);
  }

private:
  // One round of Gavel's scheduler (scheduler.py, _schedule_jobs_on_workers): the time the round
  // that ends gave each job, the allocation X solved again when jobs came or went (allocation.h),
  // and the plan of the round from the priorities X / time received (plan()).
  void round(Control& control) {
    const SimTime now = control.now();
    // The round that ends: each job placed in it ran on its type for the round (Gavel adds the
    // micro-task's execution time to the job's and the type's time received).
    if (round_start_ >= 0) {
      const double elapsed = to_seconds(now - round_start_);
      for (JobId j : active_) {
        const std::int32_t t = planned_[j];
        if (t == kNoType || !is_holder(control.state(j))) continue;
        job_time_[j * types_ + static_cast<std::size_t>(t)] += elapsed;
        worker_time_[static_cast<std::size_t>(t)] += elapsed;
      }
    }
    round_start_ = now;
    // A job that changed its batch size since the last round (Shockwave's simulator sets
    // _need_to_update_allocation when one does).
    for (JobId j : active_) {
      if (control.current_model(j) != model_[j]) {
        learn_throughputs(control, j);
        need_update_ = true;
      }
    }
    if (need_update_ && (last_reset_ < 0 || to_seconds(now - last_reset_) >= reset_s_)) {
      reset_time_received(now);
      solve(control);
      need_update_ = false;
    }
    plan(control);
  }

  // Gavel's _update_priorities and _schedule_jobs_on_workers_helper: per type, the jobs in
  // order of X / (fraction of the type's time received), then deficit, then X; types in order,
  // fastest first (Gavel: V100, P100, K80; shuffled each round for the heterogeneity-agnostic
  // policies); a job is placed on the first type that still has room for all its devices.
  void plan(const View& view) {
    for (JobId j : active_)
      planned_[j] = kNoType;
    struct Entry {
      double priority, deficit, x;
      JobId job;
    };
    std::vector<std::uint32_t> left(types_);
    std::vector<double> speed(types_, 0.0);
    for (std::size_t t = 0; t < types_; ++t) {
      left[t] = view.devices_of_type(static_cast<DeviceTypeId>(t));
      for (JobId j : active_)
        speed[t] += throughput(j, t);
    }
    std::vector<std::size_t> order(types_);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return speed[a] > speed[b]; });
    if (objective_ == AllocationObjective::kMaxMinFairnessAgnostic) shuffle(std::span(order), rng_);
    plan_order_.clear();
    for (std::size_t t : order) {
      std::vector<Entry> entries;
      for (JobId j : active_) {
        const std::size_t k = j * types_ + t;
        double priority = 0;
        if (x_[k] > 0 && throughput(j, t) > 0) {
          const double fraction = worker_time_[t] > 0 ? job_time_[k] / worker_time_[t] : 0.0;
          priority = fraction > 0 ? x_[k] / fraction : x_[k] * 1e9;
        }
        entries.push_back({priority, deficit_[k], x_[k], j});
      }
      std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.priority, a.deficit, a.x) > std::tie(b.priority, b.deficit, b.x);
      });
      for (const Entry& e : entries) {
        if (planned_[e.job] != kNoType) continue;
        if (throughput(e.job, t) <= 0) continue;
        const std::uint32_t need = view.request(e.job).devices();
        if (need > left[t]) continue;
        left[t] -= need;
        // A job that came after the last solve has no X yet: Gavel's
        // _schedule_jobs_on_workers_helper counts its devices taken, and
        // _schedule_jobs_on_workers then gives it none (`job_id not in self._allocation`), so
        // they stay idle this round. (Only with reset_s > 0: otherwise every job was solved.)
        if (in_x_[e.job] == 0) continue;
        planned_[e.job] = static_cast<std::int32_t>(t);
        plan_order_.push_back(e.job);
      }
    }
    // Placed widest first within the plan, as Gavel assigns workers by decreasing scale factor
    // to keep multi-device jobs together.
    std::stable_sort(plan_order_.begin(), plan_order_.end(), [&](JobId a, JobId b) {
      return view.request(a).devices() > view.request(b).devices();
    });
  }

  // Gavel's _reset_time_run_so_far: what each job was owed under the old X since the last
  // reset, less what it got, adds to its deficit (a tie-breaker); the time counts restart.
  void reset_time_received(SimTime now) {
    const double since = last_reset_ < 0 ? 0.0 : to_seconds(now - last_reset_);
    std::fill(worker_time_.begin(), worker_time_.end(), 0.0);
    for (JobId j : active_) {
      for (std::size_t t = 0; t < types_; ++t) {
        const std::size_t k = j * types_ + t;
        deficit_[k] += x_[k] * since - (job_time_[k] - round_s_ / 2);
        job_time_[k] = round_s_ / 2;
        worker_time_[t] += job_time_[k];
      }
    }
    last_reset_ = now;
  }

  void solve(const View& view) {
    AllocationProblem p;
    p.jobs = active_.size();
    p.types = types_;
    for (std::size_t t = 0; t < types_; ++t)
      p.capacity.push_back(view.devices_of_type(static_cast<DeviceTypeId>(t)));
    for (JobId j : active_) {
      for (std::size_t t = 0; t < types_; ++t)
        p.throughput.push_back(throughput(j, t));
      p.scale.push_back(view.request(j).devices());
      p.weight.push_back(1.0);
    }
    if (objective_ == AllocationObjective::kFinishTimeFairness ||
        objective_ == AllocationObjective::kMinTotalDuration)
      add_progress(view, p);
    std::vector<double> x;
    if (merge_jobs_) {
      // One row per class of identical jobs, its X split equally among them: the same optimum
      // value, a possibly different optimal X (allocation.h, merge_identical).
      const MergedProblem m = merge_identical(p);
      x = split_merged(m, solve_allocation(m.problem, objective_));
    } else {
      x = solve_allocation(p, objective_);
    }
    for (JobId j : active_)
      in_x_[j] = 1;
    for (std::size_t i = 0; i < active_.size(); ++i)
      std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(i * types_), types_,
                  x_.begin() + static_cast<std::ptrdiff_t>(active_[i] * types_));
  }

  // Remaining iterations (oracle), time since arrival and, for finish-time fairness, the
  // finish time under the isolated share: the isolated time the work done so far would have
  // taken (accumulated at each solve from the previous isolated throughput, as
  // finish_time_fairness.py does) plus the rest at today's isolated throughput.
  void add_progress(const View& view, AllocationProblem& p) {
    const DeviceTypeId ref = view.reference_device();
    for (JobId j : active_) {
      const double it_ref = view.perf().iter_time(model_[j], ref);
      p.remaining.push_back(it_ref > 0 ? view.oracle_remaining_s(j) / it_ref : 0.0);
      p.since_start_s.push_back(to_seconds(view.now() - view.request(j).submit));
    }
    const std::vector<double> iso = isolated_throughputs(p);
    for (std::size_t i = 0; i < active_.size(); ++i) {
      const JobId j = active_[i];
      if (prev_remaining_[j] >= 0 && prev_iso_[j] > 0)
        cum_iso_[j] += (prev_remaining_[j] - p.remaining[i]) / prev_iso_[j];
      prev_remaining_[j] = p.remaining[i];
      prev_iso_[j] = iso[i];
      p.isolated_finish_s.push_back(iso[i] > 0 ? cum_iso_[j] + p.remaining[i] / iso[i] : 0.0);
    }
  }

  // Room for job ids up to j (ids are dense, in submission order).
  void grow(const View& view, JobId j) {
    if (types_ == 0) types_ = view.cluster().types.size();
    if (worker_time_.empty()) worker_time_.assign(types_, 0.0);
    const std::size_t n = static_cast<std::size_t>(j) + 1;
    if (planned_.size() >= n) return;
    planned_.resize(n, kNoType);
    model_.resize(n, 0);
    in_x_.resize(n, 0);
    x_.resize(n * types_, 0.0);
    rate_.resize(n * types_, 0.0);
    job_time_.resize(n * types_, 0.0);
    deficit_.resize(n * types_, 0.0);
    cum_iso_.resize(n, 0.0);
    prev_iso_.resize(n, 0.0);
    prev_remaining_.resize(n, -1.0);
  }

  // Iterations per second of job j on each type, from the model's measured speed (what Gavel's
  // throughput table holds), kept from its arrival. 0 on a type the job cannot use: one it is not
  // compatible with, or one whose nodes cannot hold its gang even when empty (two 1-GPU V100
  // nodes for a worker of 2 GPUs). The allocation would otherwise give it time there, and the
  // plan would place it there every round without it ever fitting.
  void learn_throughputs(const View& view, JobId j) {
    const JobRequest& req = view.request(j);
    const RequestDetails& rd = view.details(j);
    const Cluster& cluster = view.cluster();
    // A job whose batch size changes runs as another model from then on (View::current_model):
    // its throughputs are relearnt when it does, as Shockwave's scheduler rereads them.
    model_[j] = view.current_model(j);
    std::fill_n(rate_.begin() + static_cast<std::ptrdiff_t>(j * types_), types_, 0.0);
    for (DeviceTypeId t : view.compatible_types(j)) {
      const double it = view.perf().iter_time(model_[j], t);
      if (!(it > 0)) continue;
      if (cluster.workers_when_empty(t, req.devices_per_worker, rd.cpus_per_worker,
                                     rd.mem_gb_per_worker) < req.workers)
        continue;
      rate_[j * types_ + t] = 1.0 / it;
    }
  }

  double throughput(JobId j, std::size_t t) const { return rate_[j * types_ + t]; }

  AllocationObjective objective_;
  Placement placement_;
  double round_s_;
  double reset_s_;
  bool merge_jobs_;
  Rng rng_;
  std::size_t types_ = 0;
  std::vector<JobId> active_;       // submitted and not finished, in submission order
  std::vector<JobId> host_waiting_; // host tasks not started yet
  bool need_update_ = false;        // jobs came or went since X was computed
  SimTime next_round_ = 0;
  SimTime round_start_ = -1;
  SimTime last_reset_ = -1;
  // [job * types + type]: X; seconds received since the last reset; deficit.
  std::vector<double> x_, rate_, job_time_, deficit_;
  std::vector<double> worker_time_;   // [type]: seconds given out since the last reset
  std::vector<std::int32_t> planned_; // [job]: type this round, kNoType
  std::vector<JobId> plan_order_;
  // [job]: finish-time fairness' isolated time so far, and the last solve's isolated
  // throughput and remaining iterations (-1: none yet).
  std::vector<double> cum_iso_, prev_iso_, prev_remaining_;
  // The model each job's throughputs were learnt for (View::current_model), by JobId.
  std::vector<ModelId> model_;
  // 1 for a job the last solve allocated (had it arrived by then), by JobId.
  std::vector<std::uint8_t> in_x_;
};

std::vector<ParamSpec> round_params() {
  return {{"round_s",
           ParamType::kSeconds,
           "360",
           "seconds per round (Gavel's time_per_iteration, 360 s in its experiments)",
           {.min = 0, .above_min = true}},
          {"reset_s",
           ParamType::kSeconds,
           "0",
           "least seconds between recomputations of the allocation when jobs come or go "
           "(Gavel's minimum_time_between_allocation_resets)",
           {.min = 0}},
          {"merge_jobs", ParamType::kFlag, "false",
           "solve one LP row per class of identical jobs and split its allocation equally among "
           "them: the same optimum value, much smaller LPs under a queue, but not the simplex's "
           "own choice among tied optima (docs/gavel.md#solver-cost)"}};
}

std::unique_ptr<Policy> make(const PolicySetup& s, AllocationObjective o, const char* name) {
  const double round_s = s.params.seconds("round_s");
  check_seconds(round_s, "policy.params.round_s");
  const double reset_s = s.params.seconds("reset_s");
  check_seconds(reset_s, "policy.params.reset_s");
  return std::make_unique<GavelRounds>(o, s.placement, round_s, reset_s,
                                       s.params.flag("merge_jobs"), policy_rng(s, name));
}

} // namespace

PolicyEntry gavel_max_min_policy() {
  std::vector<ParamSpec> params = round_params();
  params.push_back({"hetero", ParamType::kFlag, "true",
                    "heterogeneity-aware (Gavel's max_min_fairness_perf): fairness in "
                    "throughput normalized by the equal share; false = equal time shares "
                    "(Gavel's max_min_fairness, its LAS baseline)"});
  return {"gavel-max-min",
          "Gavel's max-min fairness (LAS) over device types: per-round LP allocation realized "
          "by priorities in rounds, moving jobs between types",
          false, std::move(params), [](const PolicySetup& s) {
            return make(s,
                        s.params.flag("hetero") ? AllocationObjective::kMaxMinFairness
                                                : AllocationObjective::kMaxMinFairnessAgnostic,
                        "gavel-max-min");
          }};
}

PolicyEntry gavel_throughput_policy() {
  return {"gavel-throughput",
          "Gavel's maximum sum throughput: per-round LP allocation realized in rounds", false,
          round_params(), [](const PolicySetup& s) {
            return make(s, AllocationObjective::kMaxSumThroughput, "gavel-throughput");
          }};
}

PolicyEntry gavel_finish_time_policy() {
  return {"gavel-finish-time",
          "finish-time fairness (Themis) as Gavel solves it: per-round allocation minimising "
          "the largest ratio of finish time to isolated finish time",
          true, round_params(), [](const PolicySetup& s) {
            return make(s, AllocationObjective::kFinishTimeFairness, "gavel-finish-time");
          }};
}

PolicyEntry gavel_makespan_policy() {
  return {"gavel-makespan",
          "Gavel's minimum total duration (makespan): per-round allocation that lets every "
          "active job finish soonest",
          true, round_params(), [](const PolicySetup& s) {
            return make(s, AllocationObjective::kMinTotalDuration, "gavel-makespan");
          }};
}

} // namespace dlsim
