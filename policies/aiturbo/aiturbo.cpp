// AITurbo (Li et al., HPDC'21; seed aiturbo-predictability-scheduling) and the Optimus-like
// baseline it is compared with (Peng et al., EuroSys'18), on one machinery
// (docs/aiturbo.md#the-aiturbo-policy):
// - at every round (interval_s) each job's step model is fitted to its observed losses and its
//   speed model to its measured iteration times; a job is predictable while the trained
//   classifier (`classifier`, on its model, shape and observed losses so far) says so, it has at
//   least min_samples observed losses and its predicted length moved by at most `stability` since
//   the last round;
// - predictable jobs enter the MLFQ level of their predicted remaining GPU-seconds and are
//   ranked there by a Borda count over three criteria; unpredictable jobs enter the level of
//   their attained GPU-seconds (Tiresias' discretized LAS, arrival order inside a level) after
//   the predictable ones;
// - the merged queue is ranked at rounds (arrivals in between join it at their place) and walked
//   by the shared PriorityPass at every decision, preempting at rounds only;
// - running predictable jobs then change workers and parameter servers by the moves of
//   choose_moves (moves.h) whose gain in remaining service beats min_gain_s plus the pause.
// The Optimus-like mode treats every job with a fit as predictable, keeps one level ordered by
// predicted remaining time (jobs without a prediction after, in arrival order) and adjusts the
// same way.
#include "policies/aiturbo/aiturbo.h"

#include "policies/aiturbo/borda.h"
#include "policies/aiturbo/cpu_moves.h"
#include "policies/aiturbo/moves.h"
#include "policies/aiturbo/pauses.h"
#include "policies/aiturbo/rank_key.h"
#include "policies/aiturbo/ranked_queue.h"
#include "policies/blocked_held_runs.h"
#include "policies/placement.h"
#include "policies/priority_pass.h"
#include "policies/speed_model.h"
#include "sim/engine/error.h"
#include "sim/runtime/ps_placement.h"
#include "workloads/learn/predictability_classifier.h"
#include "workloads/learn/step_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <utility>

namespace dlsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kFitPoints = 32; // observed losses a fit reads, spread over the history

struct Options {
  double interval_s = 300;
  std::vector<double> thresholds;
  double min_samples = 8;
  double stability = 0.1;
  double min_gain_s = 60;
  bool adjust = true;
  bool optimus = false;
  // aiturbo: the trained classifier (docs/aiturbo.md#the-classifier); none = stability alone.
  std::optional<PredictabilityClassifier> classifier;
};

struct Track {
  StepFit fit;
  double pred = kInf; // predicted total iterations
  double prev_pred = kInf;
  std::uint64_t fitted = 0; // samples the fit has seen
  bool predictable = false;
  SpeedModel speed;
  CoreModel cores;        // its measured times by cores per server and per worker (cpu_moves.h)
  SimTime last_move = -1; // the last resize or set_ps; -1 = never
  bool live = false;      // arrived, not finished: in live_
  bool ranked_predictable = false; // in Aiturbo::pred_jobs_
  bool held = false;               // in holders_
  bool in_runs = false;            // in Aiturbo::held_ (live, held and holding devices)
  bool held_moved = false;         // in Aiturbo::held_moved_
};

class Aiturbo final : public Policy {
public:
  Aiturbo(Placement placement, Options o, std::vector<AiturboPrediction>* log = nullptr)
      : placement_(placement), o_(std::move(o)), log_(log) {}

