// Synthetic traces: Poisson arrivals, log-normal durations and a GPU-demand mix, all fitted to
// the 82,247-job Philly trace (docs/traces.md gives the fit).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dlsim {

struct GenTraceOptions {
  std::uint64_t jobs = 1000;
  std::uint64_t seed = 1;
  double arrival_rate_per_hour = 31.47;  // Philly: 82,247 jobs over 108.9 days
  double duration_mu = 6.791;            // log-normal of duration in seconds, Philly fit
  double duration_sigma = 2.156;
  double min_duration_s = 10;
  double max_duration_s = 4628226;      // Philly's longest job (53.6 days)
  std::vector<std::string> models;       // when non-empty, each job draws one uniformly
  std::uint32_t users = 20;
};

// Writes the native CSV trace.
void generate_trace(const GenTraceOptions& options, std::ostream& out);

}  // namespace dlsim
