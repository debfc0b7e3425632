// The invariant checker every end-to-end test attaches: no device over-committed beyond what
// `pack` allows, gangs whole, progress never decreasing, each job finishing at most once, time
// never going backwards, and the runtime's counters agreeing with a recount.
#pragma once

#include "sim/runtime/observer.h"

#include <vector>

namespace dlsim::test {

class InvariantChecker final : public RunObserver {
public:
  void on_advance(SimTime from, SimTime to, const View& view) override;
  void on_job_finished(JobId job, const View& view) override;
  void on_decided(const View& view) override;
  // After the run: every finished job did all its work.
  void check_final(const SimState& state) const;
  [[nodiscard]] std::size_t checks() const { return checks_; }

private:
  SimTime last_time_ = 0;
  std::vector<double> last_done_;
  std::vector<std::uint32_t> last_failures_; // failures of each job at the last check
  std::vector<int> finishes_;
  std::size_t checks_ = 0;
};

} // namespace dlsim::test
