// Tiresias' Discretized 2D-LAS (Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep
// Learning", NSDI'19, section 3.2): a job's attained service is GPUs x time run (GPU-seconds);
// K queues split it at thresholds; a new job enters the first queue and moves down one queue each
// time its attained service passes that queue's threshold. Queues are served in priority order,
// FIFO within a queue; a job preempts only jobs of lower queues. The starvation guard (the paper's
// PROMOTEKNOB) moves a waiting job back to the first queue once it has waited longer than
// promote_knob times the time it has run since it last entered that queue. docs/policies.md.
#include "policies/tiresias.h"

#include "policies/held_runs.h"
#include "policies/priority_pass.h"
#include "policies/waiting_index.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace dlsim {

namespace {

class Tiresias final : public Policy {
public:
  Tiresias(Placement placement, TiresiasOptions options)
      : placement_(placement), options_(std::move(options)) {}

  void on_arrival(JobId j, const View& view) override {
    if (jobs_.size() < view.job_count()) jobs_.resize(view.job_count());
    // A host task attains no device service: it starts on View::host_fit's nodes when they have
    // room and is never preempted (docs/runtime.md#host-tasks).
    if (is_host_task(view.request(j))) {
      host_waiting_.push_back(j);
      return;
    }
    Info& info = jobs_[j];
    info.queue = 0;
    info.seq = ++seq_;
    info.key = {0, kWaiting, info.seq, j};
    order_.insert(info.key);
    info.waits = true;
    info.devices = view.request(j).devices();
    info.shape = waiting_.number_of(job_shape(view, j));
    waiting_.insert(info.key, info.shape);
    demand_ += info.devices;
  }

  void on_finish(JobId j, const View& view) override {
    if (is_host_task(view.request(j))) return;
    Info& info = jobs_[j];
    leave_order(info);
    info.waits = false;
    holders_.erase(j);
    drop_promotion(j);
    unwatch(j);
    demand_ -= view.request(j).devices();
  }

  // A holder that finished starting (or any other action) now accrues service at another pace.
  void on_action_done(JobId j, const View&) override {
    if (j < jobs_.size() && jobs_[j].watch_at != kUnwatched) changed_.push_back(j);
  }

  void schedule(Control& control) override {
    start_host_tasks(control, host_waiting_);
    for (JobId j : changed_)
      watch(control, j);
    changed_.clear();
    demote_running(control);
    promote_starved(control);

    // Queues in priority order, FIFO within a queue; jobs that hold devices come first in their
    // queue, so a job is never preempted by one of its own queue. With nobody waiting the pass
    // would keep every holder and start nothing; when every job fits the one device type
    // together, it keeps every holder and only the waiting jobs' order matters.
    if (order_.size() > holders_.size()) {
      const bool holders_kept = demand_ < single_type_devices(control);
      auto next = waiting_.begin();
      auto waiting_only = [&](WalkItem& w) {
        if (next == waiting_.end()) return false;
        w.job = std::get<3>(*next++);
        return true;
      };
      // Every job: the waiting ones and the holders, merged by key.
      auto job_of = [](const Key& k) { return std::get<3>(k); };
      // The waiting jobs that no round of the decision can give anything are passed over.
      auto fitting = [this](WaitingIndex<Key, JobShape>::const_iterator it, const WalkItem& item) {
        return waiting_.first_within(
            it, [this](const Key& k) { return jobs_[std::get<3>(k)].shape; },
            [&item](const JobShape& s) { return PriorityPass::passes_over(item, s); });
      };
      pass_.decide(control,
                   holders_kept ? PriorityWalk(waiting_only)
                                : held_.walk_with(waiting_, job_of, fitting),
                   holders_, /*preempt=*/true, holders_kept);
      pass_.apply(control, placement_, holders_);
      for (JobId j : pass_.suspended())
        now_waiting(control, j);
      for (JobId j : pass_.started())
        now_holding(control, j);
    }
    if (options_.running_first) requeue_running_first();
    request_wakeup(control);
  }

private:
  static constexpr std::uint8_t kHolding = 0;
  static constexpr std::uint8_t kWaiting = 1;
  // (queue, holding first, order of entering the queue, job)
  using Key = std::tuple<std::uint32_t, std::uint8_t, std::uint64_t, JobId>;

  struct Info {
    std::uint32_t queue = 0;
    std::uint64_t seq = 0;
    Key key{};
    double base_attained = 0; // attained service when the job last entered the first queue
    double base_run_s = 0;    // seconds run by then
    SimTime first_run = -1;   // first start since then (-1: not yet)
    SimTime promote_at = kNever;
    bool waits = false;            // in waiting_ (else in held_, if in order_)
    std::uint32_t devices = 0;     // asked for
    std::uint32_t shape = 0;       // its shape's number in waiting_
    SimTime watch_at = kUnwatched; // its entry in watch_
  };

