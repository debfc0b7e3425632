// Gandiva's scheduler (Xiao et al., OSDI'18, sec. 5): reactive on arrivals and departures,
// introspective at every decision. Jobs are placed by affinity into device groups of their
// GPU-count class; when none is free they time-slice with the least-loaded group of their class,
// or migration makes room; packing, spreading, locality and grow-shrink adjust the groups as
// measurements and free devices allow. The policy sees only what a real system could measure.
#include "policies/gandiva/gandiva.h"

#include "policies/gandiva/affinity.h"
#include "policies/gandiva/exact_slices.h"
#include "policies/gandiva/groups.h"
#include "policies/gandiva/grow_shrink.h"
#include "policies/gandiva/migration.h"
#include "policies/gandiva/packing.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

namespace {

using namespace gandiva;

class Gandiva final : public Policy {
public:
  explicit Gandiva(Options options) : st_(options) {}

  void on_arrival(JobId j, const View& view) override {
    st_.ensure_sizes(view);
    st_.add_waiting(view, j);
  }

  // Also how a wrapper (policy `automl`) reports a job it cancelled.
  void on_finish(JobId j, const View& view) override {
    st_.ensure_sizes(view);
    forget(view, j);
  }

  // A slice must leave time to compute: the fluid share of k jobs is (1 - switch_s/slice_s)/k,
  // and with exact slices each turn begins with a suspend and a resume (docs/gandiva.md).
  void check_config(const RuntimeConfig& config) const override {
    const Costs& c = config.costs;
    if (!(st_.opt.slice_s > c.switch_s)) {
      throw InputError(fmt::format("policy.params.slice_s: a slice of {} s is not longer than "
                                   "costs.switch_s = {} s: jobs taking turns would never compute",
                                   st_.opt.slice_s, c.switch_s));
    }
    if (st_.opt.exact_slices && !(st_.opt.slice_s > c.suspend_s + c.resume_s)) {
      throw InputError(fmt::format(
          "policy.params.slice_s: with exact_slices, a slice of {} s is not longer than "
          "costs.suspend_s + costs.resume_s = {} s: each turn would end before it computes",
          st_.opt.slice_s, c.suspend_s + c.resume_s));
    }
  }

  void schedule(Control& control) override {
    st_.ensure_sizes(control);
    drop_over(control);
    record_rates(control, st_);
    if (packing()) judge_packs(control, st_);
    settle(control);
    place_waiting(control);
    spread(control, st_);
    if (st_.waiting.empty()) {
      improve_locality(control, st_);
      if (st_.opt.grow_shrink) grow(control, st_);
    }
    if (packing()) {
      record_rates(control, st_); // jobs placed just now are measured already (fluid rates)
      try_packing(control, st_);
    }
    settle(control); // members suspended at no cost are placed again at once
    request_wakeup(control);
    if (decision_probe != nullptr) decision_probe(control, st_);
  }

private:
  [[nodiscard]] bool packing() const { return st_.opt.packing && !st_.opt.exact_slices; }

  void forget(const View& view, JobId j) {
    st_.leave(j);
    if (!st_.note(j).waiting) return;
    for (auto it = st_.waiting.begin(); it != st_.waiting.end(); ++it) {
      if (it->second == j) {
        st_.stop_waiting(view, it);
        break;
      }
    }
  }

  // Jobs that ended (finished, or cancelled by a wrapper that did not say so) leave their group
  // or the waiting jobs. Only a job whose status changed since the last call can have ended
  // since (the runtime's job log); forgetting is the same in any order.
  void drop_over(const View& view) {
    gone_.clear();
    auto check = [&](JobId j) {
      if (!is_over(view.state(j).status)) return;
      if (st_.group_of(j) != kNoGroup || st_.note(j).waiting) gone_.push_back(j);
    };
    const ChangeLog& log = view.changes().jobs;
    if (!log.for_each_since(over_stamp_, check)) {
      for (const auto& [gid, g] : st_.groups) {
        for (JobId m : g.members)
          check(m);
      }
      for (const auto& [seq, j] : st_.waiting)
        check(j);
    }
    over_stamp_ = log.stamp();
    for (JobId j : gone_)
      forget(view, j);
  }

  void settle(Control& control) {
    if (st_.opt.exact_slices) {
      rotate_slices(control, st_);
    } else {
      settle_parked(control, st_);
    }
  }

