#include "policies/type_choice.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <span>
#include <tuple>
#include <utility>

namespace dlsim {

namespace {

constexpr double kEps = 1e-12;

// The types each job may have (value >= 0), in increasing order: the loops over a job's types
// skip the catalog's types it may not have (most of them on a cluster of one type). Refers to the
// problem's own lists when type_choice_problem filled them, else to its lists found from `value`.
class AllowedTypes {
public:
  AllowedTypes(const TypeChoiceProblem& p, std::vector<std::size_t>& types,
               std::vector<std::size_t>& from) {
    const std::size_t n = p.need.size();
    if (p.allowed_from.size() == n + 1) {
      types_ = p.allowed;
      from_ = p.allowed_from;
      return;
    }
    types.clear();
    from.clear();
    from.reserve(n + 1);
    for (std::size_t j = 0; j < n; ++j) {
      from.push_back(types.size());
      for (std::size_t t = 0; t < p.types; ++t) {
        if (p.value[j * p.types + t] >= 0) types.push_back(t);
      }
    }
    from.push_back(types.size());
    types_ = types;
    from_ = from;
  }
  [[nodiscard]] std::span<const std::size_t> of(std::size_t j) const {
    return types_.subspan(from_[j], from_[j + 1] - from_[j]);
  }

private:
  std::span<const std::size_t> types_; // of(j) is types_[from_[j], from_[j + 1])
  std::span<const std::size_t> from_;
};

// What one search needs besides its result, kept from one choose_types call to the next: a
// decision under a standing queue is small and frequent, and allocating these for each one cost
// more than the search (about a tenth of a million-job max-throughput run in malloc and free).
struct EvictBounds {
  std::vector<std::uint32_t> need;
  std::vector<double> least_gain;
  std::vector<double> most_elsewhere;
};
struct SearchScratch {
  std::vector<std::size_t> allowed_types, allowed_from; // AllowedTypes, when found from `value`
  std::vector<std::tuple<double, std::size_t, std::size_t>> pairs; // the greedy start
  std::vector<std::uint32_t> greedy_left;
  std::vector<std::uint32_t> left;
  std::vector<std::vector<std::size_t>> on;
  std::vector<std::uint64_t> on_need;
  std::vector<std::vector<std::size_t>> by_loss;
  std::vector<char> by_loss_valid;
  std::vector<EvictBounds> bounds;
  std::vector<char> bounds_valid;
  std::vector<std::size_t> evict_order;
  std::vector<std::int64_t> room;
  std::vector<std::pair<std::size_t, std::int32_t>> moves, best_moves;
};

// Per-type lists of the scratch sized for `types`, each empty (their capacity kept).
template <class T>
void clear_lists(std::vector<T>& lists, std::size_t types) {
  if (lists.size() < types) lists.resize(types);
  for (std::size_t t = 0; t < types; ++t)
    lists[t].clear();
}

class Search {
public:
  Search(const TypeChoiceProblem& p, std::vector<std::int32_t> at, const AllowedTypes& allowed,
         bool prune, SearchScratch& scratch)
      : p_(p), allowed_(allowed), prune_(prune), at_(std::move(at)), left_(scratch.left),
        on_(scratch.on), on_need_(scratch.on_need), by_loss_(scratch.by_loss),
        by_loss_valid_(scratch.by_loss_valid), bounds_(scratch.bounds),
        bounds_valid_(scratch.bounds_valid), evict_order_(scratch.evict_order), room_(scratch.room),
        moves_(scratch.moves), best_moves_(scratch.best_moves) {
    left_.assign(p.capacity.begin(), p.capacity.end());
    clear_lists(on_, p.types);
    on_need_.assign(p.types, 0);
    clear_lists(by_loss_, p.types);
    by_loss_valid_.assign(p.types, 0);
    if (bounds_.size() < p.types) bounds_.resize(p.types);
    bounds_valid_.assign(p.types, 0);
    for (std::size_t j = 0; j < at_.size(); ++j) {
      if (at_[j] != kNoType) {
        const auto t = static_cast<std::size_t>(at_[j]);
        left_[t] -= p.need[j];
        on_[t].push_back(j);
        on_need_[t] += p.need[j];
      }
    }
  }

