#include "policies/aiturbo/moves.h"

namespace dlsim {

std::vector<ChosenMove> choose_moves(std::span<const JobService> jobs, std::uint32_t free_workers,
                                     double min_gain) {
  std::vector<ChosenMove> out;
  std::vector<char> moved(jobs.size(), 0);
  // The unmoved job with the largest v - after(job), or -1 when none beats min_gain.
  auto best = [&](auto after, double threshold, std::size_t skip) {
    std::ptrdiff_t at = -1;
    double gain = threshold;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (moved[i] || i == skip) continue;
      const double a = after(jobs[i]);
      if (a == kNoMove) continue;
      const double g = jobs[i].v - a;
      if (g > gain) {
        gain = g;
        at = static_cast<std::ptrdiff_t>(i);
      }
    }
    return std::pair{at, gain};
  };
  auto add_worker = [](const JobService& s) { return s.add_worker; };
  auto remove_worker = [](const JobService& s) { return s.remove_worker; };
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  for (; free_workers > 0; --free_workers) {
    const auto [i, gain] = best(add_worker, min_gain, kNone);
    if (i < 0) break;
    moved[static_cast<std::size_t>(i)] = 1;
    out.push_back({jobs[static_cast<std::size_t>(i)].job, Move::kAddWorker, gain});
  }
  for (;;) {
    const auto [to, gain] = best(add_worker, min_gain, kNone);
    if (to < 0) break;
    // The donor's gain is negative: its loss. Any donor whose loss leaves a net gain.
    const auto [from, donor_gain] =
        best(remove_worker, -std::numeric_limits<double>::infinity(), static_cast<std::size_t>(to));
    if (from < 0 || gain + donor_gain <= min_gain) break;
    moved[static_cast<std::size_t>(to)] = 1;
    moved[static_cast<std::size_t>(from)] = 1;
    out.push_back({jobs[static_cast<std::size_t>(to)].job, Move::kAddWorker, gain});
    out.push_back({jobs[static_cast<std::size_t>(from)].job, Move::kRemoveWorker, donor_gain});
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (moved[i]) continue;
    const JobService& s = jobs[i];
    const std::pair<Move, double> options[] = {{Move::kAddPs, s.add_ps},
                                               {Move::kRemovePs, s.remove_ps},
                                               {Move::kAddPsCpu, s.add_ps_cpu},
                                               {Move::kAddWorkerCpu, s.add_worker_cpu}};
    Move pick = Move::kAddPs;
    double gain = min_gain; // only a gain above it is taken
    bool any = false;
    for (auto [move, after] : options) {
      if (after == kNoMove || !(s.v - after > gain)) continue;
      gain = s.v - after;
      pick = move;
      any = true;
    }
    if (any) out.push_back({s.job, pick, gain});
  }
  return out;
}

} // namespace dlsim
