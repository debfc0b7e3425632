#include "policies/type_choice.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <tuple>
#include <utility>

namespace dlsim {

namespace {

constexpr double kEps = 1e-12;

class Search {
public:
  Search(const TypeChoiceProblem& p, std::vector<std::int32_t> at)
      : p_(p), at_(std::move(at)), on_(p.types), by_loss_(p.types), by_loss_valid_(p.types, 0) {
    left_ = p.capacity;
    allowed_from_.reserve(at_.size() + 1);
    for (std::size_t j = 0; j < at_.size(); ++j) {
      allowed_from_.push_back(allowed_.size());
      for (std::size_t t = 0; t < p.types; ++t) {
        if (p.value[j * p.types + t] >= 0) allowed_.push_back(t);
      }
    }
    allowed_from_.push_back(allowed_.size());
    for (std::size_t j = 0; j < at_.size(); ++j) {
      if (at_[j] != kNoType) {
        left_[static_cast<std::size_t>(at_[j])] -= p.need[j];
        on_[static_cast<std::size_t>(at_[j])].push_back(j);
      }
    }
  }

  // Local search to a point no single step improves: a job moves to a type with room, or to a
  // type without room by evicting one job there, which goes to its best type with room then (or,
  // with select, to none). This covers swaps and replacements. Each step raises the objective by
  // more than kEps, so it ends; the pass bound only guards time.
  void improve(bool select) {
    for (int pass = 0; pass < 64; ++pass) {
      bool better = false;
      for (std::size_t a = 0; a < at_.size(); ++a) {
        if (at_[a] == kNoType && !select) continue;
        better |= relocate(a, select);
      }
      if (!better) return;
    }
  }

  std::vector<std::int32_t> result() && { return std::move(at_); }

private:
  [[nodiscard]] double gain(std::size_t j, std::int32_t t) const {
    if (t == kNoType) return 0;
    double v = p_.value[j * p_.types + static_cast<std::size_t>(t)];
    return v < 0 ? -1e300 : v * p_.need[j];
  }
  // The types job j may have (value >= 0), in increasing order.
  [[nodiscard]] std::span<const std::size_t> allowed(std::size_t j) const {
    return std::span<const std::size_t>(allowed_).subspan(allowed_from_[j],
                                                          allowed_from_[j + 1] - allowed_from_[j]);
  }

  // The jobs on t, those that lose least per device first (ties: index order); kept until a job
  // joins or leaves t.
  const std::vector<std::size_t>& by_loss(std::size_t t) {
    if (!by_loss_valid_[t]) {
      const auto ti = static_cast<std::int32_t>(t);
      by_loss_[t] = on_[t];
      std::stable_sort(by_loss_[t].begin(), by_loss_[t].end(), [&](std::size_t x, std::size_t y) {
        return gain(x, ti) / p_.need[x] < gain(y, ti) / p_.need[y];
      });
      by_loss_valid_[t] = 1;
    }
    return by_loss_[t];
  }

  void assign(std::size_t j, std::int32_t t) {
    if (at_[j] != kNoType) {
      const auto from = static_cast<std::size_t>(at_[j]);
      by_loss_valid_[from] = 0;
      left_[from] += p_.need[j];
      on_[from].erase(std::lower_bound(on_[from].begin(), on_[from].end(), j));
    }
    at_[j] = t;
    if (t != kNoType) {
      const auto to = static_cast<std::size_t>(t);
      by_loss_valid_[to] = 0;
      left_[to] -= p_.need[j];
      on_[to].insert(std::lower_bound(on_[to].begin(), on_[to].end(), j), j);
    }
  }