  // Local search to a point no single step improves: a job moves to a type with room, or to a
  // type without room by evicting one job there, which goes to its best type with room then (or,
  // with select, to none). This covers swaps and replacements. Each step raises the objective by
  // more than kEps, so it ends; the pass bound only guards time.
  void improve(bool select) {
    // The eviction bounds assume what select allows (a job may leave): kept only under the same.
    if (select != select_) std::fill(bounds_valid_.begin(), bounds_valid_.end(), 0);
    select_ = select;
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
  [[nodiscard]] std::span<const std::size_t> allowed(std::size_t j) const { return allowed_.of(j); }

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

  // What evicting one job from t can give at most (relocate): the jobs on t by devices asked,
  // most first, and over each prefix of that order the least gain one of them has on t and the
  // most one could gain on another type (with select, at least 0: it may leave), room aside.
  const EvictBounds& evict_bounds(std::size_t t) {
    EvictBounds& e = bounds_[t];
    if (bounds_valid_[t]) return e;
    const auto ti = static_cast<std::int32_t>(t);
    std::vector<std::size_t>& jobs = evict_order_;
    jobs.assign(on_[t].begin(), on_[t].end());
    std::stable_sort(jobs.begin(), jobs.end(),
                     [&](std::size_t x, std::size_t y) { return p_.need[x] > p_.need[y]; });
    e.need.clear();
    e.least_gain.clear();
    e.most_elsewhere.clear();
    double least = std::numeric_limits<double>::infinity();
    double most = -std::numeric_limits<double>::infinity();
    for (std::size_t b : jobs) {
      least = std::min(least, gain(b, ti));
      double elsewhere = select_ ? 0.0 : -1e300;
      for (std::size_t u : allowed(b)) {
        if (u != t) elsewhere = std::max(elsewhere, gain(b, static_cast<std::int32_t>(u)));
      }
      most = std::max(most, elsewhere);
      e.need.push_back(p_.need[b]);
      e.least_gain.push_back(least);
      e.most_elsewhere.push_back(most);
    }
    bounds_valid_[t] = 1;
    return e;
  }

  void assign(std::size_t j, std::int32_t t) {
    if (at_[j] != kNoType) {
      const auto from = static_cast<std::size_t>(at_[j]);
      by_loss_valid_[from] = 0;
      left_[from] += p_.need[j];
      on_[from].erase(std::lower_bound(on_[from].begin(), on_[from].end(), j));
      on_need_[from] -= p_.need[j];
      bounds_valid_[from] = 0;
    }
    at_[j] = t;
    if (t != kNoType) {
      const auto to = static_cast<std::size_t>(t);
      by_loss_valid_[to] = 0;
      left_[to] -= p_.need[j];
      on_[to].insert(std::lower_bound(on_[to].begin(), on_[to].end(), j), j);
      on_need_[to] += p_.need[j];
      bounds_valid_[to] = 0;
    }
  }

  // The best move of one job found so far (relocate): a to type `to`, and the jobs it evicts.
  struct Move {
    double gain = kEps; // over the current assignment; a move must beat it
    std::int32_t to = kNoType;
    bool evict_one = false; // b leaves `to` for b_to (kNoType: none)
    std::size_t b = 0;
    std::int32_t b_to = kNoType;
  };

  // The best improving relocation of job a (see improve()); applies it and returns true.
  bool relocate(std::size_t a, bool select) {
    Move best;
    best_moves_.clear(); // several evicted jobs and where each goes, when non-empty
    for (std::size_t t : allowed(a))
      try_room_or_one_eviction(a, t, select, best);
    for (std::size_t t : allowed(a))
      try_several_evictions(a, t, select, best);
    if (best.to == kNoType) return false;
    apply(a, best);
    return true;
  }

  // a moves to t where it fits, or takes the place of one job b on t, which goes to its best
  // type with room once a has left its own (with select, to none).
  void try_room_or_one_eviction(std::size_t a, std::size_t t, bool select, Move& best) {
    const std::int32_t from = at_[a];
    const auto ti = static_cast<std::int32_t>(t);
    if (ti == from) return;
    const double ga = gain(a, ti) - gain(a, from);
    if (left_[t] >= p_.need[a]) {
      if (ga > best.gain) best = Move{ga, ti};
      return;
    }
    if (prune_ && !one_eviction_may_beat(a, t, ga, best.gain)) return;
    for (std::size_t b : on_[t]) {
      if (b == a) continue;
      if (left_[t] + p_.need[b] < p_.need[a]) continue;
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
      if (total > best.gain) best = Move{total, ti, true, b, ub};
    }
  }

  // The scan of try_room_or_one_eviction gives a's place on t to one job b there that holds at
  // least what a lacks (need[b] >= short_by) and totals ga + gb - gain(b, t). Rounding is
  // monotone, so that total is at most ga + (the most any such b gains elsewhere) - (the least
  // any has on t): when that bound is no better than the best so far, the scan would choose
  // nothing.
  bool one_eviction_may_beat(std::size_t a, std::size_t t, double ga, double best) {
    const EvictBounds& e = evict_bounds(t);
    const std::uint32_t short_by = p_.need[a] - left_[t];
    const auto holders = static_cast<std::size_t>(
        std::partition_point(e.need.begin(), e.need.end(),
                             [&](std::uint32_t n) { return n >= short_by; }) -
        e.need.begin());
    if (holders == 0) return false;
    return ga + e.most_elsewhere[holders - 1] - e.least_gain[holders - 1] > best;
  }

  // A big job displacing small ones: on t, without room for a, the jobs there that lose least
  // per device leave until a fits; each goes to its best type with room (or, with select, to
  // none). Two or more leaving (one is try_room_or_one_eviction's).
  void try_several_evictions(std::size_t a, std::size_t t, bool select, Move& best) {
    const std::int32_t from = at_[a];
    const auto ti = static_cast<std::int32_t>(t);
    if (ti == from || left_[t] >= p_.need[a]) return;
    // Even every job on t leaving would not make room for a.
    if (prune_ && left_[t] + on_need_[t] < p_.need[a]) return;
    // a is not on t (t is not `from`): every job there may leave.
    const std::vector<std::size_t>& there = by_loss(t);
    std::vector<std::int64_t>& room = room_;
    room.assign(left_.begin(), left_.end());
    if (from != kNoType) room[static_cast<std::size_t>(from)] += p_.need[a];
    std::size_t k = 0;
    double delta = gain(a, ti) - gain(a, from);
    while (k < there.size() && room[t] < static_cast<std::int64_t>(p_.need[a])) {
      room[t] += p_.need[there[k]];
      delta -= gain(there[k], ti);
      ++k;
    }
    if (room[t] < static_cast<std::int64_t>(p_.need[a]) || k < 2) return;
    room[t] -= p_.need[a];
    moves_.clear();
    for (std::size_t i = 0; i < k; ++i) {
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
      if (gb < -1e299) return;
      if (ub != kNoType) room[static_cast<std::size_t>(ub)] -= p_.need[b];
      delta += gb;
      moves_.emplace_back(b, ub);
    }
    if (delta > best.gain) {
      best.gain = delta;
      best.to = ti;
      std::swap(best_moves_, moves_);
    }
  }

  void apply(std::size_t a, const Move& best) {
    if (!best_moves_.empty()) {
      for (const auto& [b, u] : best_moves_)
        assign(b, kNoType);
      assign(a, best.to);
      for (const auto& [b, u] : best_moves_)
        assign(b, u);
    } else if (best.evict_one) {
      assign(best.b, kNoType);
      assign(a, best.to);
      assign(best.b, best.b_to);
    } else {
      assign(a, best.to);
    }
  }

  const TypeChoiceProblem& p_;
  const AllowedTypes& allowed_;
  bool prune_; // skip the scans that the bounds show would find nothing
  std::vector<std::int32_t> at_;
  // The rest lives in the caller's SearchScratch.
  std::vector<std::uint32_t>& left_;
  // [type] the jobs assigned to it, in index order: the candidates for eviction (a scan of
  // every job per move tried made the search quadratic in the jobs when few are assigned).
  std::vector<std::vector<std::size_t>>& on_;
  std::vector<std::uint64_t>& on_need_;            // [type] the devices its jobs ask for, summed
  std::vector<std::vector<std::size_t>>& by_loss_; // [type] see by_loss()
  std::vector<char>& by_loss_valid_;
  std::vector<EvictBounds>& bounds_; // [type] see evict_bounds()
  std::vector<char>& bounds_valid_;
  bool select_ = false;
  // Scratch of evict_bounds() and relocate().
  std::vector<std::size_t>& evict_order_;
  std::vector<std::int64_t>& room_;
  std::vector<std::pair<std::size_t, std::int32_t>>& moves_;
  std::vector<std::pair<std::size_t, std::int32_t>>& best_moves_;
};

} // namespace

std::vector<std::int32_t> choose_types(const TypeChoiceProblem& p, bool select,
                                       std::vector<std::int32_t> initial, bool prune) {
  const std::size_t n = p.need.size();
  if (initial.empty()) initial.assign(n, kNoType);
  // One scratch per thread: sweeps may run simulations side by side.
  thread_local SearchScratch scratch;
  const AllowedTypes allowed(p, scratch.allowed_types, scratch.allowed_from);
  if (select) {
    // Greedy start: (job, type) pairs by value, best first; ties to the earlier job.
    auto& pairs = scratch.pairs;
    pairs.clear();
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t t : allowed.of(j))
        pairs.emplace_back(-p.value[j * p.types + t], j, t);
    }
    // Built in (job, type) order, so already sorted when the values are in order (one device
    // type, or every job valued alike): the usual case under a standing queue.
    if (!std::is_sorted(pairs.begin(), pairs.end())) std::sort(pairs.begin(), pairs.end());
    auto& left = scratch.greedy_left;
    left.assign(p.capacity.begin(), p.capacity.end());
    for (std::size_t j = 0; j < n; ++j) {
      if (initial[j] != kNoType) left[static_cast<std::size_t>(initial[j])] -= p.need[j];
    }
    for (const auto& [v, j, t] : pairs) {
      if (initial[j] != kNoType || left[t] < p.need[j]) continue;
      initial[j] = static_cast<std::int32_t>(t);
      left[t] -= p.need[j];
    }
  }
  Search s(p, std::move(initial), allowed, prune, scratch);
  s.improve(select);
  return std::move(s).result();
}

