// The discrete-event runtime: applies events in (time, band, seq) order, keeps every running
// job's progress as a fluid with a rate, calls the policy once per timestamp, and tells the
// observers. It includes no policy: one is handed in behind the Policy interface.
#pragma once

#include "sim/engine/event_queue.h"
#include "sim/engine/rng.h"
#include "sim/network/network_model.h"
#include "sim/runtime/admission.h"
#include "sim/runtime/control.h"
#include "sim/runtime/ledger.h"
#include "sim/runtime/observer.h"
#include "sim/runtime/policy.h"
#include "sim/runtime/sim_state.h"

#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace dlsim {

struct PolicyInfo {
  std::string name;    // for error messages
  bool oracle = false; // may read the jobs' true durations
};

struct RunResult {
  SimTime end = 0;        // time of the last event applied (the makespan when all finished)
  bool hit_until = false; // stopped by --until
  std::uint64_t events = 0;
  std::uint32_t unfinished = 0; // neither finished nor cancelled
  // By job, for time-sliced jobs: the time each spent running while the other jobs on its
  // devices had their turns, to the microsecond (docs/outputs.md#queueing-delay). A job not
  // listed waited for no turn (a job that ended without waiting is not listed).
  std::unordered_map<JobId, SimTime> turn_waits;
};

// The time job j made progress in the run: its running time less its waits for other jobs'
// turns (docs/outputs.md#queueing-delay). After run(): every running job is settled.
inline SimTime progress_time(const SimState& s, const RunResult& r, JobId j) {
  SimTime t = s.jobs[j].run_time;
  if (!r.turn_waits.empty()) {
    auto it = r.turn_waits.find(j);
    if (it != r.turn_waits.end()) t -= it->second;
  }
  return t;
}

class Simulation {
public:
  Simulation(const Cluster& cluster, const Workload& workload, const RuntimeConfig& config,
             Policy& policy, PolicyInfo info);

  void add_observer(RunObserver* observer) {
    observers_.push_back(observer);
    if (observer->wants_job_events()) event_observers_.push_back(observer);
  }
  RunResult run(SimTime until = kNever);
  // Once the run is over: frees what only the run and its policy read (the job lists, the change
  // logs, the refresh stamps), so that the summary's vector of a value per job reuses their
  // memory instead of adding to it (docs/performance.md#what-the-loop-holds-per-job). The job
  // lists read empty afterwards; the jobs' records are as run() left them.
  void release_bookkeeping();
  [[nodiscard]] const SimState& state() const { return s_; }

private:
  friend class Control;

  // The one way a job's status changes: it keeps the job lists (job_lists.h) in step.
  void set_status(JobId j, JobStatus status) {
    s_.jobs[j].status = status;
    s_.lists.track(j, status);
    s_.changes.jobs.mark(j);
  }

  // Actions, checked by Control first (admission.h). A placement, fresh or a resume, of a
  // device job or a host task (job.h is_host_task): one path for both.
  void do_place(JobId j, WorkerPlaces at, double cost_s, JobStatus paying);
  void do_suspend(JobId j, std::string_view reason);
  void do_bind(JobId j, std::span<const DeviceId> devices);
  void do_unbind(JobId j);
  void do_cancel(JobId j, std::string_view reason);
  void do_move(JobId j, std::span<const DeviceId> devices, double cost_s, JobStatus paying);
  void do_set_share(JobId j, double share_min, double share_max, std::string_view reason);
  [[nodiscard]] double resize_cost(JobId j) const; // runtime.resize (elastic_actions.cpp)
  // A change of cores (Control::set_cpus): a checkpoint-restart, whatever runtime.resize says.
  [[nodiscard]] double cpu_resize_cost(JobId j) const;
  void do_set_cpus(JobId j, double ps_cores, double worker_cores, std::string_view reason);
  void wake_at(SimTime t);
  // Tells the observers that want job events; one branch when none does.
  void emit(JobId j, JobAction action, std::span<const DeviceId> devices,
            std::string_view reason = {}) {
    if (!event_observers_.empty()) emit_to_observers(j, action, devices, reason);
  }
  void emit_to_observers(JobId j, JobAction action, std::span<const DeviceId> devices,
                         std::string_view reason);
  [[noreturn]] void refuse(JobId j, const std::string& action, const std::string& reason) const;
  // Refuses `action` when it would count past `most` (JobState::kMaxPreemptions, kMaxMoves;
  // `count` is the job's count of such actions so far): the counters are bit-fields.
  void check_count(JobId j, std::uint64_t count, std::uint32_t most,
                   const std::string& action) const;

