// The Borda count AITurbo ranks predictable jobs by (slide 22; docs/aiturbo.md#borda-count):
// each criterion ranks the jobs, a job earns one point for every job it beats on a criterion, and
// the points add up over the criteria. Equal values earn equal points.
#pragma once

#include <vector>

namespace dlsim {

// criteria[c][i]: job i's value on criterion c, lower is better. Returns each job's points.
std::vector<double> borda_points(const std::vector<std::vector<double>>& criteria);

} // namespace dlsim
