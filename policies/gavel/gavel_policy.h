// Gavel's round-based scheduling (Narayanan et al., OSDI'20, section 5; scheduler/scheduler.py,
// _update_priorities and _schedule_jobs_on_workers): at the start of every round the allocation
// X of a policy (allocation.h) is recomputed when jobs have come or gone, each (job, type) gets
// the priority X[j][t] / (share of type t's time that j has received since X was set), and jobs
// are placed for the round in priority order, type by type, fastest type first. A job placed on
// another type than it runs on migrates (paying runtime.costs.migrate_s), one not placed is
// suspended. docs/gavel.md has the mechanism and what differs from Gavel's simulator.
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry gavel_max_min_policy();
PolicyEntry gavel_throughput_policy();
PolicyEntry gavel_finish_time_policy(); // oracle: needs each job's remaining iterations
PolicyEntry gavel_makespan_policy();    // oracle: likewise

} // namespace dlsim