  // Waiting jobs in arrival order: free devices by affinity, else time-slicing with the
  // least-loaded group of their class, else migration to make room. Jobs that still wait are
  // tried again at the next decision.
  void place_waiting(Control& control) {
    if (st_.waiting.empty()) return;
    if (st_.opt.grow_shrink) shrink_grown(control, st_);
    std::set<std::pair<std::uint32_t, std::uint32_t>> no_room; // (class, devices per worker)
    // The walk passes over the kinds of job (job_kind.h) that found nothing since the last time
    // anything was placed: a later job of the same kind would find nothing too (the tries read
    // only its kind and the cluster and groups, which only a placement changes, and have no
    // effect when they fail). Under a standing queue this is most of the queue. Only the job at
    // hand leaves st_.waiting in the loop.
    WaitingKinds::Walk walk(st_.waiting_kinds());
    while (const std::optional<WaitingKinds::Entry> next = walk.next()) {
      const auto entry = *next;
      JobId j = entry.second;
      if (control.state(j).status != JobStatus::kPending &&
          control.state(j).status != JobStatus::kSuspended)
        continue;
      const JobRequest& req = control.request(j);
      if (is_host_task(req)) {
        // No device, so no group: it starts on View::host_fit's nodes when they have room
        // (docs/runtime.md#host-tasks).
        if (control.host_fit(j)) {
          control.start(j, {});
          st_.stop_waiting(control, st_.waiting.find(entry));
          walk.placed(); // it took cores and memory
        }
        continue;
      }
      if (auto devices = affinity_place(control, st_, j, req.workers)) {
        start_group(control, st_, j, std::move(*devices));
        st_.stop_waiting(control, st_.waiting.find(entry));
        walk.placed();
        continue;
      }
      if (join_least_loaded(control, st_, j)) {
        st_.stop_waiting(control, st_.waiting.find(entry));
        if (st_.opt.exact_slices) rotate_slices(control, st_);
        walk.placed();
        continue;
      }
      // One defragmentation attempt per job shape and decision: if it fails for one job, it
      // fails for every later one of the same shape.
      auto shape = std::make_pair(req.devices(), req.devices_per_worker);
      if (!no_room.count(shape)) {
        if (defragment(control, st_, j)) {
          st_.stop_waiting(control, st_.waiting.find(entry));
          walk.placed();
          continue;
        }
        no_room.insert(shape);
      }
      walk.nothing_for_last();
    }
  }

  // The next slice end (exact slices) or the next time the profiler will have measured a pair
  // that may pack (State::profiling).
  void request_wakeup(Control& control) {
    SimTime next = st_.opt.exact_slices ? next_slice_end(control, st_) : kNever;
    if (packing() && !st_.profiling.empty()) next = std::min(next, st_.profiling.top().first);
    if (next == kNever || next == wake_) return;
    wake_ = next;
    control.wake_at(next);
  }

  State st_;
  SimTime wake_ = -1;
  std::uint64_t over_stamp_ = 0; // View::changes().jobs.stamp() at the last drop_over
  std::vector<JobId> gone_;      // drop_over's (storage kept)
};

// Reads slice_s, exact_slices, packing, pack_util_limit, migration and grow_shrink. Their
// declared ranges were checked by resolve_params; InputError naming slice_s when beyond dlsim's
// time limit.
gandiva::Options gandiva_options(const PolicyParams& params) {
  gandiva::Options o;
  o.slice_s = params.seconds("slice_s");
  check_seconds(o.slice_s, "policy.params.slice_s");
  o.exact_slices = params.flag("exact_slices");
  o.packing = params.flag("packing");
  o.pack_util_limit = params.number("pack_util_limit");
  o.migration = params.flag("migration");
  o.grow_shrink = params.flag("grow_shrink");
  return o;
}

} // namespace

PolicyEntry gandiva_policy() {
  return {
      "gandiva",
      "Gandiva: affinity placement by GPU-count class, time-slicing of same-class jobs when "
      "jobs wait, packing kept only when measured better, migration (spread, defragment, "
      "locality), grow-shrink of elastic jobs",
      false,
      {{"slice_s",
        ParamType::kSeconds,
        "60",
        "time slice of jobs sharing devices, s (Gandiva: 60 s)",
        {.min = 0, .above_min = true}},
       {"exact_slices", ParamType::kFlag, "false",
        "emit every slice as suspend/resume instead of the fluid 1/k share"},
       {"packing", ParamType::kFlag, "true",
        "try packing pairs of time-sliced jobs; unpack when measured worse"},
       {"pack_util_limit",
        ParamType::kNumber,
        "1.0",
        "pack only pairs whose summed GPU utilization is at most this",
        {.min = 0}},
       {"migration", ParamType::kFlag, "true",
        "migrate to spread over-subscribed groups, defragment and improve locality"},
       {"grow_shrink", ParamType::kFlag, "true",
        "grow elastic jobs onto idle devices, shrink them when jobs wait"}},
      [](const PolicySetup& s) { return std::make_unique<Gandiva>(gandiva_options(s.params)); }};
}

} // namespace dlsim
