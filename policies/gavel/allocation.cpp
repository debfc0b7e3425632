#include "policies/gavel/allocation.h"

#include "policies/linear_program.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

namespace dlsim {

namespace {

// How many identical jobs row i stands for (AllocationProblem::count).
double count(const AllocationProblem& p, std::size_t i) {
  return p.count.empty() ? 1.0 : p.count[i];
}

// The bottleneck coefficients of rows that stand for several jobs: their rows summed.
std::vector<double> times_count(const AllocationProblem& p, std::vector<double> c) {
  if (!p.count.empty())
    for (std::size_t i = 0; i < c.size(); ++i)
      c[i] *= p.count[i];
  return c;
}

// Gavel's base constraints (section 3.1; policy.py, get_base_constraints) as an LP
// (linear_program.h): a column per (job, type) the job can run on, a row per job (sum_t X <= 1)
// and a row per type (sum_i s X <= N). Objectives add a bottleneck (a column z and a row per
// job) or objective coefficients where they need them.
class Lp : public LinearProgram {
public:
  explicit Lp(const AllocationProblem& p) : p_(p) {
    col_.assign(p.jobs * p.types, 0);
    int cols = 0;
    for (std::size_t i = 0; i < p.jobs; ++i)
      for (std::size_t t = 0; t < p.types; ++t)
        if (p.throughput[i * p.types + t] > 0) col_[i * p.types + t] = ++cols;
    if (cols > 0) add_columns(cols);
    for (std::size_t i = 0; i < p.jobs; ++i)
      for (std::size_t t = 0; t < p.types; ++t)
        if (int c = col(i, t)) bound_column(c, 0.0, count(p, i));
    const int job_row = add_rows(static_cast<int>(p.jobs));
    const std::vector<double> one(p.types, 1.0);
    for (std::size_t i = 0; i < p.jobs; ++i)
      set_row_at_most(job_row + static_cast<int>(i), job_entries(i, one.data()), count(p, i));
    const int type_row = add_rows(static_cast<int>(p.types));
    for (std::size_t t = 0; t < p.types; ++t) {
      LinearProgram::Entries row;
      for (std::size_t i = 0; i < p.jobs; ++i)
        if (int c = col(i, t)) row.emplace_back(c, static_cast<double>(p.scale[i]));
      set_row_at_most(type_row + static_cast<int>(t), row, p.capacity[t]);
    }
  }

  // Column of X[i][t], 0 when the job cannot run on t.
  [[nodiscard]] int col(std::size_t i, std::size_t t) const { return col_[i * p_.types + t]; }

  // z, maximised, with a row per job i of coefficient[i] != 0:
  // sum_t a[i][t] X[i][t] - coefficient[i] z >= 0.
  void add_job_bottleneck(const std::vector<double>& a, const std::vector<double>& coefficient) {
    std::vector<LinearProgram::Entries> rows(p_.jobs);
    for (std::size_t i = 0; i < p_.jobs; ++i)
      rows[i] = job_entries(i, a.data() + i * p_.types);
    add_bottleneck(std::move(rows), coefficient);
  }

  [[nodiscard]] std::vector<double> x() const {
    std::vector<double> x(p_.jobs * p_.types, 0.0);
    for (std::size_t k = 0; k < x.size(); ++k)
      if (col_[k]) x[k] = std::clamp(value(col_[k]), 0.0, count(p_, k / p_.types));
    return x;
  }

private:
  // Job i's columns with coefficients a[t].
  [[nodiscard]] LinearProgram::Entries job_entries(std::size_t i, const double* a) const {
    LinearProgram::Entries row;
    for (std::size_t t = 0; t < p_.types; ++t)
      if (int c = col(i, t)) row.emplace_back(c, a[t]);
    return row;
  }