  // Events.
  void apply(const Event& e);
  void finish_job(JobId j);
  // Job j reached the start of its next phase (Workload::phases): its new rate, its next event.
  void next_phase(JobId j);
  void action_done(JobId j);

  // Occupancy (ledger.h) and progress.
  // A job's rate after it started running or its allocation changed: its devices' holders, or
  // the job alone when it is a host task (no device shares it).
  void refresh_job(JobId j);
  // Gives back all job j holds (ledger::release); the other holders of its devices get new
  // rates.
  void release(JobId j);
  // Opens or closes job j's spell of running alone on all its devices (JobState::alone_since).
  void update_alone(JobId j, bool running);
  void set_running(JobId j, bool running);
  void refresh_effective(DeviceId d, JobId leaving);
  void settle(JobId j);
  void refresh_rates(std::span<const DeviceId> devices);
  void reschedule(JobId j);
  [[nodiscard]] SimTime projected_finish(JobId j) const;
  // Every change that voids the job's projected finish other than reschedule(): bumps its
  // generation, and queues a checkpoint timer held back on the strength of that finish.
  void cancel_finish(JobId j) {
    ++s_.jobs[j].generation;
    if (s_.failures.checkpoints && s_.failures.jobs[j].held) queue_held_checkpoint(j);
  }
  void check_all_could_finish() const;
  void start_traffic(JobId j); // the job's flows, when network.contention is on

  // Failures, repairs and checkpoints (failure_events.cpp, docs/failures.md).
  void init_failures();
  void apply_failure_event(const Event& e);
  void fail_component(std::uint32_t component, SimTime duration);
  void repair_component(std::uint32_t component);
  void fail_job(JobId j, std::string_view component);
  void checkpoint_due(JobId j);
  void arm_checkpoint(JobId j);
  // The job's finish as reschedule() just projected it (kNever: none): a held-back timer that
  // the finish no longer precedes is queued.
  void note_finish(JobId j, SimTime at);
  void queue_held_checkpoint(JobId j);
  // After a paid action ends (action_done): a checkpoint is committed, a restart paid.
  void after_paid(JobId j, JobStatus was);
  void note_down_change();
  // What placing job j costs: `cost_s`, or the restart cost when a failure stopped it.
  double placement_cost(JobId j, double cost_s);
  [[nodiscard]] double checkpoint_cost_s(JobId j) const;
  // Drops expired checkpoint timers, then merges the failure queue's next time into t when it
  // may keep the run going (docs/failures.md#when-the-run-ends).
  bool next_failure_time(SimTime& t, bool any);
  [[nodiscard]] bool failure_event_first() const;

  [[nodiscard]] bool is_stale(const Event& e) const;
  void drop_stale();
  bool next_event_time(SimTime& t);
  Event pop_next();

  SimState s_;
  Policy& policy_;
  PolicyInfo info_;
  EventQueue queue_;
  // Failures, repairs and checkpoint timers: empty unless the experiment has them. Kept apart so
  // that drawn failures, which go on for ever, end with the run (next_failure_time).
  EventQueue fail_queue_;
  std::vector<Rng> fail_rng_;    // by component, when failures are drawn
  std::size_t next_arrival_ = 0; // jobs arrive in submit order without queue events
  std::vector<RunObserver*> observers_;
  std::vector<RunObserver*> event_observers_; // the observers that want job events
  std::vector<std::uint64_t> refresh_stamp_;  // empty until a refresh meets many jobs
  std::uint64_t stamp_ = 0;
  std::vector<JobId> scratch_jobs_;
  // The network model: always built (topology-aware placement reads its routes); flows are
  // added only when contention_ is on.
  std::unique_ptr<NetworkModel> net_;
  bool contention_ = false;
  std::vector<std::uint32_t> net_changed_;
  // A time-sliced job's share of its running time that is its own turn now (1 / its
  // time-slicing slowdown, set with its rate) and the time it has run while the other jobs had
  // theirs, in fractional microseconds (settle adds dt x (1 - share)). Only jobs time-sliced
  // and not over have an entry (retire_turns moves an ending job's wait to over_waits_);
  // RunResult::turn_waits reports both.
  struct Turns {
    double share = 1;
    double waited_us = 0;
  };
  std::unordered_map<JobId, Turns> turns_;
  // The waits of the time-sliced jobs that are over, rounded as RunResult::turn_waits reports
  // them, and only the ones not 0 (a job not listed waited for no turn): their Turns are dropped
  // when they end, so a policy that time-slices every job does not keep an entry per job run.
  std::unordered_map<JobId, SimTime> over_waits_;
  // Moves job j's Turns, if any, to over_waits_ (j is over: settle adds nothing more).
  void retire_turns(JobId j);
};

} // namespace dlsim
