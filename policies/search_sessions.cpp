// The search controller of hyper-parameter search sessions (synchronous successive halving,
// Jamieson and Talwalkar, AISTATS'16, as run by AutoML tools on a shared cluster; Gandiva, Xiao
// et al., OSDI'18, sec. 2 and 6.2), wrapped around any scheduling policy.
#include "policies/search_sessions.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>

namespace dlsim {

namespace {

// A trial whose job has not been submitted yet: the search learns its job id at submission.
constexpr JobId kUnbound = std::numeric_limits<JobId>::max();
const JobState kNotSubmitted{};

class SearchSessions final : public Policy {
public:
  SearchSessions(std::unique_ptr<Policy> inner, std::vector<SearchSession> sessions)
      : inner_(std::move(inner)) {
    for (auto& s : sessions) {
      Session session;
      for (auto& t : draw_trials(s))
        session.trials.push_back(Trial{std::move(t), kUnbound, 0});
      for (std::size_t ti = 0; ti < session.trials.size(); ++ti)
        trial_named_.emplace(session.trials[ti].truth.job, std::pair{sessions_.size(), ti});
      session.spec = std::move(s);
      sessions_.push_back(std::move(session));
    }
  }

  void on_arrival(JobId j, const View& view) override {
    bind(j, view);
    inner_->on_arrival(j, view);
  }
  void check_config(const RuntimeConfig& config) const override { inner_->check_config(config); }
  void check_cluster(const Cluster& cluster) const override { inner_->check_cluster(cluster); }
  void on_action_done(JobId j, const View& view) override { inner_->on_action_done(j, view); }

  void on_finish(JobId j, const View& view) override {
    inner_->on_finish(j, view);
    // A trial that reaches the target ends its job there (its work is target_progress of the
    // budget): the session has found its model and stops the other trials.
    auto it = trial_of_.find(j);
    if (it == trial_of_.end()) return;
    Session& s = sessions_[it->second.first];
    if (s.trials[it->second.second].truth.target_progress) s.done = true;
  }

  void schedule(Control& control) override {
    for (Session& s : sessions_) {
      if (s.done) {
        for (const Trial& t : s.trials)
          kill(control, t.job);
      } else {
        if (s.spec.asynchronous) {
          decide_async(control, s);
        } else {
          decide_rungs(control, s);
        }
      }
    }
    inner_->schedule(control);
    // Trials that had to die while pending are cancelled as soon as the scheduler starts them;
    // the scheduler then decides again with the devices they gave back.
    for (int round = 0; !doomed_.empty() && round < 1000; ++round) {
      bool any = false;
      for (auto it = doomed_.begin(); it != doomed_.end();) {
        JobStatus st = control.state(*it).status;
        if (st == JobStatus::kPending) {
          ++it;
          continue;
        }
        if (!is_over(st)) {
          control.cancel(*it, "trial stopped by the search");
          inner_->on_finish(*it, control);
          any = true;
        }
        it = doomed_.erase(it);
      }
      if (!any) break;
      inner_->schedule(control);
    }
    request_wakeup(control);
  }

private:
  struct Trial {
    SearchTrial truth;
    JobId job;
    double full_iterations;    // the whole budget, in iterations of the trial's model
    std::size_t next_rung = 0; // asynchronous halving: the next rung to be judged at
  };
  struct Session {
    SearchSession spec;
    std::vector<Trial> trials;
    std::size_t next_rung = 0;                // synchronous halving: the next rung
    std::vector<std::vector<double>> results; // asynchronous: observed values per rung
    bool done = false;                        // a trial reached the target
  };

  // A trial's job is bound when it is submitted (by name: the search submits its trials, so it
  // knows them, but a scheduler sees no job before its submission). run_experiment checked that
  // every trial names a job of the trace.
  void bind(JobId j, const View& view) {
    auto it = trial_named_.find(std::string(view.job_name(j)));
    if (it == trial_named_.end()) return;
    auto [si, ti] = it->second;
    Trial& t = sessions_[si].trials[ti];
    t.job = j;
    // The search knows its own budget: the full training, on the trace's reference device.
    t.full_iterations = sessions_[si].spec.budget_s /
                        view.perf().iter_time(view.request(j).model, view.reference_device());
    trial_of_[j] = {si, ti};
  }

