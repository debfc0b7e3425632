// Packing trials and their introspection.
#include "policies/gandiva/packing.h"

#include "policies/gandiva/groups.h"

#include <algorithm>
#include <optional>

namespace dlsim::gandiva {

namespace {

bool running(const View& view, JobId j) {
  const JobState& s = view.state(j);
  return s.status == JobStatus::kRunning && s.rate > 0;
}

std::pair<JobId, JobId> pair_of(const Group& g) {
  return {std::min(g.members[0], g.members[1]), std::max(g.members[0], g.members[1])};
}

// A packed pair introspection has not judged yet whose two members run.
bool to_judge(const View& view, const Group& g) {
  return g.mode == Mode::kPack && g.pack_trial && !g.converting && g.members.size() == 2 &&
         running(view, g.members[0]) && running(view, g.members[1]);
}

// Two time-sliced members that both run, both measured alone, never packed and found worse,
// whose GPU utilization as the profiler measured it (View::measured_gpu_util: unknown until it
// has watched each for runtime.profile_s) and memory allow running them at once. A pair that
// waits only for its measurements is noted with the time they will be known
// (State::profiling), when try_packing looks at it again.
bool may_pack(State& st, const View& view, const Group& g) {
  if (g.mode != Mode::kSlice || g.grown || g.converting || g.members.size() != 2) return false;
  JobId a = g.members[0];
  JobId b = g.members[1];
  if (!running(view, a) || !running(view, b)) return false;
  if (!(st.note(a).solo_rate > 0) || !(st.note(b).solo_rate > 0)) return false;
  if (st.rejected_pairs.count(pair_of(g))) return false;
  const RequestDetails& da = view.details(a);
  const RequestDetails& db = view.details(b);
  double cap = view.cluster().types[g.type].memory_gb;
  if (cap > 0 && da.gpu_mem_gb + db.gpu_mem_gb > cap + 1e-9) return false;
  const std::optional<double> ua = view.measured_gpu_util(a);
  const std::optional<double> ub = view.measured_gpu_util(b);
  if (!ua || !ub) {
    const SimTime known = std::max(view.profiled_at(a), view.profiled_at(b));
    if (known != kNever) st.profiling.emplace(known, g.id);
    return false;
  }
  return *ua + *ub <= st.opt.pack_util_limit + 1e-9;
}

} // namespace

void record_rates(const View& view, State& st) {
  const double eff = slice_efficiency(view, st.opt);
  // A group's solo rates are a function of its mode, members and their states: a group that
  // none of these changed for since the last call would write the same numbers again.
  for (std::uint32_t gid : st.take_rate_groups(view)) {
    const Group& g = st.groups.at(gid);
    if (g.converting) continue;
    std::size_t k = 0;
    for (JobId m : g.members)
      k += running(view, m) ? 1 : 0;
    if (k == 0 || (g.mode == Mode::kPack && k > 1)) continue; // packed: interference, not solo
    for (JobId m : g.members) {
      if (!running(view, m) || view.state(m).workers != view.request(m).workers) continue;
      double rate = 1.0 / view.measured_iteration_s(m);
      st.note(m).solo_rate = k >= 2 && eff > 0 ? rate * static_cast<double>(k) / eff : rate;
    }
  }
}

void judge_packs(Control& control, State& st) {
  const double eff = slice_efficiency(control, st.opt);
  for (std::uint32_t gid : st.groups_where(control, State::kJudge, to_judge)) {
    Group& g = st.groups.at(gid);
    double value = 0;
    for (JobId m : g.members)
      value += (1.0 / control.measured_iteration_s(m)) / st.note(m).solo_rate;
    g.pack_trial = false;
    if (value >= eff) continue; // packing pays: keep it
    st.rejected_pairs.insert(pair_of(g));
    change_mode(control, st, g, Mode::kSlice);
  }
}

void try_packing(Control& control, State& st) {
  if (control.config().max_jobs_per_device < 2) return;
  // Pairs whose utilization the profiler knows by now are looked at again (groups_where sees
  // only groups touched or marked since its last walk).
  while (!st.profiling.empty() && st.profiling.top().first <= control.now()) {
    const std::uint32_t gid = st.profiling.top().second;
    st.profiling.pop();
    if (st.groups.find_live(gid) != nullptr) st.touch(gid);
  }
  auto test = [&st](const View& view, const Group& g) { return may_pack(st, view, g); };
  for (std::uint32_t gid : st.groups_where(control, State::kPack, test)) {
    Group& g = st.groups.at(gid);
    g.pack_trial = true;
    change_mode(control, st, g, Mode::kPack);
  }
}

} // namespace dlsim::gandiva