  void on_arrival(JobId j, const View& view) override {
    if (tracks_.size() <= j) {
      tracks_.resize(j + 1);
      queue_.resize(j + 1);
    }
    const JobRequest& r = view.request(j);
    double iter = 0;
    for (DeviceTypeId t : view.compatible_types(j)) {
      iter = view.perf().iter_time(r.model, t);
      break;
    }
    // Prior: the zoo's time for the requested shape, all of it split over the workers.
    tracks_[j].speed = make_speed_model(iter * r.workers, 0, 0);
    tracks_[j].live = true;
    // Ids are in submission order, so arrivals come in id order: live_ stays sorted.
    live_.insert(std::upper_bound(live_.begin(), live_.end(), j), j);
    ++live_count_;
    // It joins the queue where a job with no service and no prediction goes (level 0, after the
    // jobs there), as the next ranking would put it unless it runs first.
    queue_.set_key(j, Key{0, 1, static_cast<double>(j), j});
    queue_.place(j, view.state(j).status, [&] { return job_shape(view, j); });
    demand_ += r.devices();
    if (is_host_task(r)) ++host_tasks_;
    changed_ = true;
  }
  void on_finish(JobId j, const View& view) override {
    // Left in live_ until half of it is finished jobs, then dropped together.
    tracks_[j].live = false;
    queue_.drop(j);
    pauses_.forget(j);
    --live_count_;
    if (2 * live_count_ < live_.size())
      std::erase_if(live_, [&](JobId k) { return !tracks_[k].live; });
    holders_.erase(j);
    tracks_[j].held = false;
    refresh_held(j);
    demand_ -= view.request(j).devices();
    if (is_host_task(view.request(j))) --host_tasks_;
    changed_ = true;
  }
  void on_action_done(JobId j, const View& view) override {
    pauses_.done(j, view.now()); // the end of a move's pause, if it was one of the moves
    changed_ = true;
  }

  void schedule(Control& c) override {
    const bool round = c.now() >= wake_;
    if (!changed_ && !round) return;
    changed_ = false;
    if (!round && nothing_can_start(c)) return;
    sync_queue(c);
    // Holders the full walk would not offer (paying an action): at a round it suspends them.
    std::size_t busy_holders = 0;
    if (round) {
      for (JobId j : jobs_to_update(c))
        update(c, j);
      for (JobId j : holders_) {
        if (!is_holder(c.state(j))) ++busy_holders;
      }
      order(c);
      rerank_held(c);
    }
    // Between rounds the queue keeps its ranking, arrivals joining it (on_arrival).
    // When every live job fits the one device type together, step 1 of the pass chooses every
    // job it is offered: every holder is kept and only the waiting jobs' order matters
    // (PriorityPass::decide with holders_kept); with none waiting the pass would keep every
    // holder and start nothing. At a round the full walk would also suspend the holders it
    // does not offer: only without any.
    const bool kept = busy_holders == 0 && demand_ < single_type_devices(c);
    bool pass = true;
    if (kept) {
      queue_.drop_not_waiting();
      pass = queue_.any_may_wait();
    } else {
      settle_held(c);
    }
    if (pass) decide(c, round, kept);
    if (round && o_.adjust) adjust(c);
    if (round && live_count_ > 0) {
      wake_ = c.now() + from_seconds(o_.interval_s);
      c.wake_at(wake_);
    }
  }

private:
  using Key = RankKey;
  using Offered = RankedQueue<Key>::Offered;
  using Waiting = RankedQueue<Key>::Index;

  // The pass over the ranked queue, and the holders and waiting jobs brought up to date with
  // what it did. With `kept` it walks the waiting jobs alone (PriorityPass::decide).
  void decide(Control& c, bool round, bool kept) {
    auto job_of = [](const Offered& o) { return o.key.job; };
    // The waiting jobs the walk offers: the queue's pending and suspended ones (not finished
    // since the queue was ranked, and not paying an action: that keeps its devices, and is
    // decided once it is done).
    const Waiting& waiting = queue_.offered();
    auto next = waiting.begin();
    auto waiting_only = [&](WalkItem& w) {
      if (next == waiting.end()) return false;
      w.job = job_of(*next++);
      return true;
    };
    // Those that no round of the decision can give anything are passed over.
    auto fitting = [&waiting](Waiting::const_iterator it, const WalkItem& item) {
      return waiting.first_within(
          it, [](const Offered& o) { return o.shape; },
          [&item](const JobShape& s) { return PriorityPass::passes_over(item, s); });
    };
    // Every job the ranking offers: the holders that hold devices (in runs) and the waiting
    // ones, merged by key. A running job this policy did not start would be offered nothing.
    pass_.decide(c, kept ? PriorityWalk(waiting_only) : held_.walk_with(waiting, job_of, fitting),
                 holders_, /*preempt=*/round, kept);
    pass_.apply(c, placement_, holders_, /*preempt=*/round);
    for (JobId j : pass_.started()) {
      tracks_[j].held = true;
      refresh_held(j);
    }
    // The suspended ones wait from now on, under their key of the ranking (placed in the
    // queue if they were not: they held devices since the ranking).
    for (JobId j : pass_.suspended()) {
      tracks_[j].held = false;
      refresh_held(j);
      queue_.place(j, c.state(j).status, [&] { return job_shape(c, j); });
    }
  }