  const AllocationProblem& p_;
  std::vector<int> col_;
};

void check(const AllocationProblem& p) {
  const std::size_t n = p.jobs * p.types;
  if (p.throughput.size() != n || p.scale.size() != p.jobs || p.capacity.size() != p.types ||
      p.weight.size() != p.jobs || (!p.count.empty() && p.count.size() != p.jobs))
    throw std::invalid_argument("AllocationProblem: sizes do not match jobs x types");
}

void check_progress(const AllocationProblem& p, bool times) {
  if (p.remaining.size() != p.jobs ||
      (times && (p.since_start_s.size() != p.jobs || p.isolated_finish_s.size() != p.jobs)))
    throw std::invalid_argument("AllocationProblem: remaining work or times missing");
}

std::vector<double> max_min(const AllocationProblem& p, bool agnostic) {
  Lp lp(p);
  // Agnostic: every usable type counts as throughput 1, as MaxMinFairnessPolicy rewrites them.
  AllocationProblem seen = p;
  if (agnostic)
    for (double& v : seen.throughput)
      if (v > 0) v = 1.0;
  const std::vector<double> prop = proportional_throughputs(seen);
  std::vector<double> a(p.jobs * p.types, 0.0);
  std::vector<double> one(p.jobs, 0.0);
  for (std::size_t i = 0; i < p.jobs; ++i) {
    if (prop[i] <= 0) continue; // runs nowhere
    one[i] = 1.0;
    for (std::size_t t = 0; t < p.types; ++t)
      a[i * p.types + t] = seen.throughput[i * p.types + t] * p.scale[i] / (p.weight[i] * prop[i]);
  }
  lp.add_job_bottleneck(a, times_count(p, one));
  lp.solve();
  return lp.x();
}

std::vector<double> max_sum_throughput(const AllocationProblem& p) {
  Lp lp(p);
  for (std::size_t i = 0; i < p.jobs; ++i)
    for (std::size_t t = 0; t < p.types; ++t)
      if (int c = lp.col(i, t)) lp.set_objective(c, p.throughput[i * p.types + t]);
  lp.solve();
  return lp.x();
}

// Gavel binary-searches the makespan M (min_total_duration.py, to within 5%); with z = 1/M the
// condition "sum_t X T >= remaining / M for every job" is linear in (X, z), so one LP gives the
// exact optimum.
std::vector<double> min_total_duration(const AllocationProblem& p) {
  Lp lp(p);
  lp.add_job_bottleneck(p.throughput, times_count(p, p.remaining));
  lp.solve();
  return lp.x();
}

// rho_i <= rho  <=>  sum_t X T >= remaining_i / (rho isolated_i - since_start_i) =: d_i(rho),
// for rho > since_start_i / isolated_i. For a fixed rho that is the LP "max z subject to
// sum_t X T >= d_i z", feasible at rho iff z >= 1; z grows with rho, so rho is found by
// bisection, each step warm-started from the last basis. Gavel hands the same min-max of
// convex functions to cvxpy instead.
std::vector<double> finish_time_fairness(const AllocationProblem& p) {
  Lp lp(p);
  double lo = 0; // infeasible (or the bound below which d is undefined)
  for (std::size_t i = 0; i < p.jobs; ++i)
    if (p.remaining[i] > 0 && p.isolated_finish_s[i] > 0)
      lo = std::max(lo, p.since_start_s[i] / p.isolated_finish_s[i]);
  auto demands = [&](double rho) {
    std::vector<double> d(p.jobs, 0.0);
    for (std::size_t i = 0; i < p.jobs; ++i) {
      bool can_run = false;
      for (std::size_t t = 0; t < p.types; ++t)
        can_run |= p.throughput[i * p.types + t] > 0;
      if (p.remaining[i] > 0 && p.isolated_finish_s[i] > 0 && can_run)
        d[i] = p.remaining[i] / (rho * p.isolated_finish_s[i] - p.since_start_s[i]);
    }
    return d;
  };
  double hi = std::max(1.0, 2 * lo);
  std::vector<double> d = demands(hi);
  lp.add_job_bottleneck(p.throughput, times_count(p, d));
  bool any = std::any_of(d.begin(), d.end(), [](double v) { return v > 0; });
  if (!any) {
    lp.solve();
    return lp.x();
  }
  // Raise hi until feasible: z grows without bound with rho, so this ends.
  for (lp.solve(); lp.z() < 1.0; lp.solve()) {
    lo = hi;
    hi *= 2;
    lp.set_bottleneck_coefficients(times_count(p, demands(hi)));
  }
  std::vector<double> best = lp.x();
  // To 0.1% of rho: the allocation then differs from the optimum's by less than a round's
  // rounding.
  while (hi - lo > 1e-3 * hi) {
    const double mid = 0.5 * (lo + hi);
    lp.set_bottleneck_coefficients(times_count(p, demands(mid)));
    lp.solve();
    if (lp.z() >= 1.0) {
      hi = mid;
      best = lp.x();
    } else {
      lo = mid;
    }
  }
  return best;
}

} // namespace

std::string_view to_string(AllocationObjective o) {
  switch (o) {
  case AllocationObjective::kMaxMinFairness:
    return "max-min fairness";
  case AllocationObjective::kMaxMinFairnessAgnostic:
    return "max-min fairness (heterogeneity-agnostic)";
  case AllocationObjective::kFinishTimeFairness:
    return "finish-time fairness";
  case AllocationObjective::kMinTotalDuration:
    return "minimum total duration";
  case AllocationObjective::kMaxSumThroughput:
    return "maximum sum throughput";
  }
  return "?";
}

std::vector<double> proportional_throughputs(const AllocationProblem& p) {
  // Every row of N[t] / jobs sums to sum_t N[t] / jobs; Gavel divides by that maximum row sum,
  // so each row becomes N[t] / sum N.
  double total = 0;
  for (std::uint32_t n : p.capacity)
    total += n;
  std::vector<double> out(p.jobs, 0.0);
  if (total <= 0) return out;
  for (std::size_t i = 0; i < p.jobs; ++i)
    for (std::size_t t = 0; t < p.types; ++t)
      out[i] += p.throughput[i * p.types + t] * p.capacity[t] / total;
  return out;
}

std::vector<double> isolated_throughputs(const AllocationProblem& p) {
  double total = 0;
  for (std::uint32_t n : p.capacity)
    total += n;
  std::vector<double> out(p.jobs, 0.0);
  const auto m = static_cast<double>(p.jobs);
  for (std::size_t i = 0; i < p.jobs; ++i) {
    const double row = total / (m * p.scale[i]);
    const double shrink = std::max(row, 1.0);
    for (std::size_t t = 0; t < p.types; ++t)
      out[i] += p.throughput[i * p.types + t] * p.capacity[t] / (m * p.scale[i]) / shrink;
  }
  return out;
}

MergedProblem merge_identical(const AllocationProblem& p) {
  check(p);
  MergedProblem m;
  AllocationProblem& q = m.problem;
  q.types = p.types;
  q.capacity = p.capacity;
  // A job as everything a problem reads of it; rows in the order of their first job.
  std::map<std::vector<double>, std::size_t> row_of_key;
  auto per_job = [&](const std::vector<double>& v, std::size_t i, std::vector<double>& key) {
    if (!v.empty()) key.push_back(v[i]);
  };
  for (std::size_t i = 0; i < p.jobs; ++i) {
    const auto first = p.throughput.begin() + static_cast<std::ptrdiff_t>(i * p.types);
    std::vector<double> key(first, first + static_cast<std::ptrdiff_t>(p.types));
    key.push_back(p.scale[i]);
    key.push_back(p.weight[i]);
    per_job(p.remaining, i, key);
    per_job(p.since_start_s, i, key);
    per_job(p.isolated_finish_s, i, key);
    auto [it, fresh] = row_of_key.emplace(std::move(key), q.jobs);
    m.row_of.push_back(it->second);
    if (!fresh) {
      q.count[it->second] += count(p, i);
      continue;
    }
    ++q.jobs;
    q.throughput.insert(q.throughput.end(), first, first + static_cast<std::ptrdiff_t>(p.types));
    q.scale.push_back(p.scale[i]);
    q.weight.push_back(p.weight[i]);
    for (auto [from, to] :
         {std::pair{&p.remaining, &q.remaining}, std::pair{&p.since_start_s, &q.since_start_s},
          std::pair{&p.isolated_finish_s, &q.isolated_finish_s}})
      if (!from->empty()) to->push_back((*from)[i]);
    q.count.push_back(count(p, i));
  }
  return m;
}

std::vector<double> split_merged(const MergedProblem& m, const std::vector<double>& x) {
  const std::size_t types = m.problem.types;
  std::vector<double> out(m.row_of.size() * types, 0.0);
  if (x.empty()) return out;
  for (std::size_t i = 0; i < m.row_of.size(); ++i) {
    const std::size_t r = m.row_of[i];
    for (std::size_t t = 0; t < types; ++t)
      out[i * types + t] = x[r * types + t] / m.problem.count[r];
  }
  return out;
}

std::vector<double> solve_allocation(const AllocationProblem& p, AllocationObjective objective) {
  check(p);
  if (p.jobs == 0 || p.types == 0) return {};
  switch (objective) {
  case AllocationObjective::kMaxMinFairness:
    return max_min(p, false);
  case AllocationObjective::kMaxMinFairnessAgnostic:
    return max_min(p, true);
  case AllocationObjective::kFinishTimeFairness:
    check_progress(p, true);
    return finish_time_fairness(p);
  case AllocationObjective::kMinTotalDuration:
    check_progress(p, false);
    return min_total_duration(p);
  case AllocationObjective::kMaxSumThroughput:
    return max_sum_throughput(p);
  }
  return {};
}

} // namespace dlsim
