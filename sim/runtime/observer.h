// Observers watch a run without being part of it: metrics, time series and invariant checks
// subscribe here; the engine loop never knows what they compute.
#pragma once

#include "sim/runtime/view.h"

namespace dlsim {

class RunObserver {
public:
  virtual ~RunObserver() = default;
  // The state was constant over [from, to); called before the events at `to` are applied.
  virtual void on_advance(SimTime /*from*/, SimTime /*to*/, const View& /*view*/) {}
  virtual void on_job_finished(JobId /*job*/, const View& /*view*/) {}
  // After the policy decided at the current timestamp: the state the next interval will have.
  virtual void on_decided(const View& /*view*/) {}
  virtual void on_run_end(const View& /*view*/) {}
};

} // namespace dlsim