  // Between rounds the pass suspends nothing, and a chosen waiting job starts only on free
  // devices (placement refuses a job that asks for more than are free): with no device free
  // and no host task live, a decision starts nothing and leaves nothing behind that a later one
  // reads (PriorityPass keeps no state between decisions that a skipped one would have set: the
  // holders' audit and the releasing jobs are read from the runtime at the next one).
  bool nothing_can_start(const View& v) const {
    if (host_tasks_ > 0) return false;
    for (std::size_t t = 0; t < v.cluster().types.size(); ++t) {
      if (v.free().free(static_cast<DeviceTypeId>(t)) > 0) return false;
    }
    return true;
  }

  // The queue's offered jobs brought up to date with the statuses now.
  void sync_queue(const View& v) {
    queue_.sync(v.changes().jobs, [&v](JobId j) { return v.state(j).status; });
  }

  // j's place in held_ may have changed (started, suspended or finished): it is put in its place
  // before the next walk that reads held_ (settle_held), not at every change while decisions
  // walk the waiting jobs alone.
  void refresh_held(JobId j) {
    Track& t = tracks_[j];
    if (t.held_moved) return;
    t.held_moved = true;
    held_moved_.push_back(j);
  }

  // j's place in held_ as its state says now: there while it is live, started by this policy
  // and holding devices (running or starting), under its key.
  void place_held(const View& v, JobId j) {
    Track& t = tracks_[j];
    const bool now = t.live && t.held && is_holder(v.state(j));
    if (now == t.in_runs) return;
    if (now)
      held_.insert(queue_.key(j), j, v.request(j).devices());
    else
      held_.erase(queue_.key(j));
    t.in_runs = now;
  }

  // held_ under the keys of the new ranking: the ones whose key moved (order()) taken out and put
  // back, or, when many moved, held_ built anew.
  void rerank_held(const View& v) {
    if (moved_held_.size() * 8 > held_.size()) {
      rank_held(v);
    } else {
      for (const auto& [old, j] : moved_held_) {
        held_.erase(old);
        held_.insert(queue_.key(j), j, v.request(j).devices());
      }
    }
    moved_held_.clear();
  }

  // held_ from the holders under their keys of the ranking (when many moved, or the runtime's
  // change log started over since the last look).
  void rank_held(const View& v) {
    held_.clear();
    ranked_held_.clear();
    // A job in held_ is a holder, or one that left the holders since (in held_moved_).
    for (JobId j : held_moved_)
      tracks_[j].in_runs = false;
    for (JobId j : holders_) {
      tracks_[j].in_runs = is_holder(v.state(j));
      if (tracks_[j].in_runs) ranked_held_.push_back(queue_.key(j));
    }
    std::sort(ranked_held_.begin(), ranked_held_.end());
    for (const Key& k : ranked_held_)
      held_.insert(k, k.job, v.request(k.job).devices());
    held_stamp_ = v.changes().jobs.stamp();
  }

  // held_ brought up to date before a walk reads it: the jobs marked since (refresh_held) and
  // the ones whose status changed since the last look (a job leaves or regains the holding
  // state only with a change the runtime logs) put in their place, each an insert or erase in
  // held_'s blocks, or held_ built anew when there are many.
  void settle_held(const View& v) {
    constexpr std::size_t kRebuildAfter = 64;
    const ChangeLog& log = v.changes().jobs;
    const bool logged = log.for_each_since(held_stamp_, [&](JobId j) {
      if (j < tracks_.size()) refresh_held(j);
    });
    if (!logged || held_moved_.size() > kRebuildAfter) {
      rank_held(v);
    } else {
      for (JobId j : held_moved_)
        place_held(v, j);
    }
    for (JobId j : held_moved_)
      tracks_[j].held_moved = false;
    held_moved_.clear();
    held_stamp_ = log.stamp();
  }

  // Calls f(j) for every live job in id order.
  template <class F>
  void for_live(F&& f) const {
    for (JobId j : live_) {
      if (tracks_[j].live) f(j);
    }
  }

  // Waiting, or about to (a checkpoint being written): a job the pass may offer as waiting
  // before the next round. The only jobs that are not and become so before the next round are
  // the ones suspended at a round (the policy preempts at rounds only) and arrivals.
  static bool may_wait(const JobState& st) {
    return st.status == JobStatus::kPending || st.status == JobStatus::kSuspended ||
           st.status == JobStatus::kSuspending;
  }