  // The best improving relocation of job a (see improve()); applies it and returns true.
  bool relocate(std::size_t a, bool select) {
    const std::int32_t from = at_[a];
    const double before_a = gain(a, from);
    double best = kEps;
    std::int32_t best_t = kNoType;
    std::size_t best_b = 0;
    std::int32_t best_u = kNoType;
    bool evict = false;
    for (std::size_t t : allowed(a)) {
      const auto ti = static_cast<std::int32_t>(t);
      if (ti == from) continue;
      const double ga = gain(a, ti) - before_a;
      if (left_[t] >= p_.need[a]) {
        if (ga > best) {
          best = ga;
          best_t = ti;
          evict = false;
        }
        continue;
      }
      for (std::size_t b : on_[t]) {
        if (b == a) continue;
        if (left_[t] + p_.need[b] < p_.need[a]) continue;
        // Where b goes: its best type with room once a has left `from` and b has left t.
        double gb = select ? 0.0 : -1e300;
        std::int32_t ub = kNoType;
        for (std::size_t u : allowed(b)) {
          if (u == t) continue;
          std::uint32_t room = left_[u] + (static_cast<std::int32_t>(u) == from ? p_.need[a] : 0);
          if (room < p_.need[b]) continue;
          double g = gain(b, static_cast<std::int32_t>(u));
          if (g > gb) {
            gb = g;
            ub = static_cast<std::int32_t>(u);
          }
        }
        if (gb < -1e299) continue;
        double total = ga + gb - gain(b, ti);
        if (total > best) {
          best = total;
          best_t = ti;
          best_b = b;
          best_u = ub;
          evict = true;
        }
      }
    }
    // Evicting several jobs (a big job displacing small ones): on each type without room, the
    // jobs there that lose least per device leave until a fits; each goes to its best type with
    // room (or, with select, to none).
    std::vector<std::pair<std::size_t, std::int32_t>>& best_moves = best_moves_;
    best_moves.clear();
    for (std::size_t t : allowed(a)) {
      const auto ti = static_cast<std::int32_t>(t);
      if (ti == from || left_[t] >= p_.need[a]) continue;
      // a is not on t (t is not `from`): every job there may leave.
      const std::vector<std::size_t>& there = by_loss(t);
      std::vector<std::int64_t>& room = room_;
      room.assign(left_.begin(), left_.end());
      if (from != kNoType) room[static_cast<std::size_t>(from)] += p_.need[a];
      std::size_t k = 0;
      double delta = gain(a, ti) - before_a;
      while (k < there.size() && room[t] < static_cast<std::int64_t>(p_.need[a])) {
        room[t] += p_.need[there[k]];
        delta -= gain(there[k], ti);
        ++k;
      }
      if (room[t] < static_cast<std::int64_t>(p_.need[a]) || k < 2) continue; // one: done above
      room[t] -= p_.need[a];
      std::vector<std::pair<std::size_t, std::int32_t>>& moves = moves_;
      moves.clear();
      bool ok = true;
      for (std::size_t i = 0; i < k && ok; ++i) {
        const std::size_t b = there[i];
        double gb = select ? 0.0 : -1e300;
        std::int32_t ub = kNoType;
        for (std::size_t u : allowed(b)) {
          if (u == t || room[u] < static_cast<std::int64_t>(p_.need[b])) continue;
          if (gain(b, static_cast<std::int32_t>(u)) > gb) {
            gb = gain(b, static_cast<std::int32_t>(u));
            ub = static_cast<std::int32_t>(u);
          }
        }
        if (gb < -1e299) {
          ok = false;
          break;
        }
        if (ub != kNoType) room[static_cast<std::size_t>(ub)] -= p_.need[b];
        delta += gb;
        moves.emplace_back(b, ub);
      }
      if (ok && delta > best) {
        best = delta;
        best_t = ti;
        std::swap(best_moves, moves);
      }
    }
    if (best_t == kNoType) return false;
    if (!best_moves.empty()) {
      for (const auto& [b, u] : best_moves)
        assign(b, kNoType);
      assign(a, best_t);
      for (const auto& [b, u] : best_moves)
        assign(b, u);
    } else if (evict) {
      assign(best_b, kNoType);
      assign(a, best_t);
      assign(best_b, best_u);
    } else {
      assign(a, best_t);
    }
    return true;
  }

  const TypeChoiceProblem& p_;
  std::vector<std::int32_t> at_;
  std::vector<std::uint32_t> left_;
  // [type] the jobs assigned to it, in index order: the candidates for eviction (a scan of
  // every job per move tried made the search quadratic in the jobs when few are assigned).
  std::vector<std::vector<std::size_t>> on_;
  // allowed(j) is allowed_[allowed_from_[j], allowed_from_[j + 1]): the loops over a job's types
  // skip the catalog's types it may not have (most of them on a cluster of one type).
  std::vector<std::size_t> allowed_;
  std::vector<std::size_t> allowed_from_;
  std::vector<std::vector<std::size_t>> by_loss_; // [type] see by_loss()
  std::vector<char> by_loss_valid_;
  // Scratch of relocate(), kept between calls.
  std::vector<std::int64_t> room_;
  std::vector<std::pair<std::size_t, std::int32_t>> moves_, best_moves_;
};

} // namespace

std::vector<std::int32_t> choose_types(const TypeChoiceProblem& p, bool select,
                                       std::vector<std::int32_t> initial) {
  const std::size_t n = p.need.size();
  if (initial.empty()) initial.assign(n, kNoType);
  if (select) {
    // Greedy start: (job, type) pairs by value, best first; ties to the earlier job.
    std::vector<std::tuple<double, std::size_t, std::size_t>> pairs;
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t t = 0; t < p.types; ++t) {
        if (double v = p.value[j * p.types + t]; v >= 0) pairs.emplace_back(-v, j, t);
      }
    }
    std::sort(pairs.begin(), pairs.end());
    std::vector<std::uint32_t> left = p.capacity;
    for (std::size_t j = 0; j < n; ++j) {
      if (initial[j] != kNoType) left[static_cast<std::size_t>(initial[j])] -= p.need[j];
    }
    for (const auto& [v, j, t] : pairs) {
      if (initial[j] != kNoType || left[t] < p.need[j]) continue;
      initial[j] = static_cast<std::int32_t>(t);
      left[t] -= p.need[j];
    }
  }
  Search s(p, std::move(initial));
  s.improve(select);
  return std::move(s).result();
}

double normalized_throughput(const View& view, JobId j, DeviceTypeId t) {
  const PerfTable& perf = view.perf();
  const ModelId m = view.request(j).model;
  auto types = view.compatible_types(j);
  if (std::find(types.begin(), types.end(), t) == types.end()) return 0;
  if (perf.type_count == 0) return 1;
  double best = perf.iter_time(m, t);
  for (DeviceTypeId u : types)
    best = std::min(best, perf.iter_time(m, u));
  return best / perf.iter_time(m, t);
}

TypeChoiceProblem type_choice_problem(const View& view, std::span<const JobId> jobs,
                                      const std::vector<std::uint32_t>& capacity) {
  TypeChoiceProblem p;
  p.types = capacity.size();
  p.capacity = capacity;
  p.need.reserve(jobs.size());
  p.value.assign(jobs.size() * p.types, -1.0);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobId j = jobs[i];
    p.need.push_back(view.request(j).devices());
    for (DeviceTypeId t : view.compatible_types(j))
      p.value[i * p.types + t] = normalized_throughput(view, j, t);
  }
  return p;
}

} // namespace dlsim