  // watch_ holds every holder below the last queue, keyed by a time no later than the one at
  // which its service reaches its queue's threshold: the projection for a running holder (its
  // service grows by its devices per second until its status changes, and every change is
  // followed by a decision: an action done, or this policy's own start and suspend), the
  // earliest time for one that is not running. Only the first entries can cross, or wake the
  // policy first: a decision looks at those, not at every holder.
  static constexpr SimTime kUnwatched = -2;
  static constexpr SimTime kTestAlways = -1;
  // Entries this close to the decision's time are tested exactly (the projections are rounded
  // to the microsecond and the test has 1e-6 GPU-seconds of slack; a second is ample).
  static constexpr SimTime kWatchSlack = kMicrosPerSecond;

  void unwatch(JobId j) {
    Info& info = jobs_[j];
    if (info.watch_at != kUnwatched) watch_.erase({info.watch_at, j});
    info.watch_at = kUnwatched;
  }

  // (Re)computes j's entry from the current state.
  void watch(const View& view, JobId j) {
    unwatch(j);
    Info& info = jobs_[j];
    const auto last = static_cast<std::uint32_t>(options_.thresholds.size());
    if (holders_.count(j) == 0 || info.queue >= last) return;
    const JobState& st = view.state(j);
    if (st.status == JobStatus::kRunning) {
      double left = options_.thresholds[info.queue] - queue_service(view, j);
      info.watch_at =
          wakeup_after(view.now(), std::max(0.0, left) / static_cast<double>(st.devices.size()));
    } else {
      info.watch_at = kTestAlways;
    }
    watch_.emplace(info.watch_at, j);
  }

  // Takes info's key out of order_ and out of waiting_ or held_, whichever holds it.
  void leave_order(const Info& info) {
    order_.erase(info.key);
    if (info.waits)
      waiting_.erase(info.key, info.shape);
    else
      held_.erase(info.key);
  }

  // Moves j to its current queue and place in order_, and into or out of waiting_.
  void rekey(JobId j, std::uint8_t group) {
    Info& info = jobs_[j];
    leave_order(info);
    info.key = {info.queue, group, info.seq, j};
    order_.insert(info.key);
    info.waits = holders_.count(j) == 0;
    if (info.waits)
      waiting_.insert(info.key, info.shape);
    else
      held_.insert(info.key, j, info.devices);
  }

  // Attained service since the job last entered the first queue.
  double queue_service(const View& view, JobId j) const {
    return attained_now(view, j) - jobs_[j].base_attained;
  }

  void demote_running(const View& view) {
    const auto last = static_cast<std::uint32_t>(options_.thresholds.size());
    // The holders that may have crossed, in id order (the order of holders_, the order a test of
    // every holder would take: a demoted job enters the back of its new queue).
    const SimTime horizon = view.now() > kNever - kWatchSlack ? kNever : view.now() + kWatchSlack;
    testing_.clear();
    for (auto it = watch_.begin(); it != watch_.end() && it->first <= horizon; ++it)
      testing_.push_back(it->second);
    std::sort(testing_.begin(), testing_.end());
    for (JobId j : testing_) {
      Info& info = jobs_[j];
      bool moved = false;
      double service = queue_service(view, j);
      // 1e-6 GPU-seconds of slack: the wake-up is rounded up to the microsecond, and the
      // product devices x seconds may land a hair below the threshold.
      while (info.queue < last && service >= options_.thresholds[info.queue] - 1e-6) {
        ++info.queue;
        moved = true;
      }
      if (moved) {
        info.seq = ++seq_; // enters the back of its new queue
        rekey(j, options_.running_first ? kWaiting : kHolding);
      }
      watch(view, j);
    }
  }

  void promote_starved(const View& view) {
    while (!promotions_.empty() && promotions_.begin()->first <= view.now()) {
      JobId j = promotions_.begin()->second;
      promotions_.erase(promotions_.begin());
      Info& info = jobs_[j];
      info.promote_at = kNever;
      info.queue = 0;
      info.seq = ++seq_;
      info.base_attained = attained_now(view, j);
      info.base_run_s = run_time_now(view, j);
      info.first_run = -1;
      rekey(j, kWaiting);
    }
  }

  // queue_order: running-first. Renumbers every job in its current order, holders first, so
  // that a job started now falls behind those already running and a preempted one behind them
  // all. Linear in the jobs: used for cross-checks with the Tiresias simulator.
  void requeue_running_first() {
    std::vector<JobId> jobs;
    jobs.reserve(order_.size());
    for (const Key& k : order_)
      jobs.push_back(std::get<3>(k));
    for (std::uint8_t group : {kHolding, kWaiting}) {
      for (JobId j : jobs) {
        if ((holders_.count(j) > 0) != (group == kHolding)) continue;
        jobs_[j].seq = ++seq_;
        rekey(j, group);
      }
    }
  }

  void now_holding(const View& view, JobId j) {
    Info& info = jobs_[j];
    if (info.first_run < 0) info.first_run = view.now();
    drop_promotion(j);
    rekey(j, kHolding);
    watch(view, j);
  }

