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
};

constexpr std::int32_t kNoType = -1;

// Type per job (kNoType when it gets none). Objective: maximise the sum over assigned jobs of
// need x value. With `select`, any subset of the jobs may be assigned (greedy by value, then
// moves, swaps and replacements); without it, `initial` fixes which jobs are assigned and only
// their types change (moves and swaps). Ties go to the lower job index, then the lower type.
std::vector<std::int32_t> choose_types(const TypeChoiceProblem& p, bool select,
                                       std::vector<std::int32_t> initial = {});

// The problem for `jobs` on the view's free devices (capacity = free devices of each type minus
// `taken`, if given): values are normalized throughputs over each job's compatible types.
TypeChoiceProblem type_choice_problem(const View& view, std::span<const JobId> jobs,
                                      const std::vector<std::uint32_t>& capacity);

// Job j's speed on t over its speed on its fastest compatible type (0 when t is not compatible).
double normalized_throughput(const View& view, JobId j, DeviceTypeId t);

} // namespace dlsim