bool fits_some_type(const View& view, JobId j, const std::vector<std::uint32_t>& capacity) {
  const std::uint32_t need = view.request(j).devices();
  for (DeviceTypeId t : view.compatible_types(j)) {
    if (need <= capacity[t]) return true;
  }
  return false;
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
  fill_type_choice_problem(view, jobs, capacity, p);
  return p;
}

void fill_type_choice_problem(const View& view, std::span<const JobId> jobs,
                              const std::vector<std::uint32_t>& capacity, TypeChoiceProblem& p) {
  p.types = capacity.size();
  p.capacity.assign(capacity.begin(), capacity.end());
  p.need.clear();
  p.need.reserve(jobs.size());
  p.value.assign(jobs.size() * p.types, -1.0);
  p.allowed.clear();
  p.allowed_from.clear();
  p.allowed_from.reserve(jobs.size() + 1);
  const PerfTable& perf = view.perf();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobId j = jobs[i];
    const JobRequest& r = view.request(j);
    p.need.push_back(r.devices());
    // normalized_throughput for each compatible type, the fastest time found once.
    const auto types = view.compatible_types(j);
    p.allowed_from.push_back(p.allowed.size());
    double best = std::numeric_limits<double>::infinity();
    for (DeviceTypeId u : types)
      best = std::min(best, perf.type_count == 0 ? 1.0 : perf.iter_time(r.model, u));
    for (DeviceTypeId t : types) {
      const double v = perf.type_count == 0 ? 1.0 : best / perf.iter_time(r.model, t);
      p.value[i * p.types + t] = v;
      if (v >= 0) p.allowed.push_back(t);
    }
    const auto own = p.allowed.begin() + static_cast<std::ptrdiff_t>(p.allowed_from.back());
    std::sort(own, p.allowed.end());
    p.allowed.erase(std::unique(own, p.allowed.end()), p.allowed.end());
  }
  p.allowed_from.push_back(p.allowed.size());
}

} // namespace dlsim
