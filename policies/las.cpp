// Least attained service, continuous and two-dimensional: the job with the fewest GPU-seconds run
// so far goes first, and a running job is preempted as soon as waiting jobs have less. This is
// the 2D-LAS of Tiresias (Gu et al., NSDI'19, section 3.2) before its priorities are discretized
// into queues; LAS itself is the foreground-background discipline surveyed by Nuyens and Wierman
// ("The Foreground-Background queue: a survey", Performance Evaluation 65(3-4), 2008).
// Running jobs are preempted only at the rounds, every `interval_s` while jobs wait (at every
// decision when it is 0); arrivals, finishes and completed actions in between only fill free
// devices in LAS order. Comparing at every event instead preempts a running job each time any
// event finds a waiting job with less service, which thrashes on real traces.
#include "policies/las.h"

#include "policies/key_motions.h"
#include "policies/keyed_pass.h"
#include "policies/type_choice.h"

namespace dlsim {

namespace {

class Las final : public Policy {
public:
  Las(Placement placement, double interval_s, bool hetero, bool blind_types)
      : placement_(placement), interval_s_(interval_s), hetero_(hetero), blind_types_(blind_types) {
  }

  void on_arrival(JobId j, const View& view) override {
    pass_.arrive(view, j);
    changed_ = true;
  }

  void on_finish(JobId j, const View& view) override {
    pass_.finish(view, j);
    changed_ = true;
  }

  void on_action_done(JobId, const View&) override { changed_ = true; }

  void schedule(Control& control) override {
    // Service only grows, so decisions change only at arrivals, finishes, completed actions and
    // rounds. The runtime may call schedule() at other times too (a dropped stale event still
    // advances the clock); deciding then would make the schedule depend on them.
    const bool round = interval_s_ > 0 ? control.now() == wake_ : changed_;
    if (!changed_ && !round) return;
    changed_ = false;
    KeyedPass::BeforeApply choose_types;
    if (hetero_)
      choose_types = prefer_types;
    else if (blind_types_)
      choose_types = prefer_most_free;
    pass_.decide(control, placement_, /*preempt=*/round, choose_types);

    // Time-slice among jobs with little service: look again after interval_s while some wait.
    if (interval_s_ > 0 && pass_.someone_waits() && wake_ <= control.now()) {
      wake_ = control.now() + from_seconds(interval_s_);
      control.wake_at(wake_);
    }
  }

private:
  static constexpr std::uint8_t kHolding = 0;
  static constexpr std::uint8_t kWaiting = 1;

  // Seconds per iteration of the job's model on its fastest compatible type.
  static double fastest_iter_time(const View& view, JobId j) {
    const ModelId m = view.request(j).model;
    double best = 0;
    for (DeviceTypeId t : view.compatible_types(j)) {
      double it = view.perf().iter_time(m, t);
      if (best == 0 || it < best) best = it;
    }
    return best;
  }

  // Device-seconds the job's progress so far would have taken on its fastest compatible type:
  // an hour on a K80 counts as the 0.16 h a V100 would have needed for ResNet-50.
  static double normalized_service(const View& view, JobId j) {
    const JobState& s = view.state(j);
    double done = s.done;
    if (s.status == JobStatus::kRunning && view.now() > s.last_update)
      done += s.rate * to_seconds(view.now() - s.last_update);
    return done * fastest_iter_time(view, j) * view.request(j).devices();
  }