  // Refits j's step model to its observed losses and adds its measured speed.
  void update(const View& v, JobId j) {
    Track& t = tracks_[j];
    const JobState& st = v.state(j);
    if (st.status == JobStatus::kRunning && v.measured_iteration_s(j) > 0) {
      observe_speed(t.speed, st.workers, v.ps(j), v.measured_iteration_s(j));
      observe_cores(t.cores, st.workers, v.ps(j), v.ps_cores(j), v.worker_cores(j),
                    v.measured_iteration_s(j));
    }
    if (!v.has_loss_curve(j)) return;
    const std::uint64_t n = v.loss_samples(j);
    if (n == t.fitted || n < 3) return;
    const std::uint64_t m = std::min(n, kFitPoints);
    ks_.clear();
    ls_.clear();
    for (std::uint64_t i = 0; i < m; ++i) {
      const std::uint64_t idx = (i + 1) * n / m - 1; // evenly spread, the newest included
      ks_.push_back(static_cast<double>(idx + 1) * v.loss_every(j));
      ls_.push_back(v.observed_loss(j, idx));
    }
    t.fit = fit_step_model(ks_, ls_);
    t.prev_pred = t.pred;
    t.pred = predicted_iterations(t.fit, v.loss_target(j));
    t.fitted = n;
    if (o_.optimus) {
      t.predictable = std::isfinite(t.pred);
    } else {
      // The classifier last: it costs two more fits, and only a stable job needs its verdict.
      t.predictable = static_cast<double>(n) >= o_.min_samples && std::isfinite(t.pred) &&
                      std::isfinite(t.prev_pred) &&
                      std::abs(t.pred - t.prev_pred) <= o_.stability * t.pred &&
                      (!o_.classifier || classify(v, j, n));
    }
    if (log_ != nullptr && st.status == JobStatus::kRunning) {
      const std::int8_t classified =
          o_.optimus || !o_.classifier ? std::int8_t{-1} : std::int8_t{classify(v, j, n)};
      log_->push_back({j, v.now(), done_at(st, v.now()), run_time_at(st, v.now()), t.pred,
                       predict_speed(t.speed, st.workers, v.ps(j)), t.predictable, classified});
    }
  }

  // The classifier on j's features as it was trained (workloads/learn/predictability.h): the
  // model's, the requested workers and PS (dlsim's PS jobs are synchronous: sync = 1), and the
  // running state of its n observed losses so far (running_window).
  bool classify(const View& v, JobId j, std::uint64_t n) {
    const ModelFeatures& f = v.model_features(v.request(j).model);
    ModelInfo m;
    m.params_m = f.params_m;
    m.gflops_per_sample = f.gflops_per_sample;
    m.batch_size = f.batch_size;
    const RunningWindow win = running_window(n);
    window_.clear();
    for (std::uint64_t i = 0; i < win.count; ++i)
      window_.push_back(v.observed_loss(j, (i + 1) * win.stride - 1));
    const JobRequest& r = v.request(j);
    const std::vector<double> row = predictability_features(
        m, r.workers, r.ps, 1, window_, static_cast<double>(win.stride) * v.loss_every(j),
        v.loss_target(j));
    return predictable_probability(*o_.classifier, row) >= 0.5;
  }

  // Predicted seconds to finish at (w, p): remaining iterations x the speed model.
  double remaining_s(const View& v, JobId j, std::uint32_t w, std::uint32_t p) const {
    const Track& t = tracks_[j];
    const double left = std::max(0.0, t.pred - done_at(v.state(j), v.now()));
    return left * predict_speed(t.speed, w, p);
  }

  std::uint32_t level_of(double service) const {
    return static_cast<std::uint32_t>(
        std::upper_bound(o_.thresholds.begin(), o_.thresholds.end(), service) -
        o_.thresholds.begin());
  }

