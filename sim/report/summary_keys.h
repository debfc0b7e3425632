// What summary.json's writer and the summary metrics share: times to the microsecond, and the
// JCT and queueing-delay statistics in their order.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>

namespace dlsim {

// Times to the microsecond, the simulator's resolution: 6354.296, not 6354.296000078.
inline double us_round(double s) {
  return std::round(s * 1e6) / 1e6;
}

// The JCT and queueing-delay statistics, in the order summary.json gives them for the whole run
// and for its window (Summary and WindowSummary name them alike).
template <class Stats>
void put_delay_stats(nlohmann::ordered_json& o, const Stats& x) {
  o["jct_mean_s"] = us_round(x.jct_mean_s);
  o["jct_median_s"] = us_round(x.jct_median_s);
  o["jct_p95_s"] = us_round(x.jct_p95_s);
  o["jct_p99_s"] = us_round(x.jct_p99_s);
  o["queue_mean_s"] = us_round(x.queue_mean_s);
  o["queue_median_s"] = us_round(x.queue_median_s);
  o["queue_p95_s"] = us_round(x.queue_p95_s);
}

} // namespace dlsim
