// Heterogeneity-aware type choice (in the spirit of Gavel, Narayanan et al., OSDI'20): give the
// jobs of one decision the device types that maximise the cluster's summed normalized throughput,
// where a job's normalized throughput on type t is its speed there over its speed on its fastest
// type (1 on the best type, 0.16 for ResNet-50 on a K80 against a V100). docs/policies.md has the
// objective, the solver and how close it comes to the optimum.
#pragma once

#include "sim/runtime/view.h"

#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

// One decision: jobs (rows) x device types (columns).
struct TypeChoiceProblem {
  std::size_t types = 0;
  std::vector<std::uint32_t> capacity; // devices free per type
  std::vector<std::uint32_t> need;     // devices per job
  std::vector<double> value; // [job * types + t]: normalized throughput; < 0 = not allowed
  // Optional, as type_choice_problem fills them: the types each job may have (value >= 0), in
  // increasing order, job j's at allowed[allowed_from[j], allowed_from[j + 1]). When empty,
  // choose_types finds them by scanning `value` (every job x every type of the catalog).
  std::vector<std::size_t> allowed;
  std::vector<std::size_t> allowed_from;
};

constexpr std::int32_t kNoType = -1;

// Type per job (kNoType when it gets none). Objective: maximise the sum over assigned jobs of
// need x value. With `select`, any subset of the jobs may be assigned (greedy by value, then
// moves, swaps and replacements); without it, `initial` fixes which jobs are assigned and only
// their types change (moves and swaps). Ties go to the lower job index, then the lower type.
// The search skips the evictions that bounds on their gain show cannot improve; with
// prune = false it tries every one (the same result, the plain computation tests compare with).
std::vector<std::int32_t> choose_types(const TypeChoiceProblem& p, bool select,
                                       std::vector<std::int32_t> initial = {}, bool prune = true);

// The problem for `jobs` on the view's free devices (capacity = free devices of each type minus
// `taken`, if given): values are normalized throughputs over each job's compatible types.
TypeChoiceProblem type_choice_problem(const View& view, std::span<const JobId> jobs,
                                      const std::vector<std::uint32_t>& capacity);
// The same problem written into p, reusing its storage (a policy deciding often keeps one).
void fill_type_choice_problem(const View& view, std::span<const JobId> jobs,
                              const std::vector<std::uint32_t>& capacity, TypeChoiceProblem& p);

// Whether job j's devices fit the capacity of one of its compatible types. A job that fits none
// gets no type from choose_types (with select, and not assigned by `initial`), whatever the other
// jobs get: it can neither take room nor make room by displacing jobs that hold less than the
// capacity. Leaving it out of the problem changes no other job's type.
bool fits_some_type(const View& view, JobId j, const std::vector<std::uint32_t>& capacity);

// Job j's speed on t over its speed on its fastest compatible type (0 when t is not compatible).
double normalized_throughput(const View& view, JobId j, DeviceTypeId t);

} // namespace dlsim