  // The ranking, (level, class 0 predictable / 1 not, key, job) of every live job, in queue_:
  // the predictable jobs and the ones the round refitted (touched_) ranked anew, and placed in
  // the queue if they may wait, dropped from it if not. Any other job has not run since it was
  // last ranked (jobs_to_update): its attained service, and so its key and whether it may wait,
  // are what they were.
  void order(const View& v) {
    // The predictable jobs, in id order: the last round's that still are, and the refitted ones
    // that became so.
    std::erase_if(pred_jobs_, [&](JobId j) {
      Track& t = tracks_[j];
      t.ranked_predictable = t.live && t.predictable;
      return !t.ranked_predictable;
    });
    const std::size_t before = pred_jobs_.size();
    for (JobId j : touched_) {
      Track& t = tracks_[j];
      if (t.predictable && !t.ranked_predictable) {
        t.ranked_predictable = true;
        pred_jobs_.push_back(j);
      }
    }
    const auto mid = pred_jobs_.begin() + static_cast<std::ptrdiff_t>(before);
    std::inplace_merge(pred_jobs_.begin(), mid, pred_jobs_.end());
    for (JobId j : touched_) {
      if (tracks_[j].predictable) continue;
      // Discretized LAS, as Tiresias: the level of the attained service, arrival order inside it
      // (job ids are in submission order). Optimus-like: one level.
      const std::uint32_t level = o_.optimus ? 0 : level_of(attained_at(v.state(j), v.now()));
      rank(v, j, Key{level, 1, static_cast<double>(j), j});
    }
    // The predictable jobs: remaining seconds, remaining GPU-seconds and (negated) time waited
    // since submission, lower is better on each (docs/aiturbo.md#borda-count).
    criteria_.assign(3, std::vector<double>(pred_jobs_.size()));
    for (std::size_t i = 0; i < pred_jobs_.size(); ++i) {
      const JobId j = pred_jobs_[i];
      const JobState& st = v.state(j);
      const JobRequest& r = v.request(j);
      const std::uint32_t w = st.workers > 0 ? st.workers : r.workers;
      const double rem = remaining_s(v, j, w, v.ps(j));
      criteria_[0][i] = rem;
      criteria_[1][i] = rem * w * r.devices_per_worker;
      criteria_[2][i] = -(to_seconds(v.now() - r.submit) - run_time_at(st, v.now()));
    }
    const std::vector<double> points = borda_points(criteria_);
    for (std::size_t i = 0; i < pred_jobs_.size(); ++i) {
      const JobId j = pred_jobs_[i];
      if (o_.optimus)
        rank(v, j, Key{0, 0, criteria_[0][i], j});
      else
        rank(v, j, Key{level_of(criteria_[1][i]), 0, -points[i], j});
    }
  }

  // Job j ranked under k: in the queue if it may wait, else out of it.
  void rank(const View& v, JobId j, const Key& k) {
    if (tracks_[j].in_runs && queue_.key(j) != k) moved_held_.emplace_back(queue_.key(j), j);
    queue_.set_key(j, k);
    if (may_wait(v.state(j)))
      queue_.place(j, v.state(j).status, [&] { return job_shape(v, j); });
    else
      queue_.drop(j);
  }

  // The live jobs a round refits (update()), in id order: every one at the first round and when
  // the runtime's job change log started over since the last round; else the holders and the
  // jobs whose status changed since the last round began. A job that did neither has not run
  // since it was last refitted (a job that runs holds devices of this policy): no new loss or
  // iteration time, so update() would change nothing.
  const std::vector<JobId>& jobs_to_update(const View& v) {
    touched_.clear();
    const ChangeLog& log = v.changes().jobs;
    const bool logged = round_stamped_ && log.for_each_since(round_stamp_, [&](JobId j) {
      if (j < tracks_.size() && tracks_[j].live) touched_.push_back(j);
    });
    if (logged) {
      // The log names each job once; the holders are in id order.
      std::sort(touched_.begin(), touched_.end());
      logged_.swap(touched_);
      touched_.clear();
      std::set_union(logged_.begin(), logged_.end(), holders_.begin(), holders_.end(),
                     std::back_inserter(touched_));
    } else {
      touched_.clear();
      for_live([&](JobId j) { touched_.push_back(j); });
    }
    round_stamp_ = log.stamp();
    round_stamped_ = true;
    return touched_;
  }