  void now_waiting(const View& view, JobId j) {
    Info& info = jobs_[j];
    rekey(j, kWaiting);
    unwatch(j);
    if (options_.promote_knob <= 0 || info.queue == 0) return;
    // Waiting grows at 1 s/s while the job waits, its run time does not: the guard fires at
    // now + (knob x executed - waited so far).
    double executed = run_time_now(view, j) - info.base_run_s;
    double waited = to_seconds(view.now() - info.first_run) - executed;
    double left = options_.promote_knob * executed - waited;
    // At least 1 us ahead, so that the wake-up below is a real future time.
    // A promotion beyond the time limit never comes (kNever, and no entry to drop later).
    info.promote_at = left > 0 ? wakeup_after(view.now(), left) : view.now() + 1;
    if (info.promote_at != kNever) promotions_.emplace(info.promote_at, j);
  }

  void drop_promotion(JobId j) {
    Info& info = jobs_[j];
    if (info.promote_at == kNever) return;
    promotions_.erase({info.promote_at, j});
    info.promote_at = kNever;
  }

  // Wakes the policy when a running job crosses its queue's threshold or a waiting one is due
  // for promotion, so that both happen on time and not only at the next arrival or finish.
  void request_wakeup(Control& control) {
    SimTime next = promotions_.empty() ? kNever : promotions_.begin()->first;
    // The earliest crossing among the running holders: every projection is within a
    // microsecond of the time computed now, so only the entries within kWatchSlack of the
    // first running one can be the earliest; those are computed now, as for every holder.
    SimTime first = kNever;
    for (auto it = watch_.begin(); it != watch_.end(); ++it) {
      const auto [at_watch, j] = *it;
      if (first != kNever && at_watch > first) break;
      const JobState& st = control.state(j);
      if (st.status != JobStatus::kRunning) continue;
      if (first == kNever) {
        if (at_watch == kNever) break;
        first = at_watch > kNever - kWatchSlack ? kNever - 1 : at_watch + kWatchSlack;
      }
      double left = options_.thresholds[jobs_[j].queue] - queue_service(control, j);
      SimTime at =
          wakeup_after(control.now(), std::max(0.0, left) / static_cast<double>(st.devices.size()));
      next = std::min(next, at);
    }
    if (next == kNever || next <= control.now()) return;
    if (wake_ > control.now() && wake_ <= next) return; // an earlier or equal wake-up is due
    wake_ = next;
    control.wake_at(next);
  }

  Placement placement_;
  TiresiasOptions options_;
  PriorityPass pass_;               // its buffers are reused from one decision to the next
  std::vector<JobId> host_waiting_; // host tasks not yet started (kept out of the pass)
  std::vector<Info> jobs_;
  std::set<Key> order_;                            // every arrived, unfinished job
  WaitingIndex<Key, JobShape> waiting_;            // the jobs of order_ not in holders_
  HeldRuns<Key> held_;                             // the jobs of order_ in holders_
  std::uint64_t demand_ = 0;                       // devices asked for by the jobs of order_
  std::set<std::pair<SimTime, JobId>> watch_;      // holders that may cross (see Info::watch_at)
  std::vector<JobId> changed_;                     // holders whose action completed
  std::vector<JobId> testing_;                     // scratch: the holders a decision tests
  HolderSet holders_;                              // started or running, by this policy
  std::set<std::pair<SimTime, JobId>> promotions_; // starvation guard deadlines
  std::uint64_t seq_ = 0;
  SimTime wake_ = -1;
};

} // namespace

PolicyEntry tiresias_policy() {
  return {"tiresias",
          "Tiresias discretized 2D-LAS: queues by attained GPU-seconds, FIFO within a queue, "
          "preemption across queues",
          false,
          // 2 queues split at 3,600 GPU-seconds and no starvation guard: Tiresias' simulator
          // defaults (docs/policies.md).
          {{"thresholds",
            ParamType::kNumbers,
            "[3600]",
            "attained GPU-seconds at which a job moves down one queue; K = entries + 1 queues",
            {.min = 0, .above_min = true, .increasing = true}},
           {"promote_knob",
            ParamType::kNumber,
            "0",
            "starvation guard: back to the first queue after waiting longer than this many times "
            "its run time since it was last there (0 = off)",
            {.min = 0}},
           {"queue_order",
            ParamType::kText,
            "entry",
            "order within a queue: entry (FIFO by time of entering it) or running-first (running "
            "jobs ahead of waiting ones after every decision, as the Tiresias simulator)",
            {.choices = {"entry", "running-first"}}}},
          [](const PolicySetup& s) {
            return std::make_unique<Tiresias>(s.placement, tiresias_options(s.params));
          }};
}

TiresiasOptions tiresias_options(const PolicyParams& params) {
  TiresiasOptions o;
  o.thresholds = params.numbers("thresholds");
  for (double t : o.thresholds)
    check_seconds(t, "policy.params.thresholds");
  o.promote_knob = params.number("promote_knob");
  o.running_first = params.text("queue_order") == "running-first";
  return o;
}

} // namespace dlsim
