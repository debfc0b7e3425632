// The runtime's parameters: action costs, the co-location interference model, sharing limits.
// Defaults and their sources: docs/runtime.md.
#pragma once

namespace dlsim {

struct Costs {
  double start_s = 0;    // first start: 0 so that a FIFO replay reproduces trace durations
  double suspend_s = 5;  // checkpoint to storage at a mini-batch boundary
  double resume_s = 5;   // restore from the checkpoint
  double migrate_s = 10; // suspend + move + resume
  double resize_s = 5;   // re-partition data-parallel workers
};

// Slowdown of co-located jobs as a function of the summed GPU utilization U of the running
// jobs on a device: 1 + slope * max(0, U - onset). Fitted to the 1.5x (U = 1.0) and 4x
// (U = 2.0) ends of the range in Yeung et al., HotCloud'20, slide 17.
struct Interference {
  double slope = 2.5;
  double onset = 0.8;
};

struct RuntimeConfig {
  Costs costs;
  Interference interference;
  unsigned max_jobs_per_device = 2;  // how many jobs `pack` may put on one device
  double default_gpu_util = 0.52;    // for jobs with no model and no trace value (Jeon et al. ATC'19)
};

inline double interference_slowdown(const Interference& m, double summed_util) {
  double over = summed_util - m.onset;
  return over > 0 ? 1.0 + m.slope * over : 1.0;
}

}  // namespace dlsim