  // Resource adjustment of the running predictable jobs (moves.h): each job's remaining service
  // under every move it could make, the best moves chosen over all jobs, and those made. Only
  // a running job has a service (service_of), and every running job is a holder.
  void adjust(Control& c) {
    const bool waits = jobs_wait(c);
    services_.clear();
    touched_.assign(holders_.begin(), holders_.end()); // service_of may resize a holder
    for (JobId j : touched_) {
      if (std::optional<JobService> s = service_of(c, j, waits)) services_.push_back(*s);
    }
    std::uint32_t free_workers = 0;
    if (!waits) {
      for (std::size_t t = 0; t < c.cluster().types.size(); ++t)
        free_workers += c.free().free(static_cast<DeviceTypeId>(t));
    }
    for (const ChosenMove& m : choose_moves(services_, free_workers, o_.min_gain_s)) {
      make_move(c, m);
      // A move made pauses the job (its status leaves kRunning until on_action_done): observed.
      if (c.state(m.job).status != JobStatus::kRunning) {
        const bool cores = m.move == Move::kAddPsCpu || m.move == Move::kAddWorkerCpu;
        pauses_.issued(m.job, c.request(m.job).model,
                       cores ? PauseKind::kCores : PauseKind::kResize, c.now());
      }
    }
  }

  // Whether a live job is pending or suspended (every such job is in the queue: order(),
  // arrivals, suspensions).
  bool jobs_wait(const Control& c) {
    sync_queue(c);
    return !queue_.offered().empty();
  }

  // Job j's remaining service now and after each move it could make, if it is running,
  // predictable and not moved within interval_s. While jobs wait, a job holding more workers
  // than it asked for gives them back instead.
  std::optional<JobService> service_of(Control& c, JobId j, bool waits) {
    const JobState& st = c.state(j);
    const JobRequest& r = c.request(j);
    if (st.status != JobStatus::kRunning) return std::nullopt;
    // Devices beyond the request go back while jobs wait: the pass counts requests.
    if (waits && st.workers > r.workers) {
      shrink(c, j, r.workers, "aiturbo: jobs wait, back to the requested workers");
      return std::nullopt;
    }
    // Cores beyond the request (set_cpus) are kept: giving one back is a TensorFlow restart, and
    // a waiting job that needs them waits for them like for any held cores.
    const SimTime moved = tracks_[j].last_move;
    if (!tracks_[j].predictable || (moved >= 0 && c.now() - moved < from_seconds(o_.interval_s)))
      return std::nullopt;
    // The pause a move will likely cost, from the pauses of the moves made so far.
    const double pause = pauses_.estimate(r.model, PauseKind::kResize);
    JobService s;
    s.job = j;
    s.v = remaining_s(c, j, st.workers, c.ps(j));
    if (st.workers < r.max_workers && !waits)
      s.add_worker = remaining_s(c, j, st.workers + 1, c.ps(j)) + pause;
    if (st.workers > r.min_workers)
      s.remove_worker = remaining_s(c, j, st.workers - 1, c.ps(j)) + pause;
    if (c.ps(j) > 0 && c.ps(j) < st.workers && ps_shards_fit(c, j, c.ps(j) + 1))
      s.add_ps = remaining_s(c, j, st.workers, c.ps(j) + 1) + pause;
    if (c.ps(j) > 1 && ps_shards_fit(c, j, c.ps(j) - 1))
      s.remove_ps = remaining_s(c, j, st.workers, c.ps(j) - 1) + pause;
    // +CPU(ps), +CPU(worker): the speed model's time scaled by the step-time ratio estimated
    // from what the job measured at its cores (cpu_moves.h).
    const CpuMoves cpu =
        cpu_moves(c, j, tracks_[j].cores, s.v, pauses_.estimate(r.model, PauseKind::kCores));
    s.add_ps_cpu = cpu.add_ps_cpu;
    s.add_worker_cpu = cpu.add_worker_cpu;
    return s;
  }

