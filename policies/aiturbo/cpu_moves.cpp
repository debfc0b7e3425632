#include "policies/aiturbo/cpu_moves.h"

#include "policies/aiturbo/moves.h"
#include "sim/runtime/ps_placement.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace dlsim {

namespace {

// The sample of one shape (workers, servers, cores each), or nullptr. A template so that
// observe_cores finds a mutable one and cpu_step_ratio a const one.
template <class Model>
auto* find_sample(Model& m, std::uint32_t w, std::uint32_t p, double ps_c, double worker_c) {
  decltype(&m.samples.front()) found = nullptr;
  for (auto& s : m.samples) {
    if (s.workers == w && s.ps == p && s.ps_cores == ps_c && s.worker_cores == worker_c) {
      found = &s;
      break;
    }
  }
  return found;
}

} // namespace

void observe_cores(CoreModel& m, std::uint32_t workers, std::uint32_t ps, double ps_cores,
                   double worker_cores, double seconds) {
  // The same time at the same cores as last: its mean would move by (seconds - mean) / count =
  // 0, so only its count changes.
  auto same = [](double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  };
  if (!m.samples.empty() && workers == m.last_workers && ps == m.last_ps &&
      same(ps_cores, m.last_ps_cores) && same(worker_cores, m.last_worker_cores) &&
      same(seconds, m.last_mean_s)) {
    ++m.repeats;
    return;
  }
  if (!m.samples.empty()) {
    m.samples[m.last].count += m.repeats;
    m.repeats = 0;
  }
  CoreSample* s = find_sample(m, workers, ps, ps_cores, worker_cores);
  if (s != nullptr) {
    ++s->count;
    s->mean_s += (seconds - s->mean_s) / s->count;
  } else {
    m.samples.push_back({workers, ps, ps_cores, worker_cores, seconds, 1});
    s = &m.samples.back();
  }
  m.last = static_cast<std::uint32_t>(s - m.samples.data());
  m.last_workers = workers;
  m.last_ps = ps;
  m.last_ps_cores = ps_cores;
  m.last_worker_cores = worker_cores;
  m.last_mean_s = s->mean_s;
}

double cpu_step_ratio(const CoreModel& m, std::uint32_t workers, std::uint32_t ps, double ps_now,
                      double worker_now, double ps_then, double worker_then) {
  const CoreSample* now = find_sample(m, workers, ps, ps_now, worker_now);
  if (now == nullptr || !(now->mean_s > 0)) return 1.0;
  if (const CoreSample* then = find_sample(m, workers, ps, ps_then, worker_then))
    return then->mean_s / now->mean_s;
  const bool ps_kind = ps_then != ps_now;
  const double c = ps_kind ? ps_now : worker_now;
  const double c_then = ps_kind ? ps_then : worker_then;
  if (!(c > 0) || !(c_then > 0)) return 1.0;
  double sum = 0;
  int n = 0;
  for (const CoreSample& s : m.samples) {
    if (s.workers != workers || s.ps != ps) continue;
    const double other = ps_kind ? s.worker_cores : s.ps_cores;
    const double cores = ps_kind ? s.ps_cores : s.worker_cores;
    if (other != (ps_kind ? worker_now : ps_now) || cores == c || !(cores > 0)) continue;
    sum += std::clamp((1.0 - s.mean_s / now->mean_s) / (1.0 - c / cores), 0.0, 1.0);
    ++n;
  }
  const double f = n > 0 ? sum / n : kCpuSharePrior;
  return 1.0 - f + f * c / c_then;
}

CpuMoves cpu_moves(const View& v, JobId j, const CoreModel& m, double v_now, double pause_s) {
  CpuMoves out{kNoMove, kNoMove};
  const JobState& st = v.state(j);
  const JobRequest& r = v.request(j);
  const bool ps_cores = holds_ps_cores(r);
  const std::uint32_t shards = ps_cores ? v.ps(j) : 0;
  const double ps_now = v.ps_cores(j);
  const double worker_now = v.worker_cores(j);
  if (ps_cores && ps_now + 1 <= 1024 &&
      !check_ps_cores(v, j, st.devices, shards, ps_now + 1, worker_now, true)) {
    out.add_ps_cpu =
        v_now * cpu_step_ratio(m, st.workers, v.ps(j), ps_now, worker_now, ps_now + 1, worker_now) +
        pause_s;
  }
  if (worker_now > 0 && worker_now + 1 <= 1024 &&
      !check_ps_cores(v, j, st.devices, shards, ps_now, worker_now + 1, true)) {
    out.add_worker_cpu =
        v_now * cpu_step_ratio(m, st.workers, v.ps(j), ps_now, worker_now, ps_now, worker_now + 1) +
        pause_s;
  }
  return out;
}

} // namespace dlsim