  static const JobState& state_of(const View& view, const Trial& t) {
    return t.job == kUnbound ? kNotSubmitted : view.state(t.job);
  }
  // Iterations done so far, including the part of the current run not yet settled.
  static double progress_now(const View& view, const Trial& t) {
    return done_at(state_of(view, t), view.now());
  }

  [[nodiscard]] bool reached(const View& view, const Trial& t, double fraction) const {
    if (t.job == kUnbound) return false;
    double need = fraction * t.full_iterations;
    return progress_now(view, t) >= need - 1e-9 * t.full_iterations;
  }

  // Synchronous successive halving: once every live trial has reached the rung's progress,
  // keep the best `keep` fraction by the accuracy observed there (with noise), kill the rest.
  // Trials that got there early keep training meanwhile (they are not paused).
  void decide_rungs(Control& control, Session& s) {
    while (s.next_rung < s.spec.rungs.size()) {
      const double f = s.spec.rungs[s.next_rung];
      std::vector<const Trial*> live;
      for (const Trial& t : s.trials) {
        JobStatus st = state_of(control, t).status;
        if (st == JobStatus::kFuture) return; // the session has not been submitted yet
        if (is_over(st) || doomed_.count(t.job)) continue;
        if (!reached(control, t, f)) return;
        live.push_back(&t);
      }
      const std::size_t r = s.next_rung++;
      if (live.empty()) continue;
      auto observed = [&](const Trial* t) {
        return learning_curve(t->truth.accuracy, s.spec.curve_tau, f) + t->truth.rung_noise[r];
      };
      std::stable_sort(live.begin(), live.end(),
                       [&](const Trial* a, const Trial* b) { return observed(a) > observed(b); });
      auto keep = static_cast<std::size_t>(
          std::ceil(s.spec.keep * static_cast<double>(live.size()) - 1e-9));
      keep = std::max<std::size_t>(1, keep);
      for (std::size_t i = keep; i < live.size(); ++i)
        kill(control, live[i]->job);
    }
  }

  // Asynchronous successive halving (ASHA, Li et al., MLSys'20): a trial is judged the moment
  // it reaches a rung, against every result recorded at that rung so far: it continues if it
  // ranks within the best `keep` fraction of them (rounded up, at least one), else it stops.
  // Equal values rank in the order they were recorded.
  void decide_async(Control& control, Session& s) {
    if (s.results.size() < s.spec.rungs.size()) s.results.resize(s.spec.rungs.size());
    for (Trial& t : s.trials) {
      while (t.next_rung < s.spec.rungs.size()) {
        JobStatus st = state_of(control, t).status;
        if (is_over(st) || st == JobStatus::kFuture || doomed_.count(t.job)) break;
        const std::size_t r = t.next_rung;
        if (!reached(control, t, s.spec.rungs[r])) break;
        ++t.next_rung;
        double value = learning_curve(t.truth.accuracy, s.spec.curve_tau, s.spec.rungs[r]) +
                       t.truth.rung_noise[r];
        std::vector<double>& seen = s.results[r];
        auto ahead = static_cast<std::size_t>(
            std::count_if(seen.begin(), seen.end(), [&](double v) { return v >= value; }));
        seen.push_back(value);
        auto keep = static_cast<std::size_t>(
            std::ceil(s.spec.keep * static_cast<double>(seen.size()) - 1e-9));
        if (ahead >= std::max<std::size_t>(1, keep)) {
          kill(control, t.job);
          break;
        }
      }
    }
  }

  void kill(Control& control, JobId j) {
    if (j == kUnbound) return;
    JobStatus st = control.state(j).status;
    if (is_over(st) || st == JobStatus::kFuture) return;
    if (st == JobStatus::kPending) {
      doomed_.insert(j);
      return;
    }
    control.cancel(j, "trial stopped by the search");
    inner_->on_finish(j, control);
  }