  // Makes a chosen move, unless a move made before it took what it needs.
  void make_move(Control& c, const ChosenMove& m) {
    const JobState& st = c.state(m.job);
    switch (m.move) {
    case Move::kAddWorker:
      if (grow(c, m.job)) tracks_[m.job].last_move = c.now();
      break;
    case Move::kRemoveWorker:
      shrink(c, m.job, st.workers - 1,
             fmt::format("aiturbo: a worker for a job that gains more ({:.0f} s)", m.gain));
      tracks_[m.job].last_move = c.now();
      break;
    case Move::kAddPs:
    case Move::kRemovePs:
      // Moves made before this one may have taken the cores its shards need: ask again.
      if (!ps_shards_fit(c, m.job, m.move == Move::kAddPs ? c.ps(m.job) + 1 : c.ps(m.job) - 1))
        break;
      c.set_ps(m.job, m.move == Move::kAddPs ? c.ps(m.job) + 1 : c.ps(m.job) - 1,
               fmt::format("aiturbo: remaining service -{:.0f} s", m.gain));
      tracks_[m.job].last_move = c.now();
      break;
    case Move::kAddPsCpu:
    case Move::kAddWorkerCpu: {
      const bool ps = m.move == Move::kAddPsCpu;
      const double ps_cores = c.ps_cores(m.job) + (ps ? 1 : 0);
      const double worker_cores = c.worker_cores(m.job) + (ps ? 0 : 1);
      if (check_ps_cores(c, m.job, st.devices, holds_ps_cores(c.request(m.job)) ? c.ps(m.job) : 0,
                         ps_cores, worker_cores, true))
        break; // moves made before this one took the cores
      c.set_cpus(m.job, ps_cores, worker_cores,
                 fmt::format("aiturbo: one more core per {}: remaining service -{:.0f} s",
                             ps ? "parameter server" : "worker", m.gain));
      tracks_[m.job].last_move = c.now();
      break;
    }
    }
  }

  // One more worker on free devices of the job's type, its own nodes first.
  static bool grow(Control& c, JobId j) {
    const JobState& st = c.state(j);
    const JobRequest& r = c.request(j);
    std::vector<DeviceId> devices(st.devices.begin(), st.devices.end());
    std::vector<NodeId> nodes;
    for (DeviceId d : st.devices)
      nodes.push_back(c.cluster().devices[d].node);
    for (NodeId n = 0; n < c.cluster().nodes.size(); ++n)
      nodes.push_back(n);
    for (NodeId n : nodes) {
      if (c.workers_fitting_on(j, n, st.type) == 0) continue;
      take_on_node(c, n, st.type, 1, r.devices_per_worker, devices);
      // Its shards' cores (ps_placement.h) must fit beside the new worker too.
      if (!ps_cores_fit(c, j, devices)) {
        devices.resize(st.devices.size());
        continue;
      }
      c.resize(j, devices, "aiturbo: one more worker gains the most remaining service");
      return true;
    }
    return false;
  }

  // Whether a running job's shards, k of them, fit on its nodes (always for a job whose PS hold
  // no cores).
  static bool ps_shards_fit(const View& v, JobId j, std::uint32_t k) {
    const JobState& st = v.state(j);
    return !holds_ps_cores(v.request(j)) ||
           !check_ps_cores(v, j, st.devices, k, v.ps_cores(j), v.worker_cores(j), true);
  }

  static void shrink(Control& c, JobId j, std::uint32_t workers, const std::string& why) {
    const JobState& st = c.state(j);
    const std::uint32_t per = c.request(j).devices_per_worker;
    std::vector<DeviceId> kept(st.devices.begin(),
                               st.devices.begin() + static_cast<std::ptrdiff_t>(workers) * per);
    // Fewer workers stack its shards on fewer nodes (shard s with worker s mod w): keep the
    // workers when their cores do not fit there.
    if (!ps_cores_fit(c, j, kept)) return;
    c.resize(j, kept, why);
  }

  Placement placement_;
  Options o_;
  std::vector<AiturboPrediction>* log_; // null: not recording
  std::vector<Track> tracks_;
  PauseLog pauses_;            // what the moves made so far paused their jobs (pauses.h)
  std::vector<JobId> live_;    // arrived jobs in id order, finished ones until dropped
  std::size_t live_count_ = 0; // the live ones (Track::live)
  HolderSet holders_;
  PriorityPass pass_;
  SimTime wake_ = 0;
  bool changed_ = false;
  // Every job's key (the last ranking's, or an arrival's since) and the jobs that may wait
  // under it: those the last ranking found so (order()), arrivals and jobs suspended since.
  RankedQueue<Key> queue_;
  BlockedHeldRuns<Key> held_;     // the holders the walk offers (refresh_held), by key
  std::uint64_t held_stamp_ = 0;  // View::changes().jobs.stamp() when held_ was last audited
  std::vector<Key> ranked_held_;  // scratch for rank_held()
  std::vector<JobId> held_moved_; // jobs whose place in held_ may have changed (refresh_held)
  // The jobs in held_ whose key the round's ranking moved, under their old key (rerank_held()).
  std::vector<std::pair<Key, JobId>> moved_held_;
  std::vector<JobId> touched_;    // scratch: the jobs a round refits, the holders adjusted
  std::vector<JobId> logged_;     // scratch for jobs_to_update()
  std::uint64_t round_stamp_ = 0; // View::changes().jobs.stamp() when the last round began
  bool round_stamped_ = false;
  std::uint64_t demand_ = 0;     // devices the live jobs ask for
  std::size_t host_tasks_ = 0;   // live jobs that ask for no device (is_host_task)
  std::vector<JobId> pred_jobs_; // the live predictable jobs at the last ranking, in id order
  std::vector<std::vector<double>> criteria_;
  std::vector<double> ks_, ls_;
  std::vector<double> window_; // the losses the classifier reads
  std::vector<JobService> services_;
};

