// Gavel's allocation problems (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies
// for Deep Learning Workloads", OSDI'20, section 4): each policy is an optimization over the
// allocation matrix X, jobs x device types, X[i][t] the fraction of wall-clock time job i should
// spend on type t, under the constraints every Gavel policy shares (section 3.1 and
// scheduler/policies/policy.py, get_base_constraints):
//
//   X[i][t] >= 0,   sum_t X[i][t] <= 1 (a job runs on one type at a time),
//   sum_i s[i] X[i][t] <= N[t]         (s[i] devices per job, N[t] devices of type t).
//
// Every objective below is a linear program, or a sequence of them, solved with GLPK's simplex
// (docs/gavel.md has the formulations and the reasons for each reduction to an LP).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace dlsim {

struct AllocationProblem {
  std::size_t jobs = 0;
  std::size_t types = 0;
  // [i * types + t]: job i's iterations per second on type t with its s[i] devices; 0 = it
  // cannot run there (X[i][t] is then held at 0).
  std::vector<double> throughput;
  std::vector<std::uint32_t> scale;    // s[i]: devices per job (Gavel's scale_factor)
  std::vector<std::uint32_t> capacity; // N[t]: devices per type
  std::vector<double> weight;          // w[i]: priority weight (1 for all in Gavel's runs)
  // For finish-time fairness and minimum total duration (0 elsewhere): iterations left,
  // seconds since arrival, and the job's finish time under its isolated share
  // (finish_time_fairness.py: cumulative isolated time + remaining / isolated throughput).
  std::vector<double> remaining;
  std::vector<double> since_start_s;
  std::vector<double> isolated_finish_s;
  // [i]: how many identical jobs row i stands for (merge_identical); empty: one each. Row i's
  // X[i][t] is then the sum of theirs: sum_t X[i][t] <= count[i], and its fairness or duration
  // row is theirs summed.
  std::vector<double> count;
};

// The problem with the jobs that are identical in everything a problem reads of them (throughputs,
// devices, weight, remaining work and times) as one row each, and the row of every job.
//
// Exact for every objective here. Take a class of n identical jobs and Y[t] = the sum of their
// X[i][t]. Any feasible X gives a feasible Y: the n rows sum_t X[i][t] <= 1 sum to
// sum_t Y[t] <= n, the type rows read s Y[t], and the n bottleneck rows sum_t a[t] X[i][t] >= c z
// sum to sum_t a[t] Y[t] >= n c z; the objective (z, or sum T X = sum T Y) is the same. Any
// feasible Y gives a feasible X, X[i][t] = Y[t] / n for each job: each job row reads
// sum_t Y[t] / n <= 1, the type rows s Y[t], each bottleneck row sum_t a[t] Y[t] / n >= c z.
// So both problems have the same optimum value, and split_merged of an optimal Y is an optimal X.
// It need not be the X the unmerged problem's simplex ends at where the optimum is not unique
// (identical jobs are exactly such a tie): the allocation differs, not its value.
struct MergedProblem {
  AllocationProblem problem;
  std::vector<std::size_t> row_of; // [job] its row in problem
};
MergedProblem merge_identical(const AllocationProblem& p);
// X of the unmerged problem: each row's X split equally among the jobs it stands for.
std::vector<double> split_merged(const MergedProblem& m, const std::vector<double>& x);

enum class AllocationObjective : std::uint8_t {
  // Max-min fairness (Gavel section 4.1, max_min_fairness.py, MaxMinFairnessPolicyWithPerf):
  // maximise min_i sum_t X[i][t] T[i][t] s[i] / (w[i] P[i]), P[i] the job's throughput under
  // the proportional (equal) share of every type (proportional.py).
  kMaxMinFairness,
  // The heterogeneity-agnostic variant (MaxMinFairnessPolicy): the same with T = 1 everywhere,
  // i.e. equal time shares whatever the speeds.
  kMaxMinFairnessAgnostic,
  // Finish-time fairness as in Themis (Mahajan et al., NSDI'20; Gavel section 4.1,
  // finish_time_fairness.py): minimise max_i rho_i, rho_i = (since_start + remaining /
  // sum_t X T) / isolated_finish.
  kFinishTimeFairness,
  // Minimum total duration (Gavel section 4.1 "Minimize makespan", min_total_duration.py):
  // the smallest M such that every job can do its remaining iterations within M.
  kMinTotalDuration,
  // Maximum sum throughput (Gavel section 4.1, max_sum_throughput.py): maximise
  // sum_i sum_t X[i][t] T[i][t] (iterations per second, as Gavel's code sums them).
  kMaxSumThroughput,
};

std::string_view to_string(AllocationObjective o);

// X, [i * types + t], each entry in [0, 1]. Throws std::runtime_error if GLPK fails (it does not
// on a well-formed problem: X = 0 is always feasible). An empty problem gives an empty X.
std::vector<double> solve_allocation(const AllocationProblem& p, AllocationObjective objective);

// The throughput P[i] job i gets under Gavel's proportional share: X[i][t] = N[t] / jobs,
// scaled down so that no row sums to more than 1 (proportional.py).
std::vector<double> proportional_throughputs(const AllocationProblem& p);

// The throughput job i gets under Gavel's isolated share: X[i][t] = N[t] / (jobs s[i]), each
// row scaled down to sum to at most 1 (isolated.py).
std::vector<double> isolated_throughputs(const AllocationProblem& p);

} // namespace dlsim