  // The chosen waiting jobs' types: capacity per type minus what the chosen holders keep, the
  // jobs' first fitting types as the start, then the exchange of type_choice.h.
  static void prefer_types(const View& view, PriorityPass& pass) {
    const std::size_t types = view.cluster().types.size();
    std::vector<std::uint32_t> left(types);
    for (DeviceTypeId t = 0; t < types; ++t)
      left[t] = view.devices_of_type(t);
    std::vector<JobId> waiting;
    std::vector<std::size_t> index;
    const auto& chosen = pass.chosen();
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const JobState& st = view.state(chosen[i]);
      if (is_holder(st)) {
        left[st.type] -= std::min<std::uint32_t>(left[st.type], view.request(chosen[i]).devices());
      } else {
        waiting.push_back(chosen[i]);
        index.push_back(i);
      }
    }
    if (waiting.empty()) return;
    TypeChoiceProblem p = type_choice_problem(view, waiting, left);
    std::vector<std::int32_t> first(waiting.size(), kNoType);
    std::vector<std::uint32_t> room = left;
    for (std::size_t w = 0; w < waiting.size(); ++w) {
      for (DeviceTypeId t : view.compatible_types(waiting[w])) {
        if (room[t] >= p.need[w]) {
          first[w] = t;
          room[t] -= p.need[w];
          break;
        }
      }
    }
    std::vector<std::int32_t> at = choose_types(p, /*select=*/false, first);
    std::vector<std::int32_t> preferred(chosen.size(), kNoType);
    for (std::size_t w = 0; w < waiting.size(); ++w)
      preferred[index[w]] = at[w];
    pass.prefer_types(std::move(preferred));
  }

  // Speed-blind type choice, as a heterogeneity-agnostic scheduler (Gavel's LAS baseline) makes
  // it: each chosen waiting job prefers the compatible type with the most free devices left,
  // counting the ones taken by the jobs before it in this decision (ties: catalog order).
  static void prefer_most_free(const View& view, PriorityPass& pass) {
    std::vector<std::int64_t> left(view.cluster().types.size());
    for (std::size_t t = 0; t < left.size(); ++t)
      left[t] = view.free().free(static_cast<DeviceTypeId>(t));
    const auto& chosen = pass.chosen();
    std::vector<std::int32_t> preferred(chosen.size(), kNoType);
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      if (is_holder(view.state(chosen[i]))) continue;
      const std::int64_t need = view.request(chosen[i]).devices();
      for (DeviceTypeId t : view.compatible_types(chosen[i])) {
        if (left[t] >= need &&
            (preferred[i] == kNoType || left[t] > left[static_cast<std::size_t>(preferred[i])]))
          preferred[i] = t;
      }
      if (preferred[i] != kNoType) left[static_cast<std::size_t>(preferred[i])] -= need;
    }
    pass.prefer_types(std::move(preferred));
  }

  Placement placement_;
  double interval_s_;
  bool hetero_;
  bool blind_types_;
  // (attained GPU-seconds, or normalized ones with hetero; holders first on a tie; job id =
  // submission order)
  KeyedPass pass_{[this](const View& view, JobId j) {
                    return PassKey{hetero_ ? normalized_service(view, j) : attained_now(view, j),
                                   is_holder(view.state(j)) ? kHolding : kWaiting, j};
                  },
                  [this](const View& view, JobId j) {
                    return hetero_ ? progress_motion(view, j, fastest_iter_time(view, j),
                                                     static_cast<double>(view.request(j).devices()))
                                   : attained_motion(view, j);
                  }};
  SimTime wake_ = -1;
  bool changed_ = false; // an arrival, finish or completed action since the last decision
};

} // namespace

PolicyEntry las_policy() {
  return {"las",
          "least attained service (GPU-seconds), continuous and preemptive: the un-discretized "
          "2D-LAS",
          false,
          {{"interval_s",
            ParamType::kSeconds,
            "360",
            "seconds between the rounds at which running jobs may be preempted (0 = at every "
            "arrival, finish and completed action)",
            {.min = 0}},
           {"hetero", ParamType::kFlag, "false",
            "heterogeneity-aware (Gavel-style): service in fastest-type device-seconds, and "
            "types chosen to maximise summed normalized throughput"},
           {"blind_types", ParamType::kFlag, "false",
            "speed-blind type choice (the type with the most free devices), as Gavel's "
            "heterogeneity-agnostic LAS baseline; ignored with hetero: true"}},
          [](const PolicySetup& s) {
            const double interval_s = s.params.seconds("interval_s");
            check_seconds(interval_s, "policy.params.interval_s");
            return std::make_unique<Las>(s.placement, interval_s, s.params.flag("hetero"),
                                         s.params.flag("blind_types"));
          }};
}

} // namespace dlsim