Options read_options(const PolicySetup& s, bool optimus) {
  Options o;
  o.optimus = optimus;
  o.interval_s = s.params.seconds("interval_s");
  check_seconds(o.interval_s, "policy.params.interval_s");
  o.min_gain_s = s.params.seconds("min_gain_s");
  o.adjust = s.params.flag("adjust");
  if (!optimus) {
    o.thresholds = s.params.numbers("thresholds");
    o.min_samples = s.params.number("min_samples");
    o.stability = s.params.number("stability");
    if (!s.params.text("classifier").empty()) {
      const PolicySetup::DataFile* file = s.data_file("classifier");
      if (file == nullptr)
        throw InputError(
            "policy.params.classifier: aiturbo needs the classifier file's text "
            "(dlsim run reads it; give classifier: \"\" for the stability rule alone)");
      o.classifier = parse_predictability_classifier(file->text, file->path);
    }
  }
  return o;
}

std::vector<ParamSpec> common_params() {
  return {{"interval_s",
           ParamType::kSeconds,
           "300",
           "seconds between rounds: models refitted, preemption, resource adjustment",
           {.min = 0, .above_min = true}},
          {"min_gain_s",
           ParamType::kSeconds,
           "60",
           "a move must cut the remaining service by more than this, beyond its pause",
           {.min = 0}},
          {"adjust", ParamType::kFlag, "true",
           "change running predictable jobs' workers and parameter servers"}};
}

} // namespace

PolicyEntry aiturbo_policy() {
  std::vector<ParamSpec> params = common_params();
  params.push_back({"thresholds",
                    ParamType::kNumbers,
                    "[3600, 36000]",
                    "MLFQ level limits in GPU-seconds: predicted remaining (predictable jobs) or "
                    "attained (the others)",
                    {.min = 0, .above_min = true, .increasing = true}});
  params.push_back({"min_samples",
                    ParamType::kNumber,
                    "8",
                    "observed losses a job needs before it may be predictable",
                    {.min = 3, .max = 1e6}});
  params.push_back({"stability",
                    ParamType::kNumber,
                    "0.1",
                    "largest relative change of the predicted length between two rounds for a "
                    "job to count as predictable",
                    {.min = 0, .max = 1, .above_min = true}});
  params.push_back({"classifier", ParamType::kDataFile,
                    "configs/models/predictability-classifier.txt",
                    "the trained predictability classifier (dlsim-predictability --out); \"\" = "
                    "the stability rule alone"});
  return {"aiturbo",
          "predictability-aware (AITurbo, HPDC'21): step and speed models fitted online, Borda "
          "count for predictable jobs, LAS for the others, one MLFQ, workers and PS adjusted by "
          "remaining-service gain",
          false, std::move(params), [](const PolicySetup& s) {
            return std::make_unique<Aiturbo>(s.placement, read_options(s, false));
          }};
}

std::unique_ptr<Policy> make_recording_aiturbo(const PolicySetup& setup, bool optimus,
                                               std::vector<AiturboPrediction>* log) {
  return std::make_unique<Aiturbo>(setup.placement, read_options(setup, optimus), log);
}

PolicyEntry optimus_policy() {
  return {"optimus",
          "Optimus-like (EuroSys'18): every job with a fitted loss curve ranked by predicted "
          "remaining time, workers and PS adjusted by remaining-service gain",
          false, common_params(), [](const PolicySetup& s) {
            return std::make_unique<Aiturbo>(s.placement, read_options(s, true));
          }};
}

} // namespace dlsim