  // Wakes the run when the last live trial of a session will reach the next rung, if all the
  // ones still short of it are running (otherwise a start or resume will call us first).
  void request_wakeup(Control& control) {
    SimTime next = kNever;
    for (const Session& s : sessions_) {
      if (s.done) continue;
      if (s.spec.asynchronous) {
        // The first running trial to reach its next rung.
        for (const Trial& t : s.trials) {
          const JobState& st = state_of(control, t);
          if (t.next_rung >= s.spec.rungs.size() || st.status != JobStatus::kRunning ||
              st.rate <= 0 || doomed_.count(t.job)) {
            continue;
          }
          double left_s =
              (s.spec.rungs[t.next_rung] * t.full_iterations - progress_now(control, t)) / st.rate;
          SimTime at = control.now() + from_seconds_ceil(std::max(0.0, left_s));
          if (at > control.now()) next = std::min(next, at);
        }
        continue;
      }
      if (s.next_rung >= s.spec.rungs.size()) continue;
      const double f = s.spec.rungs[s.next_rung];
      SimTime last = -1;
      bool all_running = true;
      for (const Trial& t : s.trials) {
        const JobState& st = state_of(control, t);
        if (is_over(st.status) || doomed_.count(t.job) || reached(control, t, f)) continue;
        if (st.status != JobStatus::kRunning || st.rate <= 0) {
          all_running = false;
          break;
        }
        double left_s = (f * t.full_iterations - progress_now(control, t)) / st.rate;
        last = std::max(last, control.now() + from_seconds_ceil(left_s));
      }
      if (all_running && last > control.now()) next = std::min(next, last);
    }
    if (next == kNever || next == wake_) return;
    wake_ = next;
    control.wake_at(next);
  }

  std::unique_ptr<Policy> inner_;
  std::vector<Session> sessions_;
  std::map<JobId, std::pair<std::size_t, std::size_t>> trial_of_; // job -> (session, trial)
  std::set<JobId> doomed_; // to cancel once the scheduler starts them
  std::map<std::string, std::pair<std::size_t, std::size_t>> trial_named_; // by job name
  SimTime wake_ = -1;
};

} // namespace

std::unique_ptr<Policy> make_search_sessions(std::unique_ptr<Policy> inner,
                                             std::vector<SearchSession> sessions) {
  return std::make_unique<SearchSessions>(std::move(inner), std::move(sessions));
}

namespace {

// The sessions file of parameter `sessions`, read by the caller (a data file).
std::vector<SearchSession> sessions_given(const PolicySetup& setup) {
  const PolicySetup::DataFile* file = setup.data_file("sessions");
  if (file == nullptr) {
    throw InputError("policy.params.sessions: required: the sessions file (docs/gandiva.md)");
  }
  return parse_search_sessions(file->text, file->path);
}

std::unique_ptr<Policy> make_automl_policy(const PolicySetup& setup) {
  std::string scheduler = setup.params.text("scheduler");
  if (scheduler == "automl") {
    throw InputError("policy.params.scheduler: 'automl' cannot schedule its own sessions");
  }
  const PolicyEntry& entry = find_policy(scheduler);
  PolicySetup inner{setup.placement,
                    resolve_params(entry, setup.params.values()["scheduler_params"])};
  if (uses_oracle(entry, inner.params)) {
    throw InputError(fmt::format("policy.params.scheduler: '{}' is an oracle policy (with these "
                                 "scheduler_params); automl runs its scheduler without oracle "
                                 "access",
                                 scheduler));
  }
  return make_search_sessions(entry.make(inner), sessions_given(setup));
}

// Every search trial must name a job of the trace. Checked before the run, because the search
// controller binds each trial to its job only when that job is submitted (a policy sees no job
// before its submission).
void check_trials_in_trace(const PolicySetup& setup, const JobNames& jobs) {
  std::unordered_set<std::string_view> names;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    names.insert(jobs[j]);
  for (const SearchSession& s : sessions_given(setup)) {
    for (const SearchTrial& t : draw_trials(s)) {
      if (names.count(t.job) == 0) {
        throw InputError(fmt::format(
            "policy.params.sessions: session '{}': trial job '{}' is not in the trace (add the "
            "sessions' trials with dlsim gen-trace --sessions)",
            s.name, t.job));
      }
    }
  }
}

} // namespace

PolicyEntry automl_policy() {
  return {"automl",
          "hyper-parameter search sessions (successive halving, stop at the target) on top of "
          "another policy: the search kills trials, `scheduler` places them",
          false,
          {{"sessions", ParamType::kDataFile, "''",
            "the sessions file (docs/gandiva.md): also given to gen-trace --sessions"},
           {"scheduler", ParamType::kText, "fifo", "the policy that schedules every job"},
           {"scheduler_params", ParamType::kYaml, "{}", "that policy's parameters"}},
          make_automl_policy,
          false,
          check_trials_in_trace};
}

} // namespace dlsim
